#!/usr/bin/env python3
"""Times napiscope against trace-cmd and a bare libtracecmd loop on the same files.

For every input it runs, --repeat times each:
  napiscope report --format json FILE              (parallel decoding, the default)
  napiscope report --format json --threads 1 FILE  (no decoding threads: the speed-up base)
  napiscope export --format perfetto -o OUT FILE  (the same analysis, and the Perfetto trace)
  napiscope-tracecmd-loop FILE                     (tracecmd_open + tracecmd_iterate_events)
  trace-cmd report --profile -G -i FILE            (when trace-cmd is installed)
and prints median wall time, peak RSS (getrusage of the child) and the ratios. It fails (exit
1) only when the tools disagree on the number of events of a file (the export's count is the
ftrace events it wrote).

Inputs: the real traces (--traces, default ../shared/traces/real next to the repository, else
testdata/real) and one generated trace, cached in --work: 20 million events over 16 CPUs, or
200 000 with --short (the mode ctest runs).
"""

import argparse
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import time

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def run(command, stdout_path=None, timeout=None, stderr_path=None):
    """Runs `command`; returns (seconds, peak RSS in MiB, exit code, timed out). A run that
    passes `timeout` seconds is killed and counted as taking `timeout`."""
    out = open(stdout_path, "wb") if stdout_path else subprocess.DEVNULL
    err = open(stderr_path, "wb") if stderr_path else subprocess.DEVNULL
    timed_out = False
    try:
        start = time.perf_counter()
        process = subprocess.Popen(command, stdout=out, stderr=err)
        while True:
            pid, status, usage = os.wait4(process.pid, os.WNOHANG if timeout else 0)
            if pid != 0:
                break
            if time.perf_counter() - start > timeout:
                process.kill()
                timed_out = True
                _, status, usage = os.wait4(process.pid, 0)
                break
            time.sleep(0.02)
        seconds = timeout if timed_out else time.perf_counter() - start
    finally:
        if stdout_path:
            out.close()
        if stderr_path:
            err.close()
    return seconds, usage.ru_maxrss / 1024.0, os.waitstatus_to_exitcode(status), timed_out


def measure(command, repeat, stdout_path=None, timeout=None, stderr_path=None):
    """Runs `command` `repeat` times; "{run}" in an argument becomes the run's number."""
    runs = []
    for index in range(repeat):
        runs.append(run([arg.replace("{run}", str(index)) for arg in command], stdout_path,
                        timeout, stderr_path))
        if runs[-1][3]:
            break  # a timed-out tool is not run again
    return {
        "seconds": statistics.median(r[0] for r in runs),
        "all_seconds": [round(r[0], 3) for r in runs],
        "rss_mib": max(r[1] for r in runs),
        "exit_codes": sorted({r[2] for r in runs}),
        "timed_out": any(r[3] for r in runs),
    }


def napiscope_events(json_path):
    with open(json_path) as f:
        report = json.load(f)
    return report["trace"]["events"]


def exported_events(stderr_path):
    """The ftrace events `napiscope export` says it wrote ("... N ftrace events ..."), or -1."""
    with open(stderr_path, errors="replace") as f:
        found = re.search(r"(\d+) ftrace events?\b", f.read())
    return int(found.group(1)) if found else -1


def trace_cmd_events(path):
    """Events trace-cmd prints for `path` (raw lines, no headers or lost-event notes), and how
    many of them are stack-trace records (ftrace:kernel_stack / user_stack), which napiscope
    keeps out of its events."""
    process = subprocess.Popen(["trace-cmd", "report", "-R", "-i", path],
                               stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    count = stacks = 0
    for line in process.stdout:
        stripped = line.lstrip()
        if not stripped or stripped.startswith((b"cpus=", b"version =", b"CPU:")):
            continue
        if b"[LOST" in line and b"EVENTS]" in line:
            continue
        count += 1
        fields = line.split(None, 4)
        if len(fields) > 3 and fields[3] in (b"kernel_stack:", b"user_stack:"):
            stacks += 1
    process.wait()
    return count, stacks


def generated_trace(tracegen, work, events, cpus):
    path = os.path.join(work, f"synthetic-{events}-{cpus}cpu.dat")
    if not os.path.exists(path):
        partial = path + ".partial"
        subprocess.run([tracegen, "--synthetic", str(events), "--cpus", str(cpus), "-o", partial],
                       check=True, stdout=subprocess.DEVNULL)
        os.replace(partial, path)
    return path


def ratio(a, b):
    return a / b if b > 0 else float("nan")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--napiscope", required=True)
    parser.add_argument("--loop", required=True, help="napiscope-tracecmd-loop binary")
    parser.add_argument("--tracegen", required=True, help="napiscope-tracegen binary")
    parser.add_argument("--work", required=True, help="directory for the generated trace")
    parser.add_argument("--traces", help="directory of real .dat traces")
    parser.add_argument("--short", action="store_true", help="small inputs, one run (for CI)")
    parser.add_argument("--repeat", type=int, help="runs per tool (default 3, 1 with --short)")
    parser.add_argument("--no-trace-cmd-count", action="store_true",
                        help="do not count trace-cmd's events (slow on big files)")
    parser.add_argument("--trace-cmd-timeout", type=float, default=600,
                        help="seconds after which trace-cmd -G is stopped; its time then counts "
                             "as this much, a lower bound (it takes hours on generated traces)")
    parser.add_argument("--json", help="also write all measurements to this file")
    args = parser.parse_args()
    repeat = args.repeat or (1 if args.short else 3)
    os.makedirs(args.work, exist_ok=True)

    traces_dir = args.traces
    if traces_dir is None:
        shared = os.path.join(os.path.dirname(REPO), "shared", "traces", "real")
        traces_dir = shared if os.path.isdir(shared) else os.path.join(REPO, "testdata", "real")
    inputs = sorted(os.path.join(traces_dir, name) for name in os.listdir(traces_dir)
                    if name.endswith(".dat"))
    events, cpus = (200_000, 16) if args.short else (20_000_000, 16)
    inputs.append(generated_trace(args.tracegen, args.work, events, cpus))
    have_trace_cmd = shutil.which("trace-cmd") is not None

    results = []
    mismatches = []
    out_json = os.path.join(args.work, "napiscope-report.json")
    for path in inputs:
        name = os.path.basename(path)
        row = {"file": path, "bytes": os.path.getsize(path)}
        row["napiscope"] = measure([args.napiscope, "report", "--format", "json", path], repeat,
                                   out_json)
        row["events"] = napiscope_events(out_json)
        row["napiscope_t1"] = measure(
            [args.napiscope, "report", "--format", "json", "--threads", "1", path], repeat,
            out_json)
        counts = {"napiscope": row["events"], "napiscope --threads 1": napiscope_events(out_json)}
        # A new file each run, removed after the runs: replacing a file of a gigabyte costs the
        # run that frees it the disk's discards (docs/performance.md, "measure into new files").
        export_err = os.path.join(args.work, "export.err")
        export_out = os.path.join(args.work, "export-{run}.pftrace")
        row["export"] = measure(
            [args.napiscope, "export", "--format", "perfetto", "-o", export_out, path], repeat,
            stderr_path=export_err)
        counts["napiscope export"] = exported_events(export_err)
        for index in range(repeat):
            os.remove(export_out.replace("{run}", str(index)))
        loop_out = os.path.join(args.work, "loop.out")
        row["loop"] = measure([args.loop, path], repeat, loop_out)
        with open(loop_out) as f:
            counts["libtracecmd loop"] = int(f.read().strip() or -1)
        if have_trace_cmd:
            row["trace_cmd"] = measure(["trace-cmd", "report", "--profile", "-G", "-i", path],
                                       repeat, timeout=args.trace_cmd_timeout)
            if not args.no_trace_cmd_count:
                # Stack-trace records are not events to napiscope: compare without them.
                events, stacks = trace_cmd_events(path)
                counts["trace-cmd report"] = events - stacks
                counts["libtracecmd loop"] -= stacks
        row["counts"] = counts
        if len(set(counts.values())) != 1:
            mismatches.append((name, counts))
        results.append(row)

    header = (f"{'file':28} {'events':>10} {'napiscope':>15} {'--threads 1':>15} "
              f"{'bare loop':>15} {'export':>15} {'trace-cmd -G':>15} {'vs tc':>6} "
              f"{'vs loop':>7} {'speedup':>7} {'export':>6} {'mem vs tc':>9}")
    print(f"median of {repeat} run(s) each; time in s / peak RSS in MiB; '>': trace-cmd stopped "
          f"after {args.trace_cmd_timeout:.0f} s (its ratios are then upper bounds); speedup: "
          f"--threads 1 over napiscope; export: the Perfetto export's time over napiscope's")
    print(header)
    for row in results:
        n, t1, loop, export = row["napiscope"], row["napiscope_t1"], row["loop"], row["export"]
        tc = row.get("trace_cmd")
        cell = lambda m: (f"{'>' if m.get('timed_out') else ''}{m['seconds']:.3f}/"
                          f"{m['rss_mib']:6.1f}" if m else f"{'-':>14}")
        print(f"{os.path.basename(row['file'])[:28]:28} {row['events']:>10} {cell(n):>15} "
              f"{cell(t1):>15} {cell(loop):>15} {cell(export):>15} {cell(tc):>15} "
              f"{ratio(n['seconds'], tc['seconds']) if tc else float('nan'):6.2f} "
              f"{ratio(n['seconds'], loop['seconds']):7.2f} "
              f"{ratio(t1['seconds'], n['seconds']):7.2f} "
              f"{ratio(export['seconds'], n['seconds']):6.2f} "
              f"{ratio(n['rss_mib'], tc['rss_mib']) if tc else float('nan'):9.2f}")
    if args.json:
        with open(args.json, "w") as f:
            json.dump(results, f, indent=1)
    for name, counts in mismatches:
        print(f"EVENT COUNTS DIFFER on {name}: {counts}", file=sys.stderr)
    return 1 if mismatches else 0


if __name__ == "__main__":
    sys.exit(main())
