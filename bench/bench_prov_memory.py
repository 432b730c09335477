"""What reading a big PROV document costs: peak memory (RSS) and seconds of the reader alone
(the records parsed and checked against the model, as ``lineage load`` spools them), each in
a fresh process, for PROV-JSON in this checkout and in another (``--base``, the way before),
and for PROV-N and PROV-XML here (the ``prov`` package reads those whole).

    .venv/bin/python bench/bench_prov_memory.py --base /tmp/lineage-base [--mb 30 60] \\
        [--whole-mb 2 4]

Generates synthetic documents under bench/out/prov-memory/ (entities with a label, a type
and two attributes, activities with times, agents, and used / wasGeneratedBy /
wasAssociatedWith / wasDerivedFrom relations with a time or a role between them: all
declared, so the reader before reads them too), of about ``--mb`` MB of PROV-JSON and
``--whole-mb`` MB of PROV-N and PROV-XML (written by the ``prov`` package). Prints one line
per run and the MB of RSS per MB of input; the last line is the results as JSON.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
THIS = HERE.parent


def _peak_kb() -> int:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1])
    raise RuntimeError("no VmHWM in /proc/self/status")


def one(root: str, path: str) -> None:
    """Read one document with the checkout at ``root``; print seconds, peak KB, records."""
    sys.path.insert(0, root)
    try:  # the spool's home since the layout of folders; before it, a private class
        from lineage.load.spool import Spool
    except ImportError:
        from lineage.pipeline import _Spool as Spool
    from lineage.sources import registry
    from lineage.sources.base import LoadReport

    start_kb = _peak_kb()
    t0 = time.perf_counter()
    fmt = registry.detect(Path(path))
    report = LoadReport(path, fmt.name)
    spool = Spool()
    records = 0
    for record in fmt.parse(Path(path), report):
        spool.add(record)
        records += 1
    spool.seal()
    print(json.dumps({"seconds": time.perf_counter() - t0, "peak_kb": _peak_kb(),
                      "start_kb": start_kb, "records": records, "format": fmt.name}))


def generate_json(path: Path, mb: float) -> None:
    """A PROV-JSON document of about ``mb`` MB, written section by section."""
    n = max(int(mb * 1024 * 1024 / 1000), 1)  # about 1 KB per group of records below
    sections = {
        "entity": lambda i: (f"ex:file{i}", {
            "prov:label": f"file {i}.dat", "prov:type": {"$": "ex:File",
                                                        "type": "prov:QUALIFIED_NAME"},
            "ex:size": i * 7, "ex:path": f"/scratch/project/run/{i}/file{i}.dat"}),
        "activity": lambda i: (f"ex:job{i}", {
            "prov:startTime": "2024-01-02T03:04:05Z", "prov:endTime": "2024-01-02T03:05:06Z",
            "prov:label": f"job {i}", "ex:exitcode": 0}),
        "agent": lambda i: (f"ex:user{i % 100}", {"prov:type": {
            "$": "prov:Person", "type": "prov:QUALIFIED_NAME"}}),
        "used": lambda i: (f"_:u{i}", {"prov:activity": f"ex:job{i}",
                                       "prov:entity": f"ex:file{max(i - 1, 0)}",
                                       "prov:time": "2024-01-02T03:04:06Z"}),
        "wasGeneratedBy": lambda i: (f"_:g{i}", {"prov:entity": f"ex:file{i}",
                                                 "prov:activity": f"ex:job{i}",
                                                 "prov:time": "2024-01-02T03:05:00Z"}),
        "wasAssociatedWith": lambda i: (f"_:a{i}", {"prov:activity": f"ex:job{i}",
                                                    "prov:agent": f"ex:user{i % 100}",
                                                    "prov:role": "ex:submitter"}),
        "wasDerivedFrom": lambda i: (f"_:d{i}", {"prov:generatedEntity": f"ex:file{i}",
                                                 "prov:usedEntity": f"ex:file{max(i - 1, 0)}"}),
    }
    with open(path, "w") as out:
        out.write('{"prefix": {"ex": "http://example.org/"}')
        for section, make in sections.items():
            count = 100 if section == "agent" else n
            out.write(f', "{section}": {{')
            out.write(",".join(f"{json.dumps(k)}: {json.dumps(v)}"
                               for k, v in (make(i) for i in range(count))))
            out.write("}")
        out.write("}\n")


def generate_whole(json_path: Path, out_dir: Path) -> dict[str, Path]:
    """The same document as PROV-N and PROV-XML, written by the prov package."""
    from prov.model import ProvDocument

    doc = ProvDocument.deserialize(str(json_path), format="json")
    paths = {"prov-n": out_dir / (json_path.stem + ".provn"),
             "prov-xml": out_dir / (json_path.stem + ".provx")}
    doc.serialize(str(paths["prov-n"]), format="provn")
    doc.serialize(str(paths["prov-xml"]), format="xml")
    return paths


def run(root: str, path: Path) -> dict:
    out = subprocess.run([sys.executable, __file__, "--one", root, str(path)],
                         capture_output=True, text=True, check=True).stdout
    result = json.loads(out.strip().splitlines()[-1])
    size_mb = path.stat().st_size / 1024 / 1024
    result.update(size_mb=round(size_mb, 2), root=root,
                  rss_mb=round(result["peak_kb"] / 1024, 1),
                  rss_mb_per_input_mb=round((result["peak_kb"] - result["start_kb"]) / 1024
                                            / size_mb, 1))
    print(f"{result['format']:9} {size_mb:7.1f} MB  {'base' if root != str(THIS) else 'this':4}"
          f"  {result['seconds']:7.1f} s  peak {result['rss_mb']:7.1f} MB RSS "
          f"({result['rss_mb_per_input_mb']} MB per MB read)  {result['records']} records",
          flush=True)
    return result


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--base", help="another checkout of lineage-explorer (the way before)")
    ap.add_argument("--mb", type=float, nargs="+", default=[30.0])
    ap.add_argument("--whole-mb", type=float, nargs="+", default=[2.0])
    ap.add_argument("--one", nargs=2, help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.one:
        one(*args.one)
        return
    out_dir = HERE / "out" / "prov-memory"
    out_dir.mkdir(parents=True, exist_ok=True)
    results = []
    for mb in args.mb:
        path = out_dir / f"doc-{mb:g}mb.json"
        generate_json(path, mb)
        results.append(run(str(THIS), path))
        if args.base:
            results.append(run(str(Path(args.base).resolve()), path))
    for mb in args.whole_mb:
        path = out_dir / f"whole-{mb:g}mb.json"
        generate_json(path, mb)
        for other in generate_whole(path, out_dir).values():
            results.append(run(str(THIS), other))
    print(json.dumps(results))


if __name__ == "__main__":
    main()
