#!/usr/bin/env python3
"""Differential test of the text forms (issue 63): for every real trace.dat, the JSON that
`napiscope report --format json` gives from the .dat must equal the JSON it gives from each text
form `trace-cmd report` prints of it, except for the differences listed in
allowed_differences.json beside this script (the one place they are written down).

  check_text_forms.py --napiscope BIN [--trace-cmd trace-cmd] [--root REPO] [--shared DIR]

Traces: REPO/testdata/real/*.dat and the real traces in --shared (default REPO/../shared/traces/
real; skipped with a message when absent), each trace once (by content). Forms: `-t` (no flags,
nanoseconds), `-l -t` (flags), `--cpu N -t` concatenated per CPU, `-R` (raw fields,
microseconds), the default report (microseconds) and `-N` (no plugins, microseconds) when this
trace-cmd has it. Traces of more than 100,000 events get only `-t` and `-l -t` (the flag-less and
the flagged form), to keep the run time modest. Exit 0 all equal, 1 a difference, 77 skipped
(no trace-cmd).
"""
import argparse
import fnmatch
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

LARGE_EVENTS = 100_000

# name, trace-cmd report options, conditions the form meets (allowed_differences.json "when").
FORMS = [
    ("-t", ["-t"], {"text", "no_flags"}),
    ("-l -t", ["-l", "-t"], {"text"}),
    ("--cpu N -t", None, {"text", "no_flags"}),
    ("-R", ["-R"], {"text", "no_flags", "us"}),
    ("default", [], {"text", "no_flags", "us"}),
    ("-N", ["-N"], {"text", "no_flags", "us"}),
]
LARGE_FORMS = {"-t", "-l -t"}


def norm(path):
    return re.sub(r"\[\d+\]", "[]", path)


class Rules:
    def __init__(self, path):
        with open(path) as f:
            self.rules = json.load(f)["rules"]

    def find(self, path, conditions):
        p = norm(path)
        for rule in self.rules:
            if not set(rule["when"]) <= conditions:
                continue
            if any(fnmatch.fnmatchcase(p, pattern) for pattern in rule["paths"]):
                yield rule


def near(a, b, rule):
    if not (isinstance(a, (int, float)) and isinstance(b, (int, float))):
        return False
    if isinstance(a, bool) or isinstance(b, bool):
        return False
    return abs(a - b) <= max(rule.get("abs_ns", 0), rule.get("rel", 0) * max(abs(a), abs(b)))


def sites_toward_task(a, b):
    if not (isinstance(a, dict) and isinstance(b, dict)):
        return False
    if sum(a.values()) != sum(b.values()):
        return False
    for key in set(a) | set(b):
        x, y = a.get(key, 0), b.get(key, 0)
        if key == "irq_exit" and y > x:
            return False
        if key == "task_bh_enable" and y < x:
            return False
        if key not in ("irq_exit", "task_bh_enable") and x != y:
            return False
    return True


def compare(a, b, path, rules, conditions, out):
    """Appends to `out` each difference between a (trace.dat) and b (text) no rule allows."""
    allowed = list(rules.find(path, conditions)) if path else []
    if any(r["allow"] == "any" for r in allowed):
        return
    for rule in allowed:
        if rule["allow"] == "sites_toward_task" and sites_toward_task(a, b):
            return
    if isinstance(a, dict) and isinstance(b, dict):
        for key in sorted(set(a) | set(b)):
            sub = f"{path}.{key}" if path else key
            if key not in b or key not in a:
                if not any(r["allow"] == "any" for r in rules.find(sub, conditions)):
                    out.append(f"{sub}: {'missing from the text' if key not in b else 'only in the text'}")
                continue
            compare(a[key], b[key], sub, rules, conditions, out)
        return
    if isinstance(a, list) and isinstance(b, list):
        if len(a) != len(b):
            out.append(f"{path}: {len(a)} items from the trace.dat, {len(b)} from the text")
            return
        for rule in allowed:
            if rule["allow"] == "unordered":
                def key(item, fields=rule["key"]):
                    return [json.dumps(item.get(f)) for f in fields] if isinstance(item, dict) else []
                a, b = sorted(a, key=key), sorted(b, key=key)
        for i, (x, y) in enumerate(zip(a, b)):
            compare(x, y, f"{path}[{i}]", rules, conditions, out)
        return
    if a == b:
        return
    if any(r["allow"] == "near" and near(a, b, r) for r in allowed):
        return
    out.append(f"{path}: {json.dumps(a)[:120]} from the trace.dat, {json.dumps(b)[:120]} from the text")


def report_json(napiscope, path):
    run = subprocess.run([napiscope, "report", "--quiet", "--format", "json", path],
                         capture_output=True, text=True)
    if run.returncode not in (0, 2):
        raise RuntimeError(f"napiscope report {path} exited {run.returncode}: {run.stderr.strip()}")
    return json.loads(run.stdout)


def write_form(trace_cmd, dat, options, cpus, out_path):
    with open(out_path, "w") as out:
        if options is None:  # --cpu N -t of each CPU, one after the other
            for cpu in range(cpus):
                subprocess.run([trace_cmd, "report", "-i", dat, "--cpu", str(cpu), "-t"],
                               stdout=out, stderr=subprocess.DEVNULL, check=True)
        else:
            subprocess.run([trace_cmd, "report", "-i", dat] + options, stdout=out,
                           stderr=subprocess.DEVNULL, check=True)


def supports(trace_cmd, dat, option):
    run = subprocess.run([trace_cmd, "report", "-i", dat, option, "--cpu", "0"],
                         stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    return run.returncode == 0


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--napiscope", required=True)
    parser.add_argument("--trace-cmd", default="trace-cmd")
    parser.add_argument("--root", default=os.path.join(os.path.dirname(__file__), "..", "..", ".."))
    parser.add_argument("--shared", default=None)
    parser.add_argument("--only", default="", help="only traces whose file name contains this")
    parser.add_argument("--form", action="append", help="only these forms (repeatable)")
    args = parser.parse_args()
    root = os.path.abspath(args.root)
    if shutil.which(args.trace_cmd) is None:
        print(f"SKIP: {args.trace_cmd} is not installed")
        return 77
    rules = Rules(os.path.join(os.path.dirname(os.path.abspath(__file__)), "allowed_differences.json"))

    dirs = [os.path.join(root, "testdata", "real")]
    shared = args.shared or os.path.join(root, "..", "shared", "traces", "real")
    if os.path.isdir(shared):
        dirs.append(shared)
    else:
        print(f"note: {os.path.normpath(shared)} is absent: only the traces in testdata/real")
    traces, seen = [], set()
    for d in dirs:
        for name in sorted(os.listdir(d)):
            if not name.endswith(".dat"):
                continue
            path = os.path.join(d, name)
            with open(path, "rb") as f:
                digest = hashlib.sha256(f.read()).hexdigest()
            if digest not in seen:
                seen.add(digest)
                traces.append(path)

    failed = 0
    checked = 0
    with tempfile.TemporaryDirectory(prefix="napiscope-text-forms-") as tmp:
        for dat in traces:
            name = os.path.basename(dat)
            if args.only not in name:
                continue
            want = report_json(args.napiscope, dat)
            events = want["trace"].get("events", 0)
            cpus = want["trace"].get("cpus") or len(want.get("cpus", [])) or 1
            untraced = "untraced hard IRQ" in json.dumps(want)
            for form, options, conditions in FORMS:
                if events > LARGE_EVENTS and form not in LARGE_FORMS:
                    continue
                if args.form and form not in args.form:
                    continue
                if form == "-N" and not supports(args.trace_cmd, dat, "-N"):
                    print(f"note: {args.trace_cmd} report has no -N: {name} -N not checked")
                    continue
                conditions = set(conditions)
                if untraced:
                    conditions.add("untraced_irqs")
                text = os.path.join(tmp, "form.txt")
                write_form(args.trace_cmd, dat, options, cpus, text)
                got = report_json(args.napiscope, text)
                diffs = []
                compare(want, got, "", rules, conditions, diffs)
                checked += 1
                if diffs:
                    failed += 1
                    print(f"FAIL {name} as trace-cmd report {form}: {len(diffs)} differences")
                    for line in diffs[:15]:
                        print(f"  {line}")
                else:
                    print(f"ok   {name} as trace-cmd report {form}")
                os.remove(text)
    print(f"{checked - failed} of {checked} text forms give the trace.dat's report")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
