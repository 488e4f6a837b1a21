#!/usr/bin/env python3
"""Builds every layer probe in one build-tool run and checks each against its expectation.

A probe compiles one include as part of one layer's target (probe.cpp): COMPILES passes when its
object was built, FAILS when the compiler stopped at that include (gcc's or clang's words), not
for any other failure. One run builds the probes in parallel and reads the build graph once,
instead of one serial build per probe.

Usage: run_probes.py CMAKE BUILD_DIR PROBES_FILE   (lines: name<TAB>expectation<TAB>include<TAB>object)
"""
import os
import re
import subprocess
import sys


def main():
    cmake, build_dir, probes_file = sys.argv[1:4]
    probes = []
    with open(probes_file) as f:
        for line in f:
            if line.strip():
                name, expectation, include, obj = line.rstrip("\n").split("\t")
                probes.append((name, expectation, include, obj))
    for _, _, _, obj in probes:
        if os.path.exists(obj):
            os.remove(obj)  # each run compiles every probe again
    targets = ["napiscope_layer_probe_" + name for name, _, _, _ in probes]
    run = subprocess.run([cmake, "--build", build_dir, "--target", *targets, "--", "-k", "0"],
                         stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    # The build tool prints each failed command's output as one block after "FAILED: <output>".
    failures = {}
    current = None
    for line in run.stdout.splitlines():
        match = re.match(r"FAILED: (\S+)", line)
        if match:
            current = match.group(1)
            failures[current] = ""
        elif re.match(r"\[\d+/\d+\] ", line) or line.startswith("ninja: "):
            current = None
        elif current is not None:
            failures[current] += line + "\n"
    bad = []
    for name, expectation, include, obj in probes:
        key = "napiscope_layer_probe_%s.dir/" % name
        output = next((text for path, text in failures.items() if key in path), None)
        if expectation == "COMPILES":
            ok = output is None and os.path.exists(obj)
            why = "did not compile:\n" + (output or run.stdout[-2000:])
        else:
            words = re.escape(include) + r"(: No such file or directory|' file not found)"
            ok = output is not None and re.search(words, output) is not None
            why = ("compiled, but the layer must not see it" if output is None
                   else "failed for another reason:\n" + output)
        print("%-45s %s" % (name, "ok" if ok else "FAILED"))
        if not ok:
            bad.append("layers.%s (%s %s): %s" % (name, expectation, include, why))
    for line in bad:
        print(line, file=sys.stderr)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
