#!/usr/bin/env python3
"""Fails, naming each file and line, when product code includes a header through "../":
a relative path to a parent folder reaches another layer's files past the include roots that
the layer probes check (docs/architecture.md).

Usage: no_parent_includes.py FOLDER...   (every .h/.hpp/.cpp/.cc below each folder)
"""
import os
import re
import sys

INCLUDE = re.compile(r'^\s*#\s*include\s*["<]\.\./')


def main():
    found = []
    for root in sys.argv[1:]:
        for folder, _, files in os.walk(root):
            for name in sorted(files):
                if not name.endswith((".h", ".hpp", ".cpp", ".cc")):
                    continue
                path = os.path.join(folder, name)
                with open(path, errors="replace") as f:
                    for number, line in enumerate(f, 1):
                        if INCLUDE.match(line):
                            found.append("%s:%d: %s" % (path, number, line.strip()))
    for line in found:
        print(line + '   <- include through the layer\'s public header ("napiscope/x.h") instead')
    print("%d include(s) through \"../\"" % len(found))
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
