"""`napiscope fleet` (python3 -m napiscope.fleet): analyse many traces on a Dask cluster,
print the fleet table and write its files (docs/fleet.md)."""

from __future__ import annotations

import argparse
import logging
import os
import shutil
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor

from . import run
from .page import _ms, _share

_EPILOG = """examples:
  napiscope fleet 'traces/**/*.dat'
  napiscope fleet --scheduler tcp://10.0.0.5:8786 --group-by kernel -o out /nfs/ci/*.dat
  napiscope fleet --group-by path:-2 --baseline v6.1 'runs/*/trace.dat'

--group-by: path:N (component N of the path as given; -2 is the file's directory), kernel
(release), host (uname's node name), preempt_rt, format, cpus, or tag:KEY (KEY=value lines in
TRACE.tags beside the trace, else in napiscope.tags in its directory).
Exit codes: 0 the job ran (traces that could not be analysed are error rows); 1 an error (no
trace matched, the scheduler unreachable, a bad option)."""


class _Parser(argparse.ArgumentParser):
    """argparse with napiscope's convention: a usage error is one line and exit 1."""

    def error(self, message):
        self.exit(1, f"napiscope fleet: {message} (napiscope fleet --help lists the options)\n")


def _parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="napiscope fleet", epilog=_EPILOG, formatter_class=argparse.RawTextHelpFormatter,
        description="Analyse many traces on a Dask cluster, one task per trace (the same "
                    "analyses as napiscope report), print the fleet's worst traces and write "
                    "its tables (CSV, JSON lines, SQLite) and an HTML page")
    parser.add_argument("traces", nargs="+", metavar="TRACE",
                        help="trace files, globs ('**' recurses; quote them) or directories "
                             "(their *.dat), on storage every worker reads")
    parser.add_argument("--scheduler", metavar="ADDR",
                        help="a Dask scheduler (tcp://host:8786); default: a local cluster")
    parser.add_argument("--workers", type=int, default=2, metavar="N",
                        help="local cluster: worker processes, one trace at a time each "
                             "(default 2)")
    parser.add_argument("--memory-limit", default="auto", metavar="BYTES",
                        help="local cluster: memory per worker, e.g. 2GB (default: the "
                             "machine's memory shared out)")
    parser.add_argument("--threads", type=int, default=0, metavar="N",
                        help="loader threads per trace, as napiscope report --threads "
                             "(default 0: one per core)")
    parser.add_argument("--group-by", metavar="SPEC", help="group the traces (below) and "
                        "compare every group with the baseline")
    parser.add_argument("--baseline", metavar="GROUP",
                        help="the group the others are compared with (default: the first "
                             "by name)")
    parser.add_argument("--noise", type=float, default=5.0, metavar="PCT",
                        help="a change of at most PCT%% of the baseline is noise, as in "
                             "napiscope diff (default 5)")
    parser.add_argument("--min-traces", type=int, default=3, metavar="N",
                        help="traces a group needs with a metric before its change counts "
                             "(default 3)")
    parser.add_argument("-o", "--output", default="napiscope-fleet", metavar="DIR",
                        help="where the files go (default ./napiscope-fleet)")
    parser.add_argument("--pages", type=int, default=20, metavar="N",
                        help="make napiscope report --format html of the N worst traces, "
                             "linked from the fleet page (default 20; 0: none)")
    parser.add_argument("--top", type=int, default=20, metavar="N",
                        help="traces in the printed table, worst first (default 20)")
    parser.add_argument("-q", "--quiet", action="store_true", help="no progress bar")
    return parser


def _table(fleet, top: int) -> str:
    """The printed table: the `top` worst traces, one line each."""
    worst = fleet.worst().head(top)
    width = max([len(p) for p in worst["path"]] + [5])
    lines = [f"{'trace':<{width}}  {'group':<12} {'E':>3} {'W':>3} {'I':>3} "
             f"{'NET_RX p99':>10} {'RT wake p99':>11} {'exhausted':>9} {'lost':>8} RT"]
    for _, row in worst.iterrows():
        if row["status"] != "ok":
            lines.append(f"{row['path']:<{width}}  {str(row['group'] or ''):<12} "
                         f"error: {row['error']}")
            continue
        lines.append(
            f"{row['path']:<{width}}  {str(row['group'] or ''):<12} {row['findings_error']:>3} "
            f"{row['findings_warning']:>3} {row['findings_info']:>3} "
            f"{_ms(row['softirq_NET_RX_p99_ns']):>10} {_ms(row['rt_wake_p99_ns']):>11} "
            f"{_share(row['napi_exhausted_share']):>9} {row['lost_events']:>8} "
            f"{row['preempt_rt']}")
    return "\n".join(lines)


def _make_pages(fleet, cli: str, directory: str, count: int, parallel: int) -> None:
    """Runs `cli report --format html` for the `count` worst analysed traces into
    DIRECTORY/traces/N.html and records them in fleet.trace_pages."""
    worst = fleet.worst()
    paths = list(worst.loc[worst["status"] == "ok", "path"].head(count))
    os.makedirs(os.path.join(directory, "traces"), exist_ok=True)

    def page(item):
        i, path = item
        name = os.path.join("traces", f"{i}.html")
        done = subprocess.run([cli, "report", "--format", "html", "-q", "-o",
                               os.path.join(directory, name), path],
                              capture_output=True, text=True, check=False)
        return path, name if done.returncode in (0, 2) else None

    with ThreadPoolExecutor(max(1, parallel)) as pool:
        for path, name in pool.map(page, enumerate(paths)):
            if name:
                fleet.trace_pages[path] = name


def main(argv=None) -> int:
    args = _parser().parse_args(argv)
    # Dask 2022.12's client leaves a connect timeout unretrieved when it closes (Python 3.11):
    # asyncio would print it as an error after a job that went well.
    logging.getLogger("asyncio").setLevel(logging.CRITICAL)
    try:
        fleet = run(args.traces, scheduler=args.scheduler, workers=args.workers,
                    group_by=args.group_by, threads=args.threads,
                    progress=False if args.quiet else None, memory_limit=args.memory_limit)
        if args.pages > 0:
            cli = os.environ.get("NAPISCOPE_CLI") or shutil.which("napiscope")
            if cli:
                _make_pages(fleet, cli, args.output, args.pages, args.workers)
            else:
                print("napiscope fleet: no napiscope command found (NAPISCOPE_CLI, PATH): the "
                      "page links no trace report", file=sys.stderr)
        written = fleet.write(args.output, args.baseline, args.noise, args.min_traces)
    except (ValueError, OSError) as error:
        print(f"napiscope fleet: {error}", file=sys.stderr)
        return 1
    traces = fleet.traces
    failed = int((traces["status"] != "ok").sum())
    print(f"{len(traces)} traces: {len(traces) - failed} analysed, {failed} errors; "
          f"{len(fleet.findings)} findings")
    print(_table(fleet, args.top))
    if args.group_by:
        metrics, _ = fleet.compare(args.baseline, args.noise, args.min_traces)
        worse = metrics[metrics["verdict"] == "regressed"]
        print(f"\ngroups by {args.group_by}: {len(worse)} metrics regressed against the "
              "baseline" + ("" if worse.empty else ":"))
        for _, r in worse.iterrows():
            print(f"  {r['group']} vs {r['baseline']}: {r['metric']} {r['before']:g} -> "
                  f"{r['after']:g} (medians of {r['before_traces']} and {r['after_traces']} "
                  "traces)")
    print(f"\nwrote {', '.join(os.path.basename(w) for w in written)} in {args.output}")
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except BrokenPipeError:  # `napiscope fleet ... | head`: the files are written
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        sys.exit(0)
