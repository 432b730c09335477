"""XALT: run / link / pkg JSON records and syslog transmissions.

``model`` declares its kinds and relations, ``mapping`` turns its facts into graph records,
``jsonfiles`` reads its formats (its ``FORMATS``), ``views`` says what reports, ``why``,
``diff`` and ``lineage link`` show of it, ``demo`` writes its files of the demo campaign, and
``cypher/`` holds its templates (``xalt/library_users``, ...). ``lineage watch`` follows its
syslog files by their new lines (:class:`.syslog.SyslogStream`) and its record folders by
their new files. Its load option ``xalt_env``
is what is kept of run environments (:data:`ENV_MODES`).
"""

from ..source import Follow, Option, Source

#: What is kept of a run's environment: nothing, the values that are not secrets, all.
ENV_MODES = ("none", "filtered", "all")
ENV_DEFAULT = "filtered"

SOURCE = Source(
    "xalt", "XALT: the programs and libraries jobs ran (run, link and pkg records, syslog)",
    readers=("jsonfiles",), title="XALT", demo="demo",
    options=(Option("xalt_env", ENV_DEFAULT,
                    "XALT run environments: none, filtered (secrets redacted; default) or all.",
                    choices=ENV_MODES, env="LINEAGE_XALT_ENV", cli="--env", profile=True),),
    follows={"xalt-json": Follow("files"),
             "xalt-syslog": Follow("lines", "syslog:SyslogStream", errors="surrogateescape")})
