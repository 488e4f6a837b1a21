"""The fleet job: one Dask task per trace, run on the workers with the napiscope module; a
trace that cannot be analysed is an error row, never a failed job."""

from __future__ import annotations

import contextlib
import glob
import os
import resource
import sys
import time
import warnings
from typing import Iterable, Optional

from . import rows as fleet_rows
from .groups import group_of


def expand(patterns: Iterable[str]) -> list:
    """The trace files `patterns` name, as absolute paths (a worker's working directory is
    not this one): globs (`**` recursive) and directories (their *.dat, recursively), each
    file once, in the order given (a glob's matches sorted). A pattern that matches nothing
    raises ValueError naming it."""
    out, seen = [], set()
    for pattern in patterns:
        if os.path.isdir(pattern):
            matches = sorted(glob.glob(os.path.join(pattern, "**", "*.dat"), recursive=True))
        elif glob.has_magic(pattern):
            matches = sorted(p for p in glob.glob(pattern, recursive=True) if not os.path.isdir(p))
        else:
            matches = [pattern]  # a missing file is that trace's error row
        if not matches:
            raise ValueError(f"{pattern}: no trace matches")
        for path in map(os.path.abspath, matches):
            if path not in seen:
                seen.add(path)
                out.append(path)
    return out


def _worker_name() -> str:
    """The Dask worker running this task ("" outside a worker)."""
    try:
        from distributed import get_worker
        return get_worker().address
    except (ImportError, ValueError):
        return ""


def analyse(path: str, group_by: Optional[str] = None, threads: int = 0) -> dict:
    """The task of one trace, run on a worker: {"trace": row, "findings": [...],
    "latency": [...]}, the rows of `napiscope report --format json` of `path`. Any failure
    (napiscope.Error's one line, or an unexpected exception) is the trace row's `error`."""
    started = time.monotonic()
    size = None
    try:
        with contextlib.suppress(OSError):  # a missing file is napiscope.Error's one line
            size = os.stat(path).st_size
        import napiscope
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # the report's analysis-unavailable findings say it
            trace = napiscope.open(path, threads=threads)
            report, info = trace.report(), trace.info()
        del trace  # a worker holds one trace's report at a time
        row = fleet_rows.trace_row(report, info, path, size)
        result = {"trace": row, "findings": fleet_rows.finding_rows(report, path),
                  "latency": fleet_rows.latency_rows(report, path)}
    except Exception as failure:  # noqa: BLE001: any trace's failure is its row, not the job's
        message = str(failure) if type(failure).__name__ == "Error" else \
            f"{path}: {type(failure).__name__}: {failure}"
        row = fleet_rows.error_row(path, message, size)
        result = {"trace": row, "findings": [], "latency": []}
    group = group_of(group_by, row)
    for part in result.values():
        for item in part if isinstance(part, list) else [part]:
            item["group"] = group
    row.update({"worker": _worker_name(), "seconds": round(time.monotonic() - started, 3),
                "worker_peak_rss_mib": round(
                    resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1)})
    return result


def _killed_message(path: str, failure: BaseException) -> str:
    """The error row's message of a task the cluster gave up on (its worker died each time)."""
    name = type(failure).__name__
    if name == "KilledWorker":
        return (f"{path}: the workers analysing it died each time it was tried "
                f"(Dask KilledWorker): the file may crash or exhaust the loader")
    return f"{path}: {name}: {failure}"


def local_cluster(workers: int = 2, memory_limit: str = "auto"):
    """A Dask LocalCluster on 127.0.0.1: `workers` processes of one thread each (one trace at
    a time per worker), no dashboard."""
    from distributed import LocalCluster
    return LocalCluster(n_workers=workers, threads_per_worker=1, processes=True,
                        host="127.0.0.1", dashboard_address=None,
                        memory_limit=memory_limit, silence_logs=40)


def run_tasks(client, paths: list, group_by: Optional[str], threads: int,
              progress: bool) -> list:
    """Submits one task per path to `client`'s cluster and returns their results in the order
    of `paths`; a task the cluster could not finish is an error row."""
    from distributed import as_completed
    futures = client.map(analyse, paths, group_by=group_by, threads=threads, pure=False,
                         key=[f"napiscope-trace-{i}-{os.getpid()}-{time.time_ns()}"
                              for i in range(len(paths))])
    index = {future.key: i for i, future in enumerate(futures)}
    if progress:
        from distributed import progress as dask_progress
        with contextlib.redirect_stdout(sys.stderr):
            dask_progress(futures)
            print(file=sys.stderr)
    results: list = [None] * len(paths)
    for future, result in as_completed(futures, with_results=True, raise_errors=False):
        i = index[future.key]
        if future.status == "error":  # Dask gives (type, exception, traceback)
            failure = result[1] if isinstance(result, tuple) else result
            result = {"trace": fleet_rows.error_row(paths[i], _killed_message(paths[i], failure),
                                                    group=group_of(group_by, {"path": paths[i]})),
                      "findings": [], "latency": []}
        results[i] = result
        future.release()
    return results
