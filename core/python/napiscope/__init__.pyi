"""Type stubs of the napiscope package (see __init__.py and docs/python.md)."""

from typing import Callable, Optional, Sequence, Union

import numpy as np
import pandas as pd

TimeArg = Union[None, int, float, str]
Names = Union[None, str, Sequence[str]]  # one name, or several
Cpus = Union[None, int, Sequence[int]]  # one CPU, or several

__version__: str
"""The napiscope release, as `napiscope --version` prints it."""

class Error(RuntimeError):
    """A trace that cannot be opened or read; str() is the CLI's one-line message."""
    buffers: tuple[str, ...]
    """The buffer instances `buffer=` may name when which buffer to read is the question (the
    top buffer empty beside several instances with events, or a name the file lacks); ()."""

def event_kinds() -> list[str]:
    """Labels of the event kinds, in the order of the `kind` column's codes."""

def table_names() -> list[str]:
    """Names of the derived tables."""

def open(path: str, threads: int = 0, cpus: Cpus = None,
         start: TimeArg = None, end: TimeArg = None,
         progress: Optional[Callable[[float], None]] = None, buffer: str = "") -> Trace:
    """Loads and analyses a trace.dat or ftrace text file without holding the GIL."""

class Trace:
    """One trace, analysed once when opened; events and tables are read on demand."""

    def __init__(self, path: str, threads: int = 0, cpus: Cpus = None,
                 start: TimeArg = None, end: TimeArg = None,
                 progress: Optional[Callable[[float], None]] = None, buffer: str = "") -> None: ...
    def __repr__(self) -> str:
        """The file, its CPUs, events and span (and the window and CPUs it was opened with):
        <napiscope.Trace 'PATH': 2 CPUs, 780 events, 1.002 s>."""
    @property
    def path(self) -> str:
        """The trace file."""
    @property
    def start_ns(self) -> int:
        """Start of the analysed window."""
    @property
    def end_ns(self) -> int:
        """End of the analysed window."""
    def info(self) -> dict:
        """`napiscope info --format json` as a dict."""
    def report(self) -> dict:
        """`napiscope report --format json` ("napiscope.report/1") as a dict."""
    def findings(self) -> pd.DataFrame:
        """The report's findings, most severe first."""
    def event_columns(self, kinds: Names = None, columns: Names = None
                      ) -> tuple[dict[str, np.ndarray], list[str]]:
        """Events as ({column: array}, strings); string columns hold ids into strings."""
    def events(self, kinds: Names = None, columns: Names = None) -> pd.DataFrame:
        """Events as a DataFrame, string columns as categoricals."""
    def table(self, name: str) -> pd.DataFrame:
        """The derived table `name`."""
    def softirq_waits(self) -> pd.DataFrame:
        """Softirq raise -> entry waits: cpu, vec, vec_name, raise_ns, entry_ns, delay_ns,
        ran_in, pending_mask, blame, blame_kind, blame_ns, unknown_ns."""
    def softirq_wait_blame(self) -> pd.DataFrame:
        """Holders of the CPU during each softirq wait: cpu, vec, vec_name, raise_ns, rank,
        kind, holder, name, pid, prio, irq, holder_vec, time_ns."""
    def softirq_runs(self) -> pd.DataFrame:
        """Softirq runs: cpu, vec, vec_name, entry_ns, exit_ns, run_ns, pieces, pid, ran_in,
        start_known, end_known."""
    def hardirq_runs(self) -> pd.DataFrame:
        """Hard-IRQ handler runs: cpu, irq, name, entry_ns, exit_ns, run_ns, pid, start_known,
        end_known, inferred."""
    def thread_activations(self) -> pd.DataFrame:
        """IRQ/NAPI thread and ksoftirqd activations: pid, comm, thread_class, cause, irq,
        woken_ns, run_ns, wait_ns, from_cpu, to_cpu, cross_cpu, exact, lost."""
    def wake_waits(self) -> pd.DataFrame:
        """Wake -> run waits: pid, comm, prio, waking_ns, run_ns, wait_ns, waker_cpu, run_cpu,
        moves, dropped."""
    def napi_polls(self) -> pd.DataFrame:
        """NAPI polls: cpu, napi, dev, context, ts_ns, work, budget, exhausted, pid."""
    def ksoftirqd_blocked(self) -> pd.DataFrame:
        """The report's ksoftirqd_blocked rows."""
    def idle_with_pending(self) -> pd.DataFrame:
        """The report's idle_with_pending rows."""
