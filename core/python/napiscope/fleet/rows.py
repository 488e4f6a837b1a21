"""The fleet's rows of one trace, from its `napiscope report --format json` and `info` dicts:
one trace row, one row per finding, one row per (cpu, vector) softirq latency. Pure
functions: the rows of a trace analysed on a worker equal the rows of the CLI's JSON."""

from __future__ import annotations

import hashlib
import json
from typing import Optional

VECTORS = ["HI", "TIMER", "NET_TX", "NET_RX", "BLOCK", "IRQ_POLL", "TASKLET", "SCHED",
           "HRTIMER", "RCU"]
SEVERITIES = ["error", "warning", "info"]

# The columns of a trace row, in order (a row of a trace that failed has only the first ones
# and `error`; the rest are empty).
TRACE_COLUMNS = (
    ["path", "group", "status", "error", "size_bytes", "format", "kernel_release", "host",
     "cpus", "first_ts_ns", "last_ts_ns", "span_ns", "events", "lost_events", "lost_gaps",
     "lost_unknown", "preempt_rt", "worst_severity"]
    + [f"findings_{s}" for s in SEVERITIES]
    + ["findings_by_rule"]
    + [f"softirq_{v}_{stat}" for v in VECTORS for stat in ("waits", "p50_ns", "p99_ns", "max_ns")]
    + ["napi_polls", "napi_exhausted", "napi_exhausted_share",
       "rt_wake_samples", "rt_wake_p99_ns", "rt_wake_max_ns",
       "ksoftirqd_blocked", "pingpong_activations", "pingpong_cross_cpu", "pingpong_rate",
       "report_sha256", "worker", "seconds", "worker_peak_rss_mib"])
FINDING_COLUMNS = ["path", "group", "rule", "severity", "cpu", "pid", "thread", "irq", "vec",
                   "start_ns", "end_ns", "summary"]
LATENCY_COLUMNS = ["path", "group", "cpu", "vec", "name", "count", "min_ns", "p50_ns",
                   "p90_ns", "p99_ns", "p999_ns", "max_ns", "max_at_ns", "dropped_pairs",
                   "entries_without_raise", "exact"]


def report_digest(report: dict) -> str:
    """SHA-256 of the report as canonical JSON (sorted keys): equal digests, equal reports."""
    text = json.dumps(report, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(text.encode()).hexdigest()


def host_of(uname: str) -> str:
    """The node name of a `uname -a` line ("Linux board7 6.1.0-rt ..." -> "board7"); ""."""
    words = (uname or "").split()
    return words[1] if len(words) > 1 else ""


def _worst_by_vector(latency: list) -> dict:
    """Per vector name: (waits on all CPUs, the worst CPU's p50, p99 and max), each the
    largest over the CPUs, as percentiles of different CPUs do not add up."""
    out = {}
    for row in latency:
        if row["count"] == 0:
            continue
        waits, p50, p99, top = out.get(row["name"], (0, -1, -1, -1))
        out[row["name"]] = (waits + row["count"], max(p50, row["p50_ns"]),
                            max(p99, row["p99_ns"]), max(top, row["max_ns"]))
    return out


def _thread_name(report: dict, pid: Optional[int]) -> str:
    """The comm of `pid` as the report's thread rows name it ("" when not one of them)."""
    if pid is None:
        return ""
    for section in ("irq_threads", "napi_threads", "ksoftirqd", "rt_wake_latency"):
        for row in report.get(section) or []:
            if row.get("pid") == pid:
                return row.get("comm", "")
    return ""


def _finding_thread(report: dict, finding: dict) -> str:
    """The thread a finding is about: its evidence's comm, else the report's thread rows."""
    evidence = finding.get("evidence") or {}
    return evidence.get("comm") or _thread_name(report, finding.get("pid"))


def trace_row(report: dict, info: dict, path: str, size: int, group: str = "") -> dict:
    """The fleet's row of one trace (TRACE_COLUMNS) from its report and info dicts."""
    trace = report["trace"]
    missed = trace.get("missed_events_per_cpu") or []
    findings = report["findings"]
    by_rule: dict = {}
    for f in findings:
        by_rule.setdefault(f["rule"], {}).setdefault(f["severity"], 0)
        by_rule[f["rule"]][f["severity"]] += 1
    row = {
        "path": path, "group": group, "status": "ok", "error": "", "size_bytes": size,
        "format": info["trace"].get("format", ""),
        "kernel_release": report["kernel"]["release"] or info["trace"].get("kernel_release", ""),
        "host": host_of(info["trace"].get("uname", "")),
        "cpus": trace["cpus"], "first_ts_ns": trace["first_ts_ns"],
        "last_ts_ns": trace["last_ts_ns"], "span_ns": trace["span_ns"],
        "events": trace["events"], "lost_events": sum(m["events"] for m in missed),
        "lost_gaps": sum(m["gaps"] for m in missed),
        "lost_unknown": any(m["some_unknown"] for m in missed),
        "preempt_rt": report["kernel"]["preempt_rt"],
        "worst_severity": next((s for s in SEVERITIES
                                if any(f["severity"] == s for f in findings)), ""),
        "findings_by_rule": json.dumps(by_rule, sort_keys=True),
    }
    for severity in SEVERITIES:
        row[f"findings_{severity}"] = sum(f["severity"] == severity for f in findings)
    worst = _worst_by_vector(report["softirq_latency"])
    for vec in VECTORS:
        waits, p50, p99, top = worst.get(vec, (0, None, None, None))
        row.update({f"softirq_{vec}_waits": waits, f"softirq_{vec}_p50_ns": p50,
                    f"softirq_{vec}_p99_ns": p99, f"softirq_{vec}_max_ns": top})
    polls = sum(n["polls"] for n in report["napi"])
    exhausted = sum(n["exhausted"] for n in report["napi"])
    row.update({"napi_polls": polls, "napi_exhausted": exhausted,
                "napi_exhausted_share": exhausted / polls if polls else None})
    rt = [r for r in report["rt_wake_latency"] if r["policy"] == "rt" and r["count"] > 0]
    worst_rt = max(rt, key=lambda r: r["p99_ns"], default=None)
    row.update({"rt_wake_samples": worst_rt["count"] if worst_rt else 0,
                "rt_wake_p99_ns": worst_rt["p99_ns"] if worst_rt else None,
                "rt_wake_max_ns": max(r["max_ns"] for r in rt) if rt else None})
    row["ksoftirqd_blocked"] = (len(report["ksoftirqd_blocked"]) +
                                report.get("ksoftirqd_blocked_not_listed", 0))
    threads = report["irq_threads"] + report["napi_threads"]
    activations = sum(t["activations"] for t in threads)
    cross = sum(t["cross_cpu_activations"] for t in threads)
    row.update({"pingpong_activations": activations, "pingpong_cross_cpu": cross,
                "pingpong_rate": cross / activations if activations else None,
                "report_sha256": report_digest(report)})
    return row


def finding_rows(report: dict, path: str, group: str = "") -> list:
    """One row per finding (FINDING_COLUMNS), most severe first as in the report."""
    return [{"path": path, "group": group, "rule": f["rule"], "severity": f["severity"],
             "cpu": f.get("cpu"), "pid": f.get("pid"), "thread": _finding_thread(report, f),
             "irq": f.get("irq"), "vec": f.get("vec"), "start_ns": f["start_ns"],
             "end_ns": f["end_ns"], "summary": f["summary"]} for f in report["findings"]]


def latency_rows(report: dict, path: str, group: str = "") -> list:
    """One row per (cpu, vector) of the report's softirq_latency (LATENCY_COLUMNS)."""
    return [{"path": path, "group": group, **{c: row[c] for c in LATENCY_COLUMNS[2:]}}
            for row in report["softirq_latency"]]


def error_row(path: str, message: str, size: Optional[int] = None, group: str = "") -> dict:
    """The trace row of a trace that could not be analysed: status "error" and the message."""
    row = dict.fromkeys(TRACE_COLUMNS)
    row.update({"path": path, "group": group, "status": "error", "error": message,
                "size_bytes": size})
    return row
