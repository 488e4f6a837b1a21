#!/usr/bin/env python3
"""Memory of the Python module's event columns on a generated trace (a benchmark, not a test).

    PYTHONPATH=build/python /usr/bin/python3 tests/bench/python_memory.py \
        --tracegen build/tests/tracegen/napiscope-tracegen --work build/bench [--events 20000000]

Opens the trace, then asks event_columns() for a few column sets, each in a fresh process, and
prints the peak RSS growth of the call against the bytes of the columns it returned (the issue's
bound: 1.2x). events() (a DataFrame) is measured too: pandas copies columns of one dtype into a
block when it builds the frame.
"""
import argparse
import json
import os
import subprocess
import sys

CHILD = r"""
import json, resource, sys
import napiscope
path, mode, kinds, columns = sys.argv[1], sys.argv[2], json.loads(sys.argv[3]), json.loads(sys.argv[4])
t = napiscope.open(path)
def rss_kb():
    for line in open("/proc/self/status"):
        if line.startswith("VmHWM:"):
            return int(line.split()[1])
# Reset the peak so it measures the call alone (Linux: write 5 to clear_refs).
open("/proc/self/clear_refs", "w").write("5")
before = rss_kb()
if mode == "arrays":
    arrays, strings = t.event_columns(kinds, columns)
    nbytes = sum(a.nbytes for a in arrays.values())
    rows = len(next(iter(arrays.values())))
else:
    frame = t.events(kinds, columns)
    nbytes = int(frame.memory_usage(index=False, deep=False).sum())
    rows = len(frame)
print(json.dumps({"rows": rows, "column_bytes": nbytes, "peak_growth_bytes": (rss_kb() - before) * 1024}))
"""


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tracegen", required=True)
    parser.add_argument("--work", required=True)
    parser.add_argument("--events", type=int, default=20_000_000)
    parser.add_argument("--cpus", type=int, default=16)
    args = parser.parse_args()
    os.makedirs(args.work, exist_ok=True)
    path = os.path.join(args.work, f"synthetic-{args.events}-{args.cpus}cpu.dat")
    if not os.path.exists(path):
        subprocess.run([args.tracegen, "--synthetic", str(args.events), "--cpus", str(args.cpus),
                        "-o", path], check=True, stdout=subprocess.DEVNULL)
    cases = [
        ("arrays", [], ["ts_ns"]),
        ("arrays", [], ["ts_ns", "cpu", "pid", "kind"]),
        ("arrays", ["netif_receive_skb"], ["ts_ns", "cpu", "dev", "len"]),
        ("arrays", ["sched_switch"], []),
        ("frame", [], ["ts_ns", "cpu", "pid", "kind"]),
    ]
    print(f"{path}: peak RSS growth of one call / bytes of the columns it returned")
    for mode, kinds, columns in cases:
        out = subprocess.run([sys.executable, "-c", CHILD, path, mode, json.dumps(kinds),
                              json.dumps(columns)], capture_output=True, text=True, check=True)
        result = json.loads(out.stdout)
        ratio = result["peak_growth_bytes"] / max(result["column_bytes"], 1)
        print(f"  {mode:6} kinds={kinds or 'all'} columns={columns or 'all'}: "
              f"{result['rows']} rows, {result['column_bytes'] / 2**20:.1f} MiB, "
              f"peak growth {result['peak_growth_bytes'] / 2**20:.1f} MiB = {ratio:.2f}x")


if __name__ == "__main__":
    main()
