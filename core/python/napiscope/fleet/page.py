"""The fleet's HTML page: one self-contained file (inline CSS and SVG, no network)."""

from __future__ import annotations

import html
import json
import math
from typing import Optional

import pandas as pd

_STYLE = """body{font:14px sans-serif;margin:1.5em;color:#222}table{border-collapse:collapse;
margin:.5em 0 1.5em}td,th{border:1px solid #ccc;padding:2px 6px;text-align:right;white-space:nowrap}
td.wrap{white-space:normal;font-size:12px;max-width:22em}
td.l,th.l{text-align:left}tr.error td{background:#fde2e2}.error{color:#b00}.warning{color:#a60}
h2{margin-top:1.5em}svg text{font:11px sans-serif}"""


def _ms(ns) -> str:
    """A duration for people: "1.23 ms", "45.6 us"; "" when missing."""
    if ns is None or pd.isna(ns):
        return ""
    ns = float(ns)
    if ns >= 1e6:
        return f"{ns / 1e6:.2f} ms"
    return f"{ns / 1e3:.1f} us"


def _cell(value, left: bool = False, css: str = "") -> str:
    value = "" if value is None or (not isinstance(value, str) and pd.isna(value)) else value
    classes = " ".join(c for c in ("l" if left else "", css) if c)
    return f"<td class=\"{classes}\">{html.escape(str(value))}</td>" if classes else \
        f"<td>{html.escape(str(value))}</td>"


def _share(value) -> str:
    return "" if value is None or pd.isna(value) else f"{100 * float(value):.1f}%"


def _trace_table(fleet, limit: int = 500) -> str:
    worst = fleet.worst().head(limit)
    head = ("<tr><th class=l>trace</th><th class=l>group</th><th>errors</th><th>warnings</th>"
            "<th>info</th><th class=l>rules</th><th>NET_RX p99</th><th>NET_RX max</th>"
            "<th>NAPI exhausted</th><th>RT wake p99</th><th>ksoftirqd blocked</th>"
            "<th>CPUs</th><th>span</th><th>events</th><th>lost</th><th>PREEMPT_RT</th>"
            "<th class=l>kernel</th></tr>")
    out = [f"<table>{head}"]
    for _, row in worst.iterrows():
        page = fleet.trace_pages.get(row["path"])
        name = html.escape(row["path"])
        link = f"<a href=\"{html.escape(page)}\">{name}</a>" if page else name
        if row["status"] != "ok":
            out.append(f"<tr class=error><td class=l>{link}</td>{_cell(row['group'], True)}"
                       f"<td colspan=15 class=l>{html.escape(str(row['error']))}</td></tr>")
            continue
        rules = ", ".join(sorted(json.loads(row["findings_by_rule"] or "{}")))
        out.append(
            f"<tr><td class=l>{link}</td>{_cell(row['group'], True)}"
            f"{_cell(row['findings_error'], css='error' if row['findings_error'] else '')}"
            f"{_cell(row['findings_warning'], css='warning' if row['findings_warning'] else '')}"
            f"{_cell(row['findings_info'])}{_cell(rules, True, 'wrap')}"
            f"{_cell(_ms(row['softirq_NET_RX_p99_ns']))}{_cell(_ms(row['softirq_NET_RX_max_ns']))}"
            f"{_cell(_share(row['napi_exhausted_share']))}{_cell(_ms(row['rt_wake_p99_ns']))}"
            f"{_cell(row['ksoftirqd_blocked'])}{_cell(row['cpus'])}"
            f"{_cell(_ms(row['span_ns']))}{_cell(row['events'])}{_cell(row['lost_events'])}"
            f"{_cell(row['preempt_rt'])}{_cell(row['kernel_release'], True)}</tr>")
    more = len(fleet.traces) - len(worst)
    return "\n".join(out) + "</table>" + (f"<p>{more} more traces in traces.csv</p>" if more > 0 else "")


def _rules_by_group(fleet) -> str:
    """Per rule and group: the traces with a finding of it, of the group's analysed traces."""
    ok = fleet.traces[fleet.traces["status"] == "ok"]
    if ok.empty:
        return "<p>No trace was analysed.</p>"
    groups = sorted(ok["group"].fillna("").unique())
    counts: dict = {}
    for _, row in ok.iterrows():
        for rule, severities in json.loads(row["findings_by_rule"] or "{}").items():
            key = (rule, row["group"] or "")
            worst = "error" if "error" in severities else "warning" if "warning" in severities else "info"
            n, w = counts.get(key, (0, "info"))
            rank = ["info", "warning", "error"]
            counts[key] = (n + 1, max(w, worst, key=rank.index))
    totals = ok["group"].fillna("").value_counts()
    head = "".join(f"<th>{html.escape(g or '(all)')} ({totals[g]})</th>" for g in groups)
    out = [f"<table><tr><th class=l>rule</th>{head}</tr>"]
    for rule in sorted({r for r, _ in counts}):
        cells = ""
        for g in groups:
            n, w = counts.get((rule, g), (0, ""))
            cells += _cell(f"{n} ({100 * n / totals[g]:.0f}%)" if n else "0", css=w if n else "")
        out.append(f"<tr>{_cell(rule, True)}{cells}</tr>")
    return "\n".join(out) + "</table>"


def strip_plot(values: dict, title: str, width: int = 640) -> str:
    """An inline SVG: per group a row of dots (one per trace, log scale of ns) and a bar at
    its median. `values`: group -> list of ns."""
    values = {g: [float(v) for v in vs if v is not None and not pd.isna(v) and v > 0]
              for g, vs in values.items()}
    everything = [v for vs in values.values() for v in vs]
    if not everything:
        return f"<p>{html.escape(title)}: no trace has it.</p>"
    low = 10 ** math.floor(math.log10(min(everything)))
    high = 10 ** math.ceil(math.log10(max(everything)))
    if high <= low:
        high = low * 10
    left, row_h = 120, 28
    height = 30 + row_h * len(values) + 20

    def x(v: float) -> float:
        return left + (width - left - 20) * (math.log10(v) - math.log10(low)) / \
            (math.log10(high) - math.log10(low))

    out = [f"<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{width}\" height=\"{height}\">",
           f"<text x=\"4\" y=\"14\">{html.escape(title)}</text>"]
    decade = low
    while decade <= high:
        out.append(f"<line x1=\"{x(decade):.1f}\" x2=\"{x(decade):.1f}\" y1=\"22\" "
                   f"y2=\"{height - 18}\" stroke=\"#ddd\"/><text x=\"{x(decade) - 14:.1f}\" "
                   f"y=\"{height - 4}\">{_ms(decade)}</text>")
        decade *= 10
    for i, (group, vs) in enumerate(sorted(values.items())):
        y = 30 + row_h * i + row_h / 2
        out.append(f"<text x=\"4\" y=\"{y + 4:.1f}\">{html.escape(group or '(all)')} "
                   f"({len(vs)})</text>")
        for v in vs:
            out.append(f"<circle cx=\"{x(v):.1f}\" cy=\"{y:.1f}\" r=\"3\" fill=\"#3a6ea5\" "
                       f"fill-opacity=\"0.5\"><title>{_ms(v)}</title></circle>")
        if vs:
            median = float(pd.Series(vs).median())
            out.append(f"<line x1=\"{x(median):.1f}\" x2=\"{x(median):.1f}\" y1=\"{y - 10:.1f}\" "
                       f"y2=\"{y + 10:.1f}\" stroke=\"#b00\" stroke-width=\"2\">"
                       f"<title>median {_ms(median)}</title></line>")
    return "\n".join(out) + "</svg>"


def _plots(fleet) -> str:
    ok = fleet.traces[fleet.traces["status"] == "ok"]
    plots = []
    for column, title in (("softirq_NET_RX_p99_ns", "NET_RX softirq latency p99 per trace"),
                          ("rt_wake_p99_ns", "RT wake latency p99 per trace")):
        values = {g: list(ok.loc[ok["group"].fillna("") == g, column])
                  for g in ok["group"].fillna("").unique()}
        plots.append(strip_plot(values, title + " (red: the group's median)"))
    return "\n".join(plots)


def _diff_tables(metrics: Optional[pd.DataFrame], findings: Optional[pd.DataFrame]) -> str:
    if metrics is None:
        return ""
    if metrics.empty and findings.empty:
        return "<h2>Groups against the baseline</h2><p>Fewer than two groups were analysed.</p>"
    order = {"regressed": 0, "improved": 1, "within_noise": 2, "few_traces": 3, "same": 4}
    shown = metrics.assign(_o=metrics["verdict"].map(order)).sort_values(["group", "_o", "metric"])
    out = ["<h2>Groups against the baseline</h2><table><tr><th class=l>group</th>"
           "<th class=l>baseline</th><th class=l>metric</th><th>baseline median</th>"
           "<th>group median</th><th>traces</th><th class=l>verdict</th></tr>"]
    for _, r in shown.iterrows():
        fmt = _ms if r["unit"] == "ns" else _share if r["unit"] == "share" else str
        css = "error" if r["verdict"] == "regressed" else ""
        out.append(f"<tr>{_cell(r['group'], True)}{_cell(r['baseline'], True)}"
                   f"{_cell(r['metric'], True)}{_cell(fmt(r['before']) if r['before'] is not None else '')}"
                   f"{_cell(fmt(r['after']) if r['after'] is not None else '')}"
                   f"{_cell(str(r['before_traces']) + ' / ' + str(r['after_traces']))}"
                   f"{_cell(r['verdict'], True, css)}</tr>")
    out.append("</table><h2>Findings in one group and not the other</h2><table><tr>"
               "<th class=l>group</th><th class=l>rule</th><th>baseline traces</th>"
               "<th>group traces</th><th class=l>change</th></tr>")
    for _, r in findings[findings["change"] != "both"].iterrows():
        out.append(f"<tr>{_cell(r['group'], True)}{_cell(r['rule'], True)}"
                   f"{_cell(r['before_traces'])}{_cell(r['after_traces'])}"
                   f"{_cell(r['change'], True)}</tr>")
    return "\n".join(out) + "</table>"


def fleet_page(fleet, metrics: Optional[pd.DataFrame] = None,
               findings: Optional[pd.DataFrame] = None) -> str:
    """The page: counts, the traces worst first (each linking to its own report page when
    one was made), findings by rule across groups, plots, and the group diff."""
    traces = fleet.traces
    failed = int((traces["status"] != "ok").sum())
    by = f", grouped by {html.escape(fleet.group_by)}" if fleet.group_by else ""
    return (f"<!DOCTYPE html><html><head><meta charset=\"utf-8\"><title>napiscope fleet"
            f"</title><style>{_STYLE}</style></head><body><h1>napiscope fleet</h1>"
            f"<p>{len(traces)} traces, {len(traces) - failed} analysed, {failed} errors{by}; "
            f"{len(fleet.findings)} findings.</p><h2>Traces, worst first</h2>"
            f"{_trace_table(fleet)}<h2>Findings by rule</h2>{_rules_by_group(fleet)}"
            f"<h2>Distributions</h2>{_plots(fleet)}{_diff_tables(metrics, findings)}"
            "</body></html>\n")
