"""napiscope: Linux ftrace traces (trace-cmd's trace.dat, ftrace text) and what interrupts,
softirqs and NAPI polling did to a machine, as pandas DataFrames.

    import napiscope
    t = napiscope.open("trace.dat")
    t.info()                                   # `napiscope info --format json` as a dict
    t.events(kinds=["softirq_raise", "softirq_entry"])
    t.softirq_waits()                          # one row per raise -> entry wait
    t.report(); t.findings()

Times are integer nanoseconds of the trace clock. Errors raise napiscope.Error with the
command-line tool's one-line message. A table, or events of a kind, that the trace did not
record comes back empty with a MissingEventsWarning saying which events it needs.
"""

from __future__ import annotations

import difflib
import json
import pathlib
import sys
import warnings
from typing import Callable, Iterable, Optional, Sequence, Union


def _this_python() -> str:
    return f"{sys.executable or 'python'} {sys.version_info.major}.{sys.version_info.minor}"


try:
    import numpy as np
    import pandas as pd
except ImportError as missing:
    raise ImportError(f"napiscope needs NumPy and pandas, which this Python ({_this_python()}) "
                      f"cannot import ({missing}): on Debian, apt install python3-pandas and "
                      "use /usr/bin/python3 (or a venv made with --system-site-packages)") from missing

try:
    from . import _napiscope
except ImportError as missing:
    _built = sorted(path.name for path in pathlib.Path(__file__).parent.glob("_napiscope*.so"))
    raise ImportError(f"napiscope's extension ({', '.join(_built) or 'none found'}) does not load "
                      f"in this Python ({_this_python()}): {missing}; it is built for the "
                      "python3 CMake found (Debian's /usr/bin/python3): run that one, or "
                      "rebuild with -DPython3_EXECUTABLE=/path/to/python3") from missing

Error = _napiscope.Error
TimeArg = Union[None, int, float, str]
Names = Union[None, str, Sequence[str]]  # one name, or several
Cpus = Union[None, int, Sequence[int]]  # one CPU, or several

__version__ = _napiscope.__version__
__all__ = ["Error", "MissingEventsWarning", "Trace", "open", "event_kinds", "table_names"]


def __dir__() -> list[str]:
    """What dir() and tab completion show: the API and its type aliases, not the modules and
    typing names this one imports."""
    return sorted(__all__ + ["Cpus", "Names", "TimeArg", "__version__", "__doc__"])


class MissingEventsWarning(UserWarning):
    """A table was asked for whose events the trace does not hold: it is empty for that
    reason, not because nothing happened."""


# The analyses whose events each table needs (their ids in info()["analyses"]): a table is
# empty without them. A table of several kinds of rows needs any one of its analyses.
_TABLE_ANALYSES = {
    "softirq_waits": ["softirq_latency"],
    "softirq_wait_blame": ["softirq_latency"],
    "thread_activations": ["irq_thread_pingpong", "napi_thread_pingpong"],
    "wake_waits": ["rt_wake_latency"],
    "napi_polls": ["napi"],
    "ksoftirqd_blocked": ["ksoftirqd_blocked"],
    "idle_with_pending": ["idle_with_pending"],
}
# Tables that need one event rather than an analysis: (event, qualified name).
_TABLE_EVENTS = {
    "softirq_runs": ("softirq_entry", "irq:softirq_entry"),
}


def event_kinds() -> list[str]:
    """Labels of the event kinds, in the order of the `kind` column's codes: "other" (events
    napiscope only counts), "sched_switch", ..., "irq_vector_entry", "irq_vector_exit" (x86
    irq_vectors:*), "missed_events" (a gap: the ring buffer lost events on that CPU)."""
    return list(_napiscope.event_kinds())


def table_names() -> list[str]:
    """Names of the derived tables, each also a method of Trace and a name Trace.table()
    takes: the core's fact tables, then the report's ksoftirqd_blocked and idle_with_pending
    rows."""
    return list(_napiscope.table_names()) + list(_REPORT_ROW_TABLES)


# The tables made of the report's rows (ksoftirqd_blocked(), idle_with_pending()), each with
# the keys of its rows in the report's order (docs/report-schema.md): the columns of the table
# when it has no rows.
_REPORT_ROW_TABLES = {
    "ksoftirqd_blocked": [
        "chain", "comm", "cpu", "cpu_held_by", "duration_ns", "end_known", "end_ns",
        "pending_end", "pending_mask_end", "pending_mask_end_hex", "pending_mask_start",
        "pending_mask_start_hex", "pending_start", "pid", "start_ns", "state", "waker_comm",
        "waker_context", "waker_cpu", "waker_pid"],
    "idle_with_pending": ["cpu", "pending", "pending_mask", "pending_mask_hex",
                          "processed_after_ns", "ts_ns"],
}


def _rows_frame(rows: list, columns: list[str]) -> pd.DataFrame:
    """A DataFrame of the report's `rows`; with none, still the `columns` they would have, so
    that selecting a column of an empty table works."""
    return pd.DataFrame(rows) if rows else pd.DataFrame(columns=columns)


def _names(names: Names) -> list[str]:
    """`names` as a list: one name given as a str is that name, not its letters."""
    return [names] if isinstance(names, str) else list(names or [])


def _frame(arrays: dict, strings: Sequence[str], string_columns: Iterable[str]) -> pd.DataFrame:
    """A DataFrame of `arrays`; string columns (ids into `strings`) become categoricals."""
    categories = None
    for name in string_columns:
        if name not in arrays:
            continue
        if categories is None:
            # Ids index the load's string table; unused ids are harmless categories.
            categories = pd.Index(list(strings), dtype=object)
        codes = arrays[name].astype(np.int32, copy=False)
        arrays[name] = pd.Categorical.from_codes(codes, categories=categories)
    return pd.DataFrame(arrays, copy=False)


_EVENT_STRING_COLUMNS = ("event", "prev_comm", "next_comm", "task_comm", "child_comm",
                         "handler", "dev")


class Trace:
    """One trace, loaded and analysed once when opened; events and derived tables are read
    again from the file on demand, so memory holds only what is asked for."""

    def __init__(self, path: str, threads: int = 0, cpus: Cpus = None,
                 start: TimeArg = None, end: TimeArg = None,
                 progress: Optional[Callable[[float], None]] = None, buffer: str = ""):
        cpus = [cpus] if isinstance(cpus, int) else list(cpus or [])
        self._native = _napiscope.Trace(str(path), threads, cpus, start, end, progress, buffer)
        self._cpus = cpus

    def __repr__(self) -> str:
        info = self.info()
        text = (f"<napiscope.Trace {self.path!r}: {info['trace']['cpus']} CPUs, "
                f"{info['events']} events, {info['span_ns'] / 1e9:.3f} s")
        # What the tables are restricted to, when the trace was opened with a window or CPUs.
        if (self.start_ns, self.end_ns) != (info["first_ts_ns"], info["last_ts_ns"]):
            text += f"; window {self.start_ns / 1e9:.6f} .. {self.end_ns / 1e9:.6f}"
        if self._cpus:
            text += f"; CPUs {','.join(str(cpu) for cpu in self._cpus)}"
        return text + ">"

    @property
    def path(self) -> str:
        """The trace file."""
        return self._native.path

    @property
    def start_ns(self) -> int:
        """Start of the analysed window (the first event when no start was given)."""
        return self._native.start_ns

    @property
    def end_ns(self) -> int:
        """End of the analysed window (the last event when no end was given)."""
        return self._native.end_ns

    def info(self) -> dict:
        """What `napiscope info --format json` prints ("napiscope.info/2"), as a dict."""
        return json.loads(self._native.info_json())

    def report(self) -> dict:
        """What `napiscope report --format json` prints ("napiscope.report/1"), as a dict."""
        return json.loads(self._native.report_json())

    def findings(self) -> pd.DataFrame:
        """The report's findings, most severe first: rule, severity, summary, cpu, start_ns,
        end_ns, what they are about (pid, irq, vec: None when not one; other_pids and
        other_cpus: lists of further tasks and CPUs named) and the evidence dict."""
        rows = self.report()["findings"]
        columns = ["rule", "severity", "summary", "cpu", "start_ns", "end_ns", "pid", "irq",
                   "vec", "other_pids", "other_cpus", "evidence"]
        frame = pd.DataFrame([{c: row.get(c) for c in columns} for row in rows], columns=columns)
        for column in ("cpu", "pid", "irq", "vec"):  # integers, <NA> when not one
            frame[column] = pd.array([row.get(column) for row in rows], dtype="Int64")
        return frame

    def event_columns(self, kinds: Names = None,
                      columns: Names = None) -> tuple[dict, list[str]]:
        """Events of `kinds` (all when None) as ({column: numpy array}, strings): no Python
        object per event, each array allocated once at its final size. String columns hold ids
        into `strings`. Fields an event's kind does not have read -1 (strings: "", id 0). A
        kind the trace never recorded gives a MissingEventsWarning."""
        return self._event_columns(kinds, columns, stacklevel=2)

    def _event_columns(self, kinds: Names, columns: Names, stacklevel: int
                       ) -> tuple[dict, list[str]]:
        """event_columns(), warning (MissingEventsWarning) of each kind asked for that the
        trace holds none of; `stacklevel` names the user's call."""
        arrays, strings, unrecorded = self._native.event_columns(_names(kinds), _names(columns))
        for kind, qualified in unrecorded:
            warnings.warn(f"{self.path}: events of kind {kind} are empty: the trace has no "
                          f"{qualified} events", MissingEventsWarning, stacklevel=stacklevel + 1)
        return dict(arrays), list(strings)

    def events(self, kinds: Names = None, columns: Names = None) -> pd.DataFrame:
        """Events of `kinds` (all when None) as a DataFrame: ts_ns, cpu, pid (the task current
        on the CPU), kind, flags (common_flags), event, then the fields of the kinds asked
        (kernel names; task_pid/task_prio/task_comm for the task a wakeup, migration,
        pi_setprio or exit is about). String columns are categoricals."""
        arrays, strings = self._event_columns(kinds, columns, stacklevel=2)
        if "kind" in arrays:
            arrays["kind"] = pd.Categorical.from_codes(
                arrays["kind"].astype(np.int8, copy=False), categories=event_kinds())
        return _frame(arrays, strings, _EVENT_STRING_COLUMNS)

    def _warn_if_not_recorded(self, table: str, stacklevel: int) -> None:
        """Warns (MissingEventsWarning) when the trace lacks the events `table` needs;
        `stacklevel` names the user's call, as for warnings.warn from the caller."""
        stacklevel += 1
        info = self.info()
        if table in _TABLE_EVENTS:
            event, qualified = _TABLE_EVENTS[table]
            # Enabled while recording and none happened: recorded, with no rows.
            enabled = info["trace"].get("enabled_events") or []
            if info["event_counts"].get(event, {}).get("total", 0) == 0 and \
                    qualified not in enabled:
                warnings.warn(f"{self.path}: {table} is empty: the trace has no {qualified} "
                              "events", MissingEventsWarning, stacklevel=stacklevel)
            return
        analyses = {a["id"]: a for a in info["analyses"]}
        needed = [analyses[i] for i in _TABLE_ANALYSES.get(table, [])]
        if needed and not any(a["available"] for a in needed):
            why = "; ".join(f"{a['title']} was not analysed: the trace has no "
                            f"{', '.join(a['missing_required'])} events" for a in needed)
            warnings.warn(f"{self.path}: {table} is empty: {why}", MissingEventsWarning,
                          stacklevel=stacklevel)

    def table(self, name: str) -> pd.DataFrame:
        """The derived table `name` (see table_names()); each has a method of its own. Empty,
        with a MissingEventsWarning, when the trace lacks the events it needs."""
        return self._table(name)

    def _table(self, name: str) -> pd.DataFrame:
        """table(), for it and the tables' methods: a warning names the line calling them."""
        names = table_names()
        if name not in names:
            close = difflib.get_close_matches(name, names, n=1)
            hint = f"did you mean '{close[0]}'? " if close else ""
            raise ValueError(f"no derived table '{name}'; {hint}the tables are "
                             f"{', '.join(names)}")
        if name in _REPORT_ROW_TABLES:
            self._warn_if_not_recorded(name, stacklevel=3)
            return _rows_frame(self.report()[name], _REPORT_ROW_TABLES[name])
        arrays, strings, string_columns = self._native.table(name)
        self._warn_if_not_recorded(name, stacklevel=3)
        frame = _frame(dict(arrays), strings, string_columns)
        # A table's columns share one string table; each keeps only its own values as
        # categories, so value_counts() and groupby() list what the column holds.
        for column in string_columns:
            frame[column] = frame[column].cat.remove_unused_categories()
        if "vec" in frame:
            frame.insert(frame.columns.get_loc("vec") + 1, "vec_name",
                         pd.Categorical.from_codes(frame["vec"].clip(upper=10).astype(np.int8),
                                                   categories=_SOFTIRQ_VECTORS + ["?"]))
        return frame

    def softirq_waits(self) -> pd.DataFrame:
        """One row per softirq raise -> entry wait (the first raise since the vector last
        entered on that CPU, paired with its next entry there): cpu, vec, vec_name, raise_ns,
        entry_ns, delay_ns, ran_in (irq_exit, task_bh_enable, irq_thread, ksoftirqd,
        softirq_thread, napi_kthread, unknown), pending_mask (vectors pending just before the
        entry), and what held the CPU while it waited, as the report's blame: blame (the
        holder that held it longest, in the report's words, "" when nothing ran), blame_kind
        (task, hardirq, softirq), blame_ns (its time) and unknown_ns (time nothing is known
        about: lost events, missing switches). softirq_wait_blame() lists every holder."""
        return self._table("softirq_waits")

    def softirq_wait_blame(self) -> pd.DataFrame:
        """What held the CPU during each softirq wait, a row per holder (join with
        softirq_waits() on cpu, vec, raise_ns): rank (0 = longest), kind (task, hardirq,
        softirq), holder (the report's words), name, pid (tasks, else -1), prio (kernel
        priority of a task, -1 unknown), irq (hard IRQs, else -1), holder_vec (softirqs, else
        -1), time_ns. A wait's holders and its unknown_ns sum to its delay_ns."""
        return self._table("softirq_wait_blame")

    def softirq_runs(self) -> pd.DataFrame:
        """One row per softirq run (entry -> exit): cpu, vec, vec_name, entry_ns, exit_ns,
        run_ns (time on the CPU: a run preempted on PREEMPT_RT sums its pieces), pieces, pid
        (the task it ran in), ran_in, start_known, end_known."""
        return self._table("softirq_runs")

    def hardirq_runs(self) -> pd.DataFrame:
        """One row per hard-IRQ handler run: cpu, irq, name, entry_ns, exit_ns, run_ns, pid
        (the interrupted task), start_known, end_known, inferred (1 for a hard IRQ seen only
        in the events' common_flags, named "untraced hard IRQ" with irq -1: x86 vectors
        without irq_vectors events, or IRQs filtered out of the recording)."""
        return self._table("hardirq_runs")

    def thread_activations(self) -> pd.DataFrame:
        """One row per activation of an IRQ thread, NAPI kthread or ksoftirqd (its hard IRQ or
        wakeup, then its next run): pid, comm, thread_class, cause (hardirq, wakeup), irq,
        woken_ns, run_ns, wait_ns, from_cpu, to_cpu, cross_cpu, exact (switch-in recorded),
        lost (events lost in between: the wait is unknown)."""
        return self._table("thread_activations")

    def wake_waits(self) -> pd.DataFrame:
        """One row per wake -> run wait (sched_waking of a task not running, then its
        switch-in): pid, comm, prio, waking_ns, run_ns, wait_ns, waker_cpu, run_cpu, moves
        (migrations while queued), dropped ("" when it ran; else lost_events, ran_unseen,
        woken_again, and run_ns/wait_ns are -1)."""
        return self._table("wake_waits")

    def napi_polls(self) -> pd.DataFrame:
        """One row per NAPI poll: cpu, napi (instance address), dev, context (where it ran),
        ts_ns, work, budget, exhausted (work >= budget), pid."""
        return self._table("napi_polls")

    def ksoftirqd_blocked(self) -> pd.DataFrame:
        """One row per episode of ksoftirqd/N switched out blocked with softirqs pending (the
        report's rows; every one, where the CLI lists the first 1000): cpu, pid, comm, state,
        start_ns, end_ns, duration_ns, end_known, pending masks, the waker, and the chain it
        waited on."""
        return self._table("ksoftirqd_blocked")

    def idle_with_pending(self) -> pd.DataFrame:
        """One row per switch to idle with softirqs pending (the report's rows; every one,
        where the CLI lists the first 1000): cpu, ts_ns, pending_mask, and when each pending
        vector ran after."""
        return self._table("idle_with_pending")


_SOFTIRQ_VECTORS = ["HI", "TIMER", "NET_TX", "NET_RX", "BLOCK", "IRQ_POLL", "TASKLET", "SCHED",
                    "HRTIMER", "RCU"]


def open(path: str, threads: int = 0, cpus: Cpus = None,
         start: TimeArg = None, end: TimeArg = None,
         progress: Optional[Callable[[float], None]] = None, buffer: str = "") -> Trace:
    """Loads and analyses `path` (trace.dat or ftrace text) without holding the GIL.

    threads: trace.dat threads in all (0: one per core). cpus: restrict rows to these CPUs.
    start/end: the window, as int nanoseconds or float seconds of trace time, or a str in the
    CLI's syntax: "705.4123" (trace seconds) or "+100ms" (after the first event). progress: called
    now and then with the fraction done; Ctrl-C stops the load (KeyboardInterrupt). buffer: the
    trace.dat buffer instance to read (trace-cmd record -B NAME); "" reads the top buffer, or the
    only instance with events when the top buffer has none."""
    return Trace(path, threads, cpus, start, end, progress, buffer)
