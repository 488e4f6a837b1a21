"""napiscope.fleet: many traces analysed on a Dask cluster, one task per trace, gathered
into tables (docs/fleet.md).

    from napiscope import fleet
    f = fleet.run(["/nfs/traces/**/*.dat"], scheduler="tcp://10.0.0.5:8786",
                  group_by="kernel")
    f.traces      # one row per trace (errors too: status "error" and the message)
    f.findings    # one row per finding of every trace
    f.latency     # one row per (trace, cpu, vector) of softirq latency
    metrics, findings = f.compare(baseline="6.1.0")
    f.write("out/")   # CSV, JSON lines, SQLite and index.html

Without a scheduler, a LocalCluster of `workers` processes on 127.0.0.1 runs the job. The
traces must be on storage every worker reads, at the same path.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass, field
from typing import Iterable, Optional

import pandas as pd

from . import rows
from .groups import check_group_by, compare as _compare, read_tags
from .job import analyse, expand, local_cluster, run_tasks

__all__ = ["Fleet", "run", "expand", "analyse", "read_tags", "local_cluster"]

# Columns holding integers that may be missing (a trace without the events, an error row).
_INT_COLUMNS = {"size_bytes", "cpus", "first_ts_ns", "last_ts_ns", "span_ns", "events",
                "lost_events", "lost_gaps", "findings_error", "findings_warning",
                "findings_info", "napi_polls", "napi_exhausted", "rt_wake_samples",
                "rt_wake_p99_ns", "rt_wake_max_ns", "ksoftirqd_blocked",
                "pingpong_activations", "pingpong_cross_cpu", "cpu", "pid", "irq", "vec",
                "start_ns", "end_ns"} | {c for c in rows.TRACE_COLUMNS
                                         if c.startswith("softirq_") and
                                         c.endswith(("_ns", "_waits"))}


def _frame(records: list, columns: list) -> pd.DataFrame:
    """A DataFrame of `records` with `columns`; integer columns as nullable Int64."""
    frame = pd.DataFrame(records, columns=columns)
    for column in columns:
        if column in _INT_COLUMNS:
            frame[column] = pd.array(
                [None if v is None or v != v else int(v) for v in frame[column]], dtype="Int64")
    return frame


@dataclass
class Fleet:
    """The tables of a fleet job: `traces` (rows.TRACE_COLUMNS), `findings`
    (rows.FINDING_COLUMNS), `latency` (rows.LATENCY_COLUMNS), and the --group-by used."""
    traces: pd.DataFrame
    findings: pd.DataFrame
    latency: pd.DataFrame
    group_by: Optional[str] = None
    trace_pages: dict = field(default_factory=dict)  # path -> its report's HTML, when made

    @classmethod
    def from_results(cls, results: list, group_by: Optional[str] = None) -> "Fleet":
        """The fleet of analyse()'s results, in their order."""
        return cls(_frame([r["trace"] for r in results], rows.TRACE_COLUMNS),
                   _frame([f for r in results for f in r["findings"]], rows.FINDING_COLUMNS),
                   _frame([x for r in results for x in r["latency"]], rows.LATENCY_COLUMNS),
                   group_by)

    def worst(self) -> pd.DataFrame:
        """The trace rows, worst first: errors, then by findings (errors, warnings), then the
        NET_RX p99."""
        order = self.traces.assign(
            _failed=self.traces["status"] != "ok",
            _p99=self.traces["softirq_NET_RX_p99_ns"].fillna(-1))
        return order.sort_values(["_failed", "findings_error", "findings_warning", "_p99"],
                                 ascending=False, kind="stable").drop(columns=["_failed", "_p99"])

    def compare(self, baseline: Optional[str] = None, noise_percent: float = 5.0,
                min_traces: int = 3) -> tuple:
        """(metrics, findings) of every group against `baseline` (groups.compare)."""
        return _compare(self.traces, self.latency, baseline, noise_percent, min_traces)

    def dask(self, table: str = "traces", npartitions: int = 1):
        """One of the tables as a Dask DataFrame."""
        import dask.dataframe as dd
        return dd.from_pandas(getattr(self, table), npartitions=npartitions)

    def write(self, directory: str, baseline: Optional[str] = None,
              noise_percent: float = 5.0, min_traces: int = 3) -> list:
        """Writes the tables (CSV, JSON lines, fleet.sqlite) and index.html into
        `directory`; returns the files written."""
        from .output import write_all
        return write_all(self, directory, baseline, noise_percent, min_traces)


def run(patterns: Iterable[str], scheduler: Optional[str] = None, workers: int = 2,
        group_by: Optional[str] = None, threads: int = 0, progress: Optional[bool] = None,
        client=None, memory_limit: str = "auto") -> Fleet:
    """Analyses every trace `patterns` name (expand()) on a Dask cluster, one task per trace:
    `client`, else the scheduler at `scheduler` ("tcp://host:8786"), else a LocalCluster of
    `workers` processes. `progress`: Dask's progress bar on stderr (default: when stderr is
    a terminal). `threads`: the loader's threads per trace (0: one per core)."""
    check_group_by(group_by)
    paths = expand(patterns)
    if progress is None:
        progress = sys.stderr.isatty()
    from distributed import Client
    if client is not None:
        return Fleet.from_results(run_tasks(client, paths, group_by, threads, progress), group_by)
    if scheduler:
        with Client(scheduler, timeout="20s") as own:
            return Fleet.from_results(run_tasks(own, paths, group_by, threads, progress), group_by)
    with local_cluster(workers, memory_limit) as cluster, Client(cluster) as own:
        return Fleet.from_results(run_tasks(own, paths, group_by, threads, progress), group_by)
