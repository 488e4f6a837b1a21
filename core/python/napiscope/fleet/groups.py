"""Groups of a fleet (`--group-by`) and the fleet's diff between them: which metrics got
worse, with `napiscope diff`'s significance rules, and which findings appear in one group
and not the other."""

from __future__ import annotations

import os
from typing import Optional

import pandas as pd

from .rows import VECTORS

GROUP_KEYS = ("kernel", "host", "preempt_rt", "format", "cpus")


def read_tags(path: str) -> dict:
    """The tags of the trace `path`: `key=value` lines of PATH.tags beside it, else of
    napiscope.tags in its directory ('#' starts a comment); {} when neither exists."""
    for candidate in (path + ".tags", os.path.join(os.path.dirname(path), "napiscope.tags")):
        try:
            with open(candidate, encoding="utf-8", errors="replace") as file:
                lines = file.read(65536).splitlines()
        except OSError:
            continue
        tags = {}
        for line in lines:
            key, sep, value = line.split("#", 1)[0].partition("=")
            if sep:
                tags[key.strip()] = value.strip()
        return tags
    return {}


def check_group_by(spec: Optional[str]) -> None:
    """Raises ValueError when `spec` is not a --group-by this module knows."""
    if not spec:
        return
    kind, _, arg = spec.partition(":")
    if kind == "path":
        try:
            int(arg)
        except ValueError:
            raise ValueError(f"--group-by {spec}: path:N takes a component number (0 the "
                             "first, -1 the file name, -2 its directory)") from None
    elif kind == "tag":
        if not arg:
            raise ValueError(f"--group-by {spec}: tag:KEY names the key of the tag files")
    elif kind not in GROUP_KEYS:
        raise ValueError(f"--group-by {spec}: not one of path:N, tag:KEY, "
                         f"{', '.join(GROUP_KEYS)}")


def group_of(spec: Optional[str], row: dict) -> str:
    """The group of the trace of `row` under --group-by `spec`: `path:N` (component N of the
    path as given, -2 its directory), `tag:KEY` (read_tags), `kernel` (release), `host`
    (uname's node name), `preempt_rt`, `format`, `cpus`; "" without a spec or a value."""
    if not spec:
        return ""
    kind, _, arg = spec.partition(":")
    path = row["path"]
    if kind == "path":
        parts = [p for p in os.path.normpath(path).split(os.sep) if p]
        index = int(arg)
        return parts[index] if -len(parts) <= index < len(parts) else ""
    if kind == "tag":
        return read_tags(path).get(arg, "")
    column = {"kernel": "kernel_release"}.get(kind, kind)
    value = row.get(column)
    return "" if value is None else str(value)


def min_samples(metric: str) -> int:
    """napiscope diff's rule (core/src/render/report_diff.cpp, MinSamples): a p99 needs 100
    samples, a p50 20, before its change counts; other metrics need none."""
    if "p99" in metric:
        return 100
    if "p50" in metric:
        return 20
    return 0


# The metrics compared between groups, one value per trace: (trace column, unit, the trace
# column holding its samples or None). All are better lower.
METRICS = (
    [(f"softirq_{v}_{s}", "ns", f"softirq_{v}_{s}_samples") for v in VECTORS
     for s in ("p50_ns", "p99_ns")]
    + [(f"softirq_{v}_max_ns", "ns", None) for v in VECTORS]
    + [("napi_exhausted_share", "share", "napi_polls"),
       ("rt_wake_p99_ns", "ns", "rt_wake_samples"), ("rt_wake_max_ns", "ns", None),
       ("ksoftirqd_blocked", "count", None), ("pingpong_rate", "share", "pingpong_activations")])


def _samples(traces: pd.DataFrame, latency: pd.DataFrame) -> pd.DataFrame:
    """Per trace and softirq pNN metric, the waits behind the worst CPU's value (the CPU the
    trace row's pNN comes from), as columns softirq_V_pNN_ns_samples."""
    out = pd.DataFrame(index=traces["path"])
    if latency.empty:
        return out
    for stat in ("p50_ns", "p99_ns"):
        worst = latency[latency["count"] > 0].sort_values([stat, "count"], ascending=False)
        worst = worst.drop_duplicates(["path", "name"])
        for vec in VECTORS:
            counts = worst[worst["name"] == vec].set_index("path")["count"]
            out[f"softirq_{vec}_{stat}_samples"] = counts.reindex(out.index)
    return out


def _verdict(before: float, after: float, unit: str, noise_percent: float) -> str:
    """diff's verdict of two values whose samples sufficed: same, within_noise, improved,
    regressed (every fleet metric is better lower)."""
    if before == after:
        return "same"
    if before != 0 and abs(after - before) / abs(before) * 100 <= noise_percent:
        return "within_noise"
    return "improved" if after < before else "regressed"


def compare(traces: pd.DataFrame, latency: pd.DataFrame, baseline: Optional[str] = None,
            noise_percent: float = 5.0, min_traces: int = 3) -> tuple:
    """The fleet's diff of every group against `baseline` (default: the first group by
    name): (metrics, findings) DataFrames. A group's value of a metric is the median over
    its traces; a trace's pNN counts only with diff's minimum samples behind it; a group
    with fewer than `min_traces` such traces gives `few_traces`; then diff's verdicts with
    its noise band. Findings: per rule, the traces of each group that have it."""
    ok = traces[traces["status"] == "ok"]
    groups = sorted(ok["group"].dropna().unique())
    if baseline is None and groups:
        baseline = groups[0]
    if baseline is not None and baseline not in groups:
        raise ValueError(f"baseline group '{baseline}' has no trace analysed; the groups are "
                         f"{', '.join(groups) or '(none)'}")
    samples = _samples(ok, latency)
    metric_rows, finding_rows = [], []
    for group in groups:
        if group == baseline:
            continue
        sides = {name: ok[ok["group"] == name] for name in (baseline, group)}
        for metric, unit, samples_column in METRICS:
            values, present = {}, False
            for name, frame in sides.items():
                series = pd.to_numeric(frame[metric], errors="coerce")
                present = present or series.notna().any()
                if samples_column is not None:
                    behind = (samples[samples_column].reindex(frame["path"]).to_numpy()
                              if samples_column in samples else frame[samples_column].to_numpy())
                    keep = pd.Series(behind, index=frame.index).fillna(0) >= min_samples(metric)
                    series = series[keep]
                values[name] = series.dropna()
            before, after = values[baseline], values[group]
            if not present:
                continue
            row = {"baseline": baseline, "group": group, "metric": metric, "unit": unit,
                   "before": before.median() if len(before) else None,
                   "after": after.median() if len(after) else None,
                   "before_traces": len(before), "after_traces": len(after)}
            if len(before) < min_traces or len(after) < min_traces:
                row["verdict"] = "few_traces"
            else:
                row["verdict"] = _verdict(row["before"], row["after"], unit, noise_percent)
            row["change"] = (row["after"] - row["before"]
                             if row["before"] is not None and row["after"] is not None else None)
            metric_rows.append(row)
        finding_rows += _finding_changes(sides, baseline, group)
    return (pd.DataFrame(metric_rows, columns=["baseline", "group", "metric", "unit", "before",
                                               "after", "change", "before_traces",
                                               "after_traces", "verdict"]),
            pd.DataFrame(finding_rows, columns=["baseline", "group", "rule", "before_traces",
                                                "after_traces", "before_share", "after_share",
                                                "change"]))


def _rules(frame: pd.DataFrame) -> dict:
    """Rule -> traces of `frame` with a finding of it (any severity)."""
    import json
    out: dict = {}
    for text in frame["findings_by_rule"]:
        for rule in json.loads(text or "{}"):
            out[rule] = out.get(rule, 0) + 1
    return out


def _finding_changes(sides: dict, baseline: str, group: str) -> list:
    """Per rule in either group: the traces with it on each side and whether it is new
    (only in `group`), gone (only in `baseline`) or in both."""
    before, after = _rules(sides[baseline]), _rules(sides[group])
    n_before, n_after = len(sides[baseline]), len(sides[group])
    out = []
    for rule in sorted(set(before) | set(after)):
        b, a = before.get(rule, 0), after.get(rule, 0)
        out.append({"baseline": baseline, "group": group, "rule": rule, "before_traces": b,
                    "after_traces": a, "before_share": b / n_before if n_before else None,
                    "after_share": a / n_after if n_after else None,
                    "change": "new" if b == 0 else "gone" if a == 0 else "both"})
    return out
