"""The fleet's files: each table as CSV and JSON lines, all of them in one SQLite file, and
the HTML page."""

from __future__ import annotations

import os
import sqlite3
from typing import Optional

import pandas as pd


def _write_table(frame: pd.DataFrame, directory: str, name: str) -> list:
    """NAME.csv and NAME.jsonl of `frame`; returns their paths."""
    csv, jsonl = os.path.join(directory, name + ".csv"), os.path.join(directory, name + ".jsonl")
    frame.to_csv(csv, index=False)
    frame.to_json(jsonl, orient="records", lines=True, force_ascii=False,
                  double_precision=15)  # pandas keeps 10 digits by default
    if frame.empty:  # to_json writes nothing for no rows; an empty file says the same
        open(jsonl, "w", encoding="utf-8").close()
    return [csv, jsonl]


def write_all(fleet, directory: str, baseline: Optional[str], noise_percent: float,
              min_traces: int) -> list:
    """Writes traces, findings, latency (and with groups group_metrics, group_findings) as
    CSV and JSON lines, fleet.sqlite with every table, and index.html."""
    from .page import fleet_page
    os.makedirs(directory, exist_ok=True)
    tables = {"traces": fleet.traces, "findings": fleet.findings, "latency": fleet.latency}
    metrics = findings = None
    if fleet.group_by:
        metrics, findings = fleet.compare(baseline, noise_percent, min_traces)
        tables.update({"group_metrics": metrics, "group_findings": findings})
    written = []
    for name, frame in tables.items():
        written += _write_table(frame, directory, name)
    database = os.path.join(directory, "fleet.sqlite")
    if os.path.exists(database):
        os.remove(database)
    with sqlite3.connect(database) as connection:
        for name, frame in tables.items():
            frame.to_sql(name, connection, index=False)
    connection.close()
    page = os.path.join(directory, "index.html")
    with open(page, "w", encoding="utf-8") as file:
        file.write(fleet_page(fleet, metrics, findings))
    return written + [database, page]
