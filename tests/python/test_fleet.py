"""napiscope.fleet: the rows of a fleet job equal `napiscope report --format json` of each
trace, a hostile file is an error row, the group diff follows diff's rules, and a job through
a real `dask scheduler` survives a worker killed mid-job."""
import glob
import json
import os
import signal
import sqlite3
import subprocess
import sys
import threading
import time

import pandas as pd
import pytest

pytest.importorskip("distributed", reason="napiscope.fleet needs Dask: apt install "
                                          "python3-distributed")

import napiscope
from napiscope import fleet
from napiscope.fleet import rows as fleet_rows
from conftest import CLI, TESTDATA, cli_json, data_path

# Dask 2022.12 on Debian's tornado: a deprecation inside distributed, not ours.
pytestmark = pytest.mark.filterwarnings("ignore:make_current is deprecated:DeprecationWarning")

# Columns that describe the job, not the trace: left out when rows are compared with the CLI's.
JOB_COLUMNS = {"group", "worker", "seconds", "worker_peak_rss_mib"}


def _hostile_files(directory) -> dict:
    """Files that are not traces, or broken ones: name -> path."""
    real = data_path("real/veth-softirq-napi.dat")
    files = {"random.dat": os.urandom(4096), "empty.dat": b"",
             "truncated.dat": open(real, "rb").read()[:300000],
             "text.dat": b"this is not ftrace\n" * 50}
    out = {}
    for name, data in files.items():
        path = os.path.join(directory, name)
        with open(path, "wb") as file:
            file.write(data)
        out[name] = path
    return out


def _same(a, b) -> bool:
    """Equal values, floats to 12 digits (JSON lines keep 15), missing as None/NaN."""
    missing = lambda v: v is None or (isinstance(v, float) and v != v)
    if missing(a) or missing(b):
        return missing(a) and missing(b)
    if isinstance(a, float) or isinstance(b, float):
        return abs(float(a) - float(b)) <= 1e-12 * max(1.0, abs(float(a)))
    return a == b


def test_fleet_command_rows_equal_the_cli_json(tmp_path):
    """`napiscope fleet` over testdata's traces and hostile files, on its local cluster of 2
    workers: every trace row, finding and latency row is the CLI's report of that file
    (report_sha256 is the digest of the whole report); the hostile files are error rows."""
    hostile = _hostile_files(tmp_path)
    out = tmp_path / "out"
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}  # it finds the module
    done = subprocess.run([CLI, "fleet", "-q", "--workers", "2", "--pages", "2", "-o", str(out),
                           "--group-by", "path:-2", os.path.join(TESTDATA, "**", "*.dat"),
                           str(tmp_path / "*.dat")],
                          capture_output=True, text=True, env=env, timeout=180, check=False)
    assert done.returncode == 0, done.stderr
    traces = [json.loads(line) for line in open(out / "traces.jsonl")]
    paths = [os.path.abspath(p)  # the fleet sends absolute paths: a worker's cwd is its own
             for p in glob.glob(os.path.join(TESTDATA, "**", "*.dat"), recursive=True)]
    assert len(traces) == len(paths) + len(hostile)
    assert f"{len(traces)} traces: {len(paths)} analysed, {len(hostile)} errors" in done.stdout
    by_path = {row["path"]: row for row in traces}
    for name, path in hostile.items():
        row = by_path[str(tmp_path / name)]
        assert row["status"] == "error" and row["error"].startswith(str(tmp_path / name)), row
    findings = pd.read_json(out / "findings.jsonl", lines=True)
    latency = pd.read_json(out / "latency.jsonl", lines=True)
    for path in paths:
        report, info = cli_json("report", "--format", "json", "-q", path), \
            cli_json("info", "--format", "json", "-q", path)
        row = by_path[path]
        assert row["status"] == "ok", row
        assert row["group"] == os.path.basename(os.path.dirname(path))
        expected = fleet_rows.trace_row(report, info, path, os.path.getsize(path))
        for column, value in expected.items():
            if column not in JOB_COLUMNS:
                assert _same(row[column], value), (path, column, row[column], value)
        assert row["report_sha256"] == fleet_rows.report_digest(report)
        mine = findings[findings["path"] == path]
        assert list(mine["rule"]) == [f["rule"] for f in report["findings"]]
        assert list(mine["summary"]) == [f["summary"] for f in report["findings"]]
        assert len(latency[latency["path"] == path]) == len(report["softirq_latency"])
    # Values the scenarios were built to hold (testdata/scenarios/README.md).
    scenario = lambda name: by_path[os.path.abspath(data_path("scenarios/" + name))]
    assert scenario("napi_budget.dat")["napi_exhausted_share"] == pytest.approx(2 / 3)
    assert scenario("rt_wake_latency.dat")["softirq_NET_RX_p99_ns"] == 2500800
    assert scenario("ksoftirqd_blocked.dat")["ksoftirqd_blocked"] == 2
    assert scenario("ksoftirqd_blocked.dat")["preempt_rt"] == "yes"
    with sqlite3.connect(out / "fleet.sqlite") as db:
        assert db.execute("select count(*) from traces").fetchone()[0] == len(traces)
        assert db.execute("select count(*) from findings").fetchone()[0] == len(findings)
    page = (out / "index.html").read_text()
    assert page.count('<a href="traces/') == 2 and (out / "traces" / "0.html").stat().st_size > 0
    assert "<svg" in page and "NET_RX softirq latency p99" in page


@pytest.mark.parametrize("name", ["random.dat", "empty.dat", "truncated.dat", "text.dat"])
def test_a_hostile_file_is_an_error_row_with_the_cli_message(tmp_path, name):
    """analyse() (the task) never raises: the row carries the one line the CLI prints."""
    path = _hostile_files(tmp_path)[name]
    result = fleet.analyse(path, group_by="path:-1")
    row = result["trace"]
    cli = subprocess.run([CLI, "report", "-q", path], capture_output=True, text=True)
    assert cli.returncode == 1
    assert row["status"] == "error" and row["group"] == name
    assert cli.stderr.strip() == f"napiscope: {row['error']}"
    assert result["findings"] == [] and result["latency"] == []


def _group_frames(values: dict, samples: int) -> tuple:
    """Trace and latency frames with one NET_RX p99 per trace: group -> [p99 ns...]."""
    traces, latency = [], []
    for group, p99s in values.items():
        for i, p99 in enumerate(p99s):
            path = f"{group}/{i}.dat"
            row = dict.fromkeys(fleet_rows.TRACE_COLUMNS)
            row.update({"path": path, "group": group, "status": "ok", "findings_by_rule":
                        json.dumps({"softirq-latency": {"warning": 1}} if p99 > 1e6 else {}),
                        "softirq_NET_RX_p99_ns": p99, "softirq_NET_RX_waits": samples})
            traces.append(row)
            latency.append({"path": path, "group": group, "cpu": 0, "vec": 3, "name": "NET_RX",
                            "count": samples, "p50_ns": p99 // 2, "p99_ns": p99})
    return pd.DataFrame(traces), pd.DataFrame(latency)


def _verdict(values: dict, samples: int = 500, **options) -> str:
    traces, latency = _group_frames(values, samples)
    metrics, _ = fleet.groups.compare(traces, latency, baseline="a", **options)
    return metrics.set_index("metric").loc["softirq_NET_RX_p99_ns", "verdict"]


def test_group_diff_uses_medians_samples_and_the_noise_band():
    """Worse in most traces: regressed; one noisy trace: not; few waits behind the p99s (diff
    wants 100): few_traces; +3%: within_noise; fewer than 3 traces: few_traces."""
    base = [100_000, 110_000, 105_000, 95_000]
    assert _verdict({"a": base, "b": [200_000, 210_000, 190_000, 205_000]}) == "regressed"
    assert _verdict({"a": base, "b": [100_000, 104_000, 96_000, 9_000_000]}) == "within_noise"
    assert _verdict({"a": base, "b": [60_000, 50_000, 55_000]}) == "improved"
    assert _verdict({"a": base, "b": [200_000, 210_000, 190_000]}, samples=99) == "few_traces"
    assert _verdict({"a": base, "b": [200_000, 210_000]}) == "few_traces"
    assert _verdict({"a": base, "b": [105_000, 110_000, 106_000]}, noise_percent=1) == "regressed"
    traces, latency = _group_frames({"a": base, "b": [2_000_000] * 3}, 500)
    _, findings = fleet.groups.compare(traces, latency)
    assert findings.to_dict("records") == [
        {"baseline": "a", "group": "b", "rule": "softirq-latency", "before_traces": 0,
         "after_traces": 3, "before_share": 0.0, "after_share": 1.0, "change": "new"}]


def test_group_by_tags_kernel_and_path(tmp_path):
    """--group-by reads TRACE.tags, then napiscope.tags of the directory."""
    (tmp_path / "a.dat.tags").write_text("board = am57xx  # the CI board\n")
    (tmp_path / "napiscope.tags").write_text("board=x86\nlab=2\n")
    row = {"path": str(tmp_path / "a.dat"), "kernel_release": "6.1.0-rt"}
    assert fleet.groups.group_of("tag:board", row) == "am57xx"
    assert fleet.groups.group_of("tag:lab", {"path": str(tmp_path / "b.dat")}) == "2"
    assert fleet.groups.group_of("kernel", row) == "6.1.0-rt"
    assert fleet.groups.group_of("path:-2", row) == tmp_path.name
    with pytest.raises(ValueError, match="path:N"):
        fleet.groups.check_group_by("path:x")


def _start(args, env, log):
    return subprocess.Popen(args, env=env, stdout=log, stderr=subprocess.STDOUT,
                            start_new_session=True)


def test_a_worker_killed_mid_job_loses_no_row(tmp_path):
    """Real `dask scheduler` and two `dask worker` processes on 127.0.0.1; one worker is
    killed (SIGKILL) while it analyses a trace: the scheduler runs that task again on the
    other and the job returns every row, each the report of its file."""
    dask = "/usr/bin/dask"
    if not os.path.exists(dask):
        pytest.skip("no /usr/bin/dask (apt install python3-distributed)")
    env = dict(os.environ, PYTHONPATH=os.path.dirname(os.path.dirname(napiscope.__file__)))
    log = open(tmp_path / "dask.log", "w")
    scheduler_file = tmp_path / "scheduler.json"
    processes = [_start([dask, "scheduler", "--host", "127.0.0.1", "--port", "0",
                         "--no-dashboard", "--scheduler-file", str(scheduler_file)], env, log)]
    try:
        for _ in range(2):
            processes.append(_start([dask, "worker", "--scheduler-file", str(scheduler_file),
                                     "--nthreads", "1", "--no-nanny", "--host", "127.0.0.1",
                                     "--no-dashboard", "--local-directory", str(tmp_path)], env, log))
        from distributed import Client
        deadline = time.monotonic() + 90
        while not scheduler_file.exists() and time.monotonic() < deadline:
            time.sleep(0.2)
        client = Client(scheduler_file=str(scheduler_file), timeout="30s")
        client.wait_for_workers(2, timeout=60)
        # Distinct paths to the larger real traces: about a second of work each.
        paths = []
        for i in range(10):  # symlinks keep a path of their own in the rows
            for name in ("veth-softirq-napi.dat", "server16-softirq-napi.dat"):
                link = tmp_path / f"{i}-{name}"
                os.symlink(data_path("real/" + name), link)
                paths.append(str(link))
        result = {}
        job = threading.Thread(target=lambda: result.setdefault(
            "fleet", fleet.run(paths, scheduler=client.scheduler.address, progress=False)))
        job.start()
        pids = client.run(os.getpid)  # worker address -> its process
        victim, killed_keys = None, []
        while victim is None and time.monotonic() < deadline:
            for address, keys in client.processing().items():
                if keys:
                    time.sleep(0.3)  # mid-task: some way into the load
                    victim, killed_keys = address, client.processing()[address]
                    os.kill(pids[address], signal.SIGKILL)
                    break
            time.sleep(0.05)
        assert victim is not None, "no worker ever processed a task"
        job.join(timeout=120)
        assert not job.is_alive()
        traces = result["fleet"].traces
        assert list(traces["path"]) == paths and (traces["status"] == "ok").all(), \
            traces[["path", "status", "error"]]
        digests = {name: fleet_rows.report_digest(
            cli_json("report", "--format", "json", "-q", str(tmp_path / f"0-{name}")))
            for name in ("veth-softirq-napi.dat", "server16-softirq-napi.dat")}
        for path, digest in zip(traces["path"], traces["report_sha256"]):
            # The report names the path it was given: compare with the CLI's on that path.
            if path.startswith(str(tmp_path / "0-")):
                assert digest == digests[os.path.basename(path)[2:]]
        # The tasks that were running on the killed worker finished on the other one.
        killed = [int(key.split("-")[2]) for key in killed_keys]
        assert killed and (traces["worker"].iloc[killed] != victim).all()
        client.close()
    finally:
        for process in processes:
            if process.poll() is None:
                process.kill()
            process.wait(timeout=10)
        log.close()


def test_bash_completion_offers_every_fleet_option():
    """The completion's fleet list is written by hand: it must be the options of the parser."""
    import re
    from napiscope.fleet.__main__ import _parser
    script = open(os.path.join(os.path.dirname(__file__), "../../cli/data/"
                               "napiscope.bash-completion")).read()
    offered = set(re.search(r'fleet\) words="([^"]*)"', script).group(1).split())
    defined = {o for action in _parser()._actions for o in action.option_strings
               if o.startswith("--")}
    assert offered == defined


def test_a_trace_whose_worker_always_dies_is_an_error_row(tmp_path):
    """With allowed-failures 0 the scheduler gives up on a task at its worker's first death
    (as on a file that crashes every worker after 3): that trace is an error row saying so,
    and the job still returns every other row."""
    import dask
    from distributed import Client
    paths = []
    for i in range(6):
        link = tmp_path / f"{i}.dat"
        os.symlink(data_path("real/server16-softirq-napi.dat"), link)
        paths.append(str(link))
    with dask.config.set({"distributed.scheduler.allowed-failures": 0}), \
            fleet.local_cluster(workers=1) as cluster, Client(cluster) as client:
        result = {}

        def run():
            try:
                result["fleet"] = fleet.run(paths, client=client, progress=False)
            except Exception as failure:  # noqa: BLE001: the assertion below shows it
                result["fleet"] = failure

        job = threading.Thread(target=run)
        job.start()
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and not any(client.processing().values()):
            time.sleep(0.05)
        time.sleep(0.3)
        for pid in client.run(os.getpid).values():
            os.kill(pid, signal.SIGKILL)
        job.join(timeout=120)
        assert not job.is_alive()
    assert isinstance(result["fleet"], fleet.Fleet), result["fleet"]
    traces = result["fleet"].traces
    failed = traces[traces["status"] == "error"]
    assert list(traces["path"]) == paths
    assert len(failed) >= 1 and (traces["status"] == "ok").sum() >= 1
    assert all("Dask KilledWorker" in e and e.startswith(p)
               for p, e in zip(failed["path"], failed["error"]))
