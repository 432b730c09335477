"""Store XALT json record files with XALT's own ``XALTdb`` (not from XALT, see NOTICE).

What ``xalt_file_to_db``'s ``link_json_to_db`` / ``run_json_to_db`` / ``pkg_json_to_db`` do
for each file (read it, ``json.loads``, hand it to ``XALTdb``), links first, then runs,
then pkgs, as its ``store_json_files`` does; without its home-directory walk (``getent``),
progress bar and reverse map (no module map: an empty table, as ``Rmap`` gives without one).

usage: python xalt_files_to_db.py CONFIG_FILE FILE.json...
"""

import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from XALTdb import XALTdb  # noqa: E402
from xalt_global import XALT_Stack  # noqa: E402
from xalt_util import carp  # noqa: E402

ORDER = {"link": 0, "run": 1, "pkg": 2}


def main() -> None:
    conf, *files = sys.argv[1:]
    xalt = XALTdb(conf)
    reverse_map = {}
    files.sort(key=lambda fn: ORDER.get(os.path.basename(fn).split(".")[0], 3))
    for fn in files:
        kind = os.path.basename(fn).split(".")[0]
        XALT_Stack.push("fn: " + fn)
        with open(fn, "r") as f:
            record = json.loads(f.read())
        if kind == "link":
            xalt.link_to_db(reverse_map, record)
        elif kind == "run":
            xalt.run_to_db(reverse_map, record)
        elif kind == "pkg":
            xalt.pkg_to_db("*", record)
        carp("fn", XALT_Stack.pop())
    print("stored", len(files))


if __name__ == "__main__":
    main()
