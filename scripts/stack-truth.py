#!/usr/bin/env python3
"""Where each softirq ran, read from kernel stacks: the truth napiscope's contexts are checked
against (tests/core/model/stack_truth_test.cpp).

    scripts/stack-truth.py TRACE.dat > TRACE.softirq-truth.tsv

Reads `trace-cmd report -t` of a trace recorded with the `stacktrace` option
(scripts/record-stack-truth.sh) and prints one line per softirq_entry:
`ts_ns<TAB>cpu<TAB>vec<TAB>site`. The site comes from the entry's own stack, innermost frame
first: `__irq_exit_rcu`/`irq_exit_rcu`/`irq_exit` -> irq_exit; `run_ksoftirqd` -> ksoftirqd;
`__local_bh_enable_ip`/`local_bh_enable`/`do_softirq` -> in the task, refined by the thread
function further out (`napi_threaded_poll` -> napi_kthread, `irq_thread_fn` /
`irq_forced_thread_fn` -> irq_thread, else task_bh_enable); none of them -> unknown
(a cut stack). Independent of napiscope: only trace-cmd's decoding of the file is shared.
"""
import re
import subprocess
import sys

EVENT = re.compile(r"^\s*(?P<comm>.*?)-(?P<pid>\d+)\s+\[(?P<cpu>\d+)\]\s+(?P<ts>\d+\.\d+):\s+"
                   r"(?P<name>\w+):\s*(?P<rest>.*)$")
FRAME = re.compile(r"^=> (\S+)")


def site_of(frames):
    for i, frame in enumerate(frames):
        if frame in ("__irq_exit_rcu", "irq_exit_rcu", "irq_exit"):
            return "irq_exit"
        if frame == "run_ksoftirqd":
            return "ksoftirqd"
        if frame in ("__local_bh_enable_ip", "local_bh_enable", "do_softirq"):
            outer = frames[i + 1:]
            if "napi_threaded_poll" in outer:
                return "napi_kthread"
            if "irq_thread_fn" in outer or "irq_forced_thread_fn" in outer:
                return "irq_thread"
            return "task_bh_enable"
    return "unknown"


def main():
    report = subprocess.run(["trace-cmd", "report", "-t", "-i", sys.argv[1]], check=True,
                            capture_output=True, text=True).stdout.splitlines()
    entries = []  # [ts_ns, cpu, vec, frames or None]
    last_entry_on_cpu = {}
    collecting = None
    for line in report:
        frame = FRAME.match(line)
        if frame:
            if collecting is not None:
                collecting.append(frame.group(1))
            continue
        collecting = None
        event = EVENT.match(line)
        if not event:
            continue
        cpu = int(event.group("cpu"))
        name = event.group("name")
        if name == "softirq_entry":
            seconds, fraction = event.group("ts").split(".")
            ts_ns = int(seconds) * 1_000_000_000 + int(fraction.ljust(9, "0")[:9])
            vec = int(re.search(r"vec=(\d+)", event.group("rest")).group(1))
            entries.append([ts_ns, cpu, vec, None])
            last_entry_on_cpu[cpu] = entries[-1]
        elif name == "kernel_stack":
            # The stack record follows its event on the same CPU.
            pending = last_entry_on_cpu.pop(cpu, None)
            if pending is not None and pending[3] is None:
                pending[3] = []
                collecting = pending[3]
        else:
            last_entry_on_cpu.pop(cpu, None)
    for ts_ns, cpu, vec, frames in entries:
        print(f"{ts_ns}\t{cpu}\t{vec}\t{site_of(frames or [])}")


if __name__ == "__main__":
    main()
