"""XALT: run / link / pkg JSON records and syslog transmissions.

``model`` declares its kinds and relations, ``mapping`` turns its facts into graph records,
and each module in :data:`READERS` reads one input format (its ``FORMATS``).
"""

#: Reader modules, in the order their formats are tried when detecting a file.
READERS = ('jsonfiles',)
