"""The ``MySQLdb`` module XALT's code imports (mysqlclient), over PyMySQL (pure Python).

Not from XALT (see NOTICE): mysqlclient is a C extension that needs the MariaDB client
headers and a compiler to install; PyMySQL speaks the same protocol. XALT calls
``MySQLdb.connect(host, user, passwd, use_unicode=..., charset=..., connect_timeout=...)``
with positional arguments, which PyMySQL 1.x no longer accepts, and never names a port: this
module maps the call, with the port of the test's server (``XALT_TEST_DB_PORT``).
"""

import os

import pymysql

Error = pymysql.Error


def connect(host=None, user=None, passwd="", db=None, **options):
    """``MySQLdb.connect`` as XALT calls it, on PyMySQL."""
    return pymysql.connect(host=host, user=user, password=passwd or "", database=db,
                           port=int(os.environ.get("XALT_TEST_DB_PORT", "3306")), **options)
