"""Every derived table against the report's rows: the table is the facts, the report the
statistics over them, so counts, extremes and nearest-rank percentiles must be equal."""
import math
import re
import warnings

import numpy as np
import pytest

import napiscope
from conftest import data_path

# Traces without some events give those tables empty, with a warning: expected here, and
# checked by the tests at the end.
pytestmark = pytest.mark.filterwarnings("ignore::napiscope.MissingEventsWarning")

TRACES = [
    "real/short-v6.dat",
    "real/veth-softirq-napi.dat",
    "real/veth-threaded-napi.dat",
    "scenarios/ksoftirqd_blocked.dat",
    "scenarios/irq_threads_bouncing.dat",
    "scenarios/napi_budget.dat",
    "scenarios/rt_wake_latency.dat",
    "scenarios/missed_events_gap.dat",
    "real/stack-truth-novectors.dat",
]


@pytest.fixture(scope="module", params=TRACES)
def trace(request):
    t = napiscope.open(data_path(request.param))
    return t, t.report()


def nearest_rank(values, per_mille):
    ordered = np.sort(np.asarray(values))
    rank = math.ceil(per_mille * len(ordered) / 1000)
    return int(ordered[max(rank, 1) - 1])


def assert_stats(values, row, what):
    assert len(values) == row["count"], what
    if row["count"] == 0:
        return
    assert int(np.min(values)) == row["min_ns"], what
    assert int(np.max(values)) == row["max_ns"], what
    if row.get("exact", True):
        for key, per_mille in (("p50_ns", 500), ("p90_ns", 900), ("p99_ns", 990)):
            assert nearest_rank(values, per_mille) == row[key], (what, key)


def test_softirq_waits_are_the_latency_rows(trace):
    t, report = trace
    waits = t.softirq_waits()
    groups = {key: g for key, g in waits.groupby(["cpu", "vec"])}
    seen = 0
    for row in report["softirq_latency"]:
        group = groups.get((row["cpu"], row["vec"]))
        delays = [] if group is None else group["delay_ns"].to_numpy()
        assert_stats(delays, row, (row["cpu"], row["name"]))
        if group is not None:
            assert (group["entry_ns"] - group["raise_ns"] == group["delay_ns"]).all()
            ran_in = {k: v for k, v in group["ran_in"].value_counts().items() if v}
            assert ran_in == {k: v for k, v in row["ran_in"].items() if v}
            assert set(group["vec_name"]) == {row["name"]}
        seen += len(delays)
    assert seen == len(waits)


def test_softirq_wait_blame_is_the_reports(trace):
    """The report keeps blame for the longest waits; the tables must give those waits the
    same holders, in the same order, with the same times."""
    t, report = trace
    waits = t.softirq_waits().set_index(["cpu", "vec", "raise_ns"])
    holders = t.softirq_wait_blame()
    by_wait = {key: g.sort_values("rank") for key, g in holders.groupby(["cpu", "vec", "raise_ns"])}
    checked = 0
    for row in report["softirq_latency"]:
        for worst in row["worst"]:
            key = (row["cpu"], row["vec"], worst["raise_ns"])
            wait = waits.loc[key]
            assert wait["entry_ns"] == worst["entry_ns"], key
            assert wait["unknown_ns"] == worst["unknown_ns"], key
            expected = [(b["kind"], b["holder"], b["time_ns"]) for b in worst["blame"]]
            mine = by_wait.get(key)
            got = [] if mine is None else list(zip(mine["kind"], mine["holder"], mine["time_ns"]))
            assert got == expected, key
            if mine is not None:
                vector = mine["holder"].str.startswith("x86 vector")
                assert ((mine["x86_vector"] == 1) == vector).all(), key
            assert wait["blame"] == (expected[0][1] if expected else ""), key
            assert wait["blame_ns"] == (expected[0][2] if expected else 0), key
            checked += 1
    assert checked == sum(len(row["worst"]) for row in report["softirq_latency"])


def test_string_columns_list_only_their_own_values(trace):
    t, _ = trace
    waits = t.softirq_waits()
    assert set(waits["blame_kind"].cat.categories) <= {"", "task", "hardirq", "softirq"}
    assert set(waits["ran_in"].cat.categories) == set(waits["ran_in"].unique())


def test_softirq_wait_holders_sum_to_the_delay(trace):
    t, _ = trace
    waits = t.softirq_waits()
    held = t.softirq_wait_blame().groupby(["cpu", "vec", "raise_ns"])["time_ns"].sum()
    joined = waits.join(held, on=["cpu", "vec", "raise_ns"]).fillna({"time_ns": 0})
    assert (joined["time_ns"] + joined["unknown_ns"] == joined["delay_ns"]).all()
    assert ((joined["blame_ns"] > 0) == (joined["blame"] != "")).all()


def test_inferred_hard_irqs_are_listed():
    """x86 without irq_vectors: the timer and IPIs are seen only in common_flags. Their frames
    are rows of their own, marked inferred, and left out of the report's statistics (their
    start is not known), as the report's kernel section counts them."""
    t = napiscope.open(data_path("real/stack-truth-novectors.dat"))
    runs = t.hardirq_runs()
    inferred = runs[runs["inferred"] == 1]
    assert set(inferred["name"]) == {"untraced hard IRQ"}
    assert (inferred["irq"] == -1).all()
    assert (inferred["start_known"] == 0).all()
    traced = runs[runs["inferred"] == 0]
    assert set(traced["name"]) == {"virtio0-stats"}
    # The truth: events recorded in hard-IRQ context (common_flags bit 0x08) outside the traced
    # handler. Each lies in an inferred run on its CPU, and each inferred run holds some.
    events = t.events(columns=["ts_ns", "cpu", "flags"])
    in_irq = events[(events["flags"] & 0x08) != 0]
    for run in traced.itertuples():
        in_irq = in_irq[~((in_irq["cpu"] == run.cpu) & (in_irq["ts_ns"] >= run.entry_ns) &
                          (in_irq["ts_ns"] <= run.exit_ns))]
    assert len(in_irq) > 0
    holding = np.zeros(len(inferred), dtype=int)
    for event in in_irq.itertuples():
        inside = ((inferred["cpu"] == event.cpu) & (inferred["entry_ns"] <= event.ts_ns) &
                  (inferred["exit_ns"] >= event.ts_ns)).to_numpy()
        assert inside.sum() == 1, event
        holding += inside
    assert (holding > 0).all()


def test_softirq_runs_are_the_runtime_rows(trace):
    t, report = trace
    runs = t.softirq_runs()
    known = runs[(runs["start_known"] == 1) & (runs["end_known"] == 1)]
    groups = {key: g["run_ns"].to_numpy() for key, g in known.groupby(["cpu", "vec"])}
    for row in report["softirq_runtime"]:
        assert_stats(groups.get((row["cpu"], row["vec"]), []), row, (row["cpu"], row["vec"]))
    assert sum(row["count"] for row in report["softirq_runtime"]) == len(known)
    assert (runs["exit_ns"] >= runs["entry_ns"]).all()
    assert (runs["run_ns"] <= runs["exit_ns"] - runs["entry_ns"]).all()


def test_hardirq_runs_are_the_runtime_rows(trace):
    t, report = trace
    runs = t.hardirq_runs()
    known = runs[(runs["start_known"] == 1) & (runs["end_known"] == 1)]
    groups = {key: g["run_ns"].to_numpy() for key, g in known.groupby(["cpu", "irq", "name"],
                                                                       observed=True)}
    for row in report["hardirq_runtime"]:
        assert_stats(groups.get((row["cpu"], row["irq"], row["name"]), []), row, row["name"])
    assert sum(row["count"] for row in report["hardirq_runtime"]) == len(known)


def test_hardirq_runs_mark_x86_vectors():
    """x86 with irq_vectors: each *_entry vector event opens a run marked x86_vector, each
    irq_handler_entry one that is not (their numbers are two spaces)."""
    t = napiscope.open(data_path("real/napi-chrt.dat"))
    runs = t.hardirq_runs()
    names = t.events(columns=["event"])["event"].astype(str)
    vector_entries = names.str.endswith("_entry") & ~names.isin(
        ["irq_handler_entry", "softirq_entry", "timer_expire_entry", "hrtimer_expire_entry"])
    vectors = runs[runs["x86_vector"] == 1]
    assert len(vectors) == vector_entries.sum() > 0
    assert "local_timer" in set(vectors["name"])
    devices = runs[(runs["x86_vector"] == 0) & (runs["inferred"] == 0)]
    assert len(devices) == (names == "irq_handler_entry").sum() > 0
    assert not set(devices["name"]) & set(vectors["name"])


def test_napi_polls_are_the_napi_rows(trace):
    t, report = trace
    polls = t.napi_polls()
    assert sum(row["polls"] for row in report["napi"]) == len(polls)
    for row in report["napi"]:
        mine = polls[(polls["napi"] == int(row["napi"], 16)) & (polls["cpu"] == row["cpu"]) &
                     (polls["context"] == row["context"])]
        assert len(mine) == row["polls"], row
        assert int(mine["work"].sum()) == row["work"], row
        assert int(mine["exhausted"].sum()) == row["exhausted"], row


def test_thread_activations_are_the_thread_rows(trace):
    t, report = trace
    activations = t.thread_activations()
    rows = report["irq_threads"] + report["napi_threads"] + report["ksoftirqd"]
    for row in rows:
        mine = activations[activations["pid"] == row["pid"]]
        counted = mine[mine["lost"] == 0]
        assert len(counted) == row["activations"], row["comm"]
        assert int(counted["cross_cpu"].sum()) == row["cross_cpu_activations"], row["comm"]
        exact = counted[counted["exact"] == 1]
        same = exact[exact["cross_cpu"] == 0]["wait_ns"].to_numpy()
        cross = exact[exact["cross_cpu"] == 1]["wait_ns"].to_numpy()
        assert_stats(same, row["wake_to_run"]["same_cpu"], (row["comm"], "same"))
        assert_stats(cross, row["wake_to_run"]["cross_cpu"], (row["comm"], "cross"))


def test_wake_waits_are_the_rt_wake_latency_rows(trace):
    t, report = trace
    waits = t.wake_waits()
    ran = waits[waits["dropped"] == ""]
    for row in report["rt_wake_latency"]:
        mine = ran[(ran["pid"] == row["pid"]) & (ran["run_cpu"] == row["cpu"])]
        assert_stats(mine["wait_ns"].to_numpy(), row, (row["comm"], row["cpu"]))
    assert (ran["wait_ns"] == ran["run_ns"] - ran["waking_ns"]).all()
    dropped = waits[waits["dropped"] != ""]
    assert (dropped["run_ns"] == -1).all()


def test_report_row_tables_are_the_report_rows(trace):
    t, report = trace
    assert len(t.ksoftirqd_blocked()) == len(report["ksoftirqd_blocked"])
    assert len(t.idle_with_pending()) == len(report["idle_with_pending"])


def test_a_table_on_a_scenario_has_the_expected_facts():
    # ksoftirqd_blocked.dat: ksoftirqd/0 blocked in D for 3 ms with TIMER pending, then in S
    # for 960 us with SCHED pending.
    t = napiscope.open(data_path("scenarios/ksoftirqd_blocked.dat"))
    blocked = t.ksoftirqd_blocked()
    assert list(blocked["state"]) == ["D", "S"]
    assert blocked.loc[0, "duration_ns"] == 3_004_000
    assert list(blocked.loc[0, "pending_start"]) == ["TIMER"]


def test_report_row_tables_without_rows_keep_their_columns():
    # They came back with no columns at all, so blocked["duration_ns"] raised KeyError.
    full = napiscope.open(data_path("scenarios/ksoftirqd_blocked.dat"))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", napiscope.MissingEventsWarning)
        empty = napiscope.open(data_path("scenarios/irq_threads_bouncing.dat"))
        for name in ("ksoftirqd_blocked", "idle_with_pending"):
            rows, none = getattr(full, name)(), getattr(empty, name)()
            assert len(rows) > 0 and len(none) == 0
            assert list(none.columns) == list(rows.columns)


def test_unknown_table_is_an_error():
    t = napiscope.open(data_path("scenarios/ksoftirqd_blocked.dat"))
    with pytest.raises(ValueError, match=re.escape(
            "no derived table 'softirq_wait'; did you mean 'softirq_waits'? the tables are "
            "hardirq_runs, napi_polls, softirq_runs, ")):
        t.table("softirq_wait")
    assert set(napiscope.table_names()) == {
        "softirq_waits", "softirq_wait_blame", "softirq_runs", "hardirq_runs",
        "thread_activations", "wake_waits", "napi_polls", "ksoftirqd_blocked",
        "idle_with_pending"}


def test_every_table_name_is_a_method_and_table_takes_it():
    t = napiscope.open(data_path("scenarios/ksoftirqd_blocked.dat"))
    for name in napiscope.table_names():
        by_method = getattr(t, name)()
        by_name = t.table(name)
        assert list(by_name.columns) == list(by_method.columns), name
        assert len(by_name) == len(by_method), name
    blocked = t.table("ksoftirqd_blocked")
    assert list(blocked["duration_ns"]) == [3004000, 959500]
    assert list(t.table("idle_with_pending")["ts_ns"]) == [2003100000]


ALL_TABLES = napiscope.table_names()


def tables_and_warnings(t):
    """Every table of `t` by name, and the tables a MissingEventsWarning was given for."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        tables = {name: getattr(t, name)() for name in ALL_TABLES}
    warned = {}
    for warning in caught:
        assert warning.category is napiscope.MissingEventsWarning
        assert warning.filename == __file__  # it names the line that asked
        table = str(warning.message).split(": ")[1].split(" is empty")[0]
        warned[table] = str(warning.message)
    return tables, warned


def test_tables_of_events_not_recorded_warn_and_are_empty():
    # Empty tables used to come back without a word when the trace lacks their events.
    path = data_path("scenarios/irq_threads_bouncing.dat")  # no softirq or NAPI events
    tables, warned = tables_and_warnings(napiscope.open(path))
    assert sorted(warned) == ["idle_with_pending", "ksoftirqd_blocked", "napi_polls",
                              "softirq_runs", "softirq_wait_blame", "softirq_waits"]
    assert warned["napi_polls"] == (f"{path}: napi_polls is empty: NAPI polling and budget was "
                                    "not analysed: the trace has no napi:napi_poll events")
    assert warned["softirq_runs"] == (f"{path}: softirq_runs is empty: the trace has no "
                                      "irq:softirq_entry events")
    assert "irq:softirq_raise, irq:softirq_entry" in warned["softirq_waits"]
    assert all(len(tables[name]) == 0 for name in warned)
    assert len(tables["thread_activations"]) > 0 and len(tables["wake_waits"]) > 0


def test_softirq_runs_of_an_enabled_event_that_never_fired_do_not_warn():
    # A file that lists irq:softirq_entry among the events enabled while recording (napiscope
    # record writes that list) recorded it: no softirq ran, which is an answer, not a gap.
    path = data_path("scenarios/irq_threads_bouncing.dat")  # no softirq events
    t = napiscope.open(path)
    info = t.info()
    assert info["trace"]["enabled_events"] is None  # tracegen does not say what was enabled
    info["trace"]["enabled_events"] = ["irq:softirq_entry", "sched:sched_switch"]
    t.info = lambda: info
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        runs = t.softirq_runs()
    assert len(runs) == 0 and caught == []
    info["trace"]["enabled_events"] = ["irq:softirq_raise"]
    with pytest.warns(napiscope.MissingEventsWarning, match="no irq:softirq_entry events"):
        t.softirq_runs()


@pytest.mark.parametrize("name", TRACES)
def test_only_tables_that_cannot_have_rows_warn(name):
    tables, warned = tables_and_warnings(napiscope.open(data_path(name)))
    assert all(len(tables[table]) == 0 for table in warned), warned
    if name.startswith("real/"):
        assert warned == {}
