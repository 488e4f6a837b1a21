#!/usr/bin/env python3
"""Softirq raise -> entry waits per CPU, as histograms on a log time axis.

    PYTHONPATH=build/python python3 docs/examples/softirq_wait_histograms.py TRACE [OUT.png]

Each CPU gets a panel; each softirq vector a curve. The waits come from napiscope's
softirq_waits table (one row per raise -> entry pair, first-raise semantics).
"""
import sys

import matplotlib

matplotlib.use("Agg")  # files, no display needed
import matplotlib.pyplot as plt
import numpy as np

import napiscope

trace = napiscope.open(sys.argv[1])
waits = trace.softirq_waits()
print(f"{len(waits)} softirq waits on {waits['cpu'].nunique()} CPUs")
print(waits.groupby("vec_name", observed=True)["delay_ns"].describe(percentiles=[.5, .99]))

cpus = sorted(waits["cpu"].unique())
columns = min(4, len(cpus))
rows = (len(cpus) + columns - 1) // columns
figure, axes = plt.subplots(rows, columns, figsize=(4 * columns, 2.6 * rows), squeeze=False,
                            sharex=True)
bins = np.logspace(2, 8, 61)  # 100 ns to 100 ms
for axis, cpu in zip(axes.flat, cpus):
    on_cpu = waits[waits["cpu"] == cpu]
    for vec, group in on_cpu.groupby("vec_name", observed=True):
        axis.hist(group["delay_ns"].clip(lower=100), bins=bins, histtype="step", label=vec)
    axis.set_xscale("log")
    axis.set_yscale("log")
    axis.set_title(f"CPU {cpu}")
    axis.set_xlabel("raise -> entry (ns)")
axes.flat[0].legend(fontsize="small")
for axis in list(axes.flat)[len(cpus):]:
    axis.set_visible(False)
figure.tight_layout()
out = sys.argv[2] if len(sys.argv) > 2 else "softirq-waits.png"
figure.savefig(out, dpi=100)
print(f"wrote {out}")
