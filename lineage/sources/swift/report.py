"""What a Swift script run's report says first: its status, its failed app executions, its
calls by outcome and, across systems, the programs XALT saw its apps run.

>>> from lineage.sources.outcome import outcome
>>> outcome("failed", "x")["failures_title"]
'What failed'
"""

from __future__ import annotations

from ..outcome import across_systems, outcome, status_counts


def script_run_outcome(lin, uid: str, is_run: bool) -> dict:
    """The "what happened" box of a script run."""
    root = lin.query("nodes", uids=[uid])[0]
    calls = list(lin.query("swift/run_parts", run=uid))
    failed = [{"name": r["app_name"] or r["exec_uid"], "uid": r["exec_uid"],
               "error": f"{r['final_state'] or 'failed'}: {r['app_name']} "
                        f"{' '.join(str(a) for a in r['arguments'] or ())}".strip(),
               "detail": ", ".join(str(x) for x in (
                   f"site {r['site']}" if r["site"] else None,
                   f"job {r['job_id']}" if r["job_id"] else None,
                   f"attempt {r['attempt']}" if r["attempt"] is not None else None) if x)}
              for r in lin.query("swift/failed_executions", run=uid)]
    status = root.get("status")
    if failed:
        headline = (f"Failed: {len(failed)} app execution{'s' if len(failed) != 1 else ''} "
                    f"failed ({', '.join(sorted({f['name'] for f in failed}))})")
    else:
        headline = f"{(status or 'no status').capitalize()}: {len(calls)} calls of " \
                   f"{root['name']}"
    counts = [("calls", len(calls), "function calls of the script, the top level included")]
    counts += status_counts([r["status"] for r in calls], "calls")
    counts.append(("failed app executions", sum(r["failed_executions"] or 0 for r in calls),
                   "attempts of an app that failed (a retried call can still succeed)"))
    chain = list(lin.query("cross/run_chain", run=uid))
    return outcome(status, headline, failures=failed, counts=counts,
                   across=across_systems(chain))
