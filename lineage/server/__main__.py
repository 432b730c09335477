"""``python -m lineage.server [start | status | class-archive]``: manual use, and the class
archive ``scripts/setup.sh`` builds (prints its path)."""

import json
import sys

from . import build_class_archive, start, status

if sys.argv[1:] == ["class-archive"]:
    print(build_class_archive())
else:
    print(json.dumps(start() if sys.argv[1:] == ["start"] else status(), indent=2))
