#include "derived_tables.h"

#include <algorithm>
#include <functional>
#include <map>
#include <tuple>

#include <absl/container/flat_hash_map.h>

#include "napiscope/contexts.h"
#include "napiscope/napi_rt_rows.h"
#include "napiscope/producers.h"
#include "napiscope/task_class.h"
#include "numpy_columns.h"

namespace py = pybind11;

namespace napiscope::python {
namespace {

// Streams the trace through the context tracker and the fact producers, as the analyses do,
// and hands both to one table's listeners. Rows count when they begin inside the window and on
// the CPUs asked, as the report's do.
class FactTable : public TableSink, public ContextListener, public FactListener {
 public:
  explicit FactTable(const AnalysisOptions& options) : options_(options), producers_(&tracker_) {
    tracker_.AddListener(&producers_);
    tracker_.AddListener(this);
    producers_.AddListener(this);
  }

  void OnBegin(const TraceContext& context) override {
    context_ = &context;
    tracker_.OnBegin(context);
    producers_.OnBegin(context);
  }
  void OnEvent(const Event& event) override {
    tracker_.OnEvent(event);
    producers_.OnEvent(event);
  }
  void OnEnd() override {
    tracker_.OnEnd();
    producers_.OnEnd();
  }

  py::tuple Take() override {
    std::vector<std::string> string_columns = rows_.StringColumns();
    return py::make_tuple(rows_.Take(), rows_.Strings(), string_columns);
  }

 protected:
  bool Counts(int cpu, TimestampNs start_ns) const {
    return options_.window.Contains(start_ns) &&
           (options_.cpus.empty() ||
            std::find(options_.cpus.begin(), options_.cpus.end(), cpu) != options_.cpus.end());
  }
  std::string_view Text(StringId id) const { return context_->strings.Get(id); }

  AnalysisOptions options_;
  const TraceContext* context_ = nullptr;
  ContextTracker tracker_;
  FactProducers producers_;
  ColumnBuilder rows_;
};

class SoftirqWaits : public FactTable {
 public:
  using FactTable::FactTable;
  void OnBegin(const TraceContext& context) override {
    rows_.Declare({{"cpu", ColumnType::kInt16}, {"vec", ColumnType::kInt16},
                   {"raise_ns", ColumnType::kInt64}, {"entry_ns", ColumnType::kInt64},
                   {"delay_ns", ColumnType::kInt64}, {"ran_in", ColumnType::kString},
                   {"pending_mask", ColumnType::kInt64}});
    FactTable::OnBegin(context);
  }
  void OnSoftirqWait(const SoftirqWaitFact& wait) override {
    if (!wait.paired() || !Counts(wait.cpu, wait.raise_ns)) return;
    rows_.Add(wait.cpu).Add(wait.vec).Add(wait.raise_ns).Add(wait.entry_ns).Add(wait.delay_ns());
    rows_.AddString(SoftirqSiteName(wait.site)).Add(wait.pending_mask);
  }
};

class ThreadActivations : public FactTable {
 public:
  using FactTable::FactTable;
  void OnBegin(const TraceContext& context) override {
    rows_.Declare({{"pid", ColumnType::kInt32}, {"comm", ColumnType::kString},
                   {"thread_class", ColumnType::kString}, {"cause", ColumnType::kString},
                   {"irq", ColumnType::kInt32}, {"woken_ns", ColumnType::kInt64},
                   {"run_ns", ColumnType::kInt64}, {"wait_ns", ColumnType::kInt64},
                   {"from_cpu", ColumnType::kInt16}, {"to_cpu", ColumnType::kInt16},
                   {"cross_cpu", ColumnType::kUint8}, {"exact", ColumnType::kUint8},
                   {"lost", ColumnType::kUint8}});
    FactTable::OnBegin(context);
  }
  void OnThreadActivation(const ThreadActivationFact& a) override {
    if (!Counts(a.to_cpu, a.woken_ns)) return;
    bool by_irq = a.task_class == TaskClass::kIrqThread && a.irq >= 0;
    rows_.Add(a.pid).AddString(Text(a.comm)).AddString(TaskClassName(a.task_class));
    rows_.AddString(by_irq ? "hardirq" : "wakeup").Add(a.irq).Add(a.woken_ns).Add(a.run_ns);
    rows_.Add(a.run_ns - a.woken_ns).Add(a.from_cpu).Add(a.to_cpu).Add(a.cross_cpu());
    rows_.Add(a.exact).Add(a.lost);
  }
};

// One row per wake-to-run wait, written when it ends (ran or dropped).
class WakeWaits : public FactTable {
 public:
  using FactTable::FactTable;
  void OnBegin(const TraceContext& context) override {
    rows_.Declare({{"pid", ColumnType::kInt32}, {"comm", ColumnType::kString},
                   {"prio", ColumnType::kInt16}, {"waking_ns", ColumnType::kInt64},
                   {"run_ns", ColumnType::kInt64}, {"wait_ns", ColumnType::kInt64},
                   {"waker_cpu", ColumnType::kInt16}, {"run_cpu", ColumnType::kInt16},
                   {"moves", ColumnType::kInt32}, {"dropped", ColumnType::kString}});
    FactTable::OnBegin(context);
  }
  void OnWakeQueued(const WakeWaitFact& wait) override { open_[wait.wait_id] = {wait, 0}; }
  void OnWakeMoved(uint64_t wait_id, uint16_t, uint16_t, TimestampNs) override {
    auto found = open_.find(wait_id);
    if (found != open_.end()) ++found->second.moves;
  }
  void OnWakeRan(const WakeRunFact& run) override {
    Close(run.wait_id, run.run_ns, run.cpu, run.prio, "");
  }
  void OnWakeDropped(uint64_t wait_id, WakeDropReason reason, TimestampNs) override {
    static constexpr const char* kReasons[] = {"lost_events", "ran_unseen", "woken_again"};
    Close(wait_id, -1, -1, -1, kReasons[static_cast<int>(reason)]);
  }

 private:
  struct Open {
    WakeWaitFact wait;
    int32_t moves = 0;
  };
  void Close(uint64_t wait_id, TimestampNs run_ns, int run_cpu, int16_t prio,
             std::string_view dropped) {
    auto found = open_.find(wait_id);
    if (found == open_.end()) return;
    const WakeWaitFact& wait = found->second.wait;
    if (Counts(wait.waker_cpu, wait.waking_ns)) {
      rows_.Add(wait.pid).AddString(Text(wait.waking_comm));
      rows_.Add(prio >= 0 ? prio : wait.waking_prio).Add(wait.waking_ns).Add(run_ns);
      rows_.Add(run_ns >= 0 ? run_ns - wait.waking_ns : int64_t{-1}).Add(wait.waker_cpu);
      rows_.Add(run_cpu).Add(found->second.moves).AddString(dropped);
    }
    open_.erase(found);
  }
  absl::flat_hash_map<uint64_t, Open> open_;
};

// Softirq runs from the tracker's frames: on PREEMPT_RT a run in a task is cut into pieces when
// the task is switched out; the pieces of one run (same task, vector and first entry) are summed.
class SoftirqRuns : public FactTable {
 public:
  using FactTable::FactTable;
  void OnBegin(const TraceContext& context) override {
    rows_.Declare({{"cpu", ColumnType::kInt16}, {"vec", ColumnType::kInt16},
                   {"entry_ns", ColumnType::kInt64}, {"exit_ns", ColumnType::kInt64},
                   {"run_ns", ColumnType::kInt64}, {"pieces", ColumnType::kInt32},
                   {"pid", ColumnType::kInt32}, {"ran_in", ColumnType::kString},
                   {"start_known", ColumnType::kUint8}, {"end_known", ColumnType::kUint8}});
    FactTable::OnBegin(context);
  }
  void OnInterval(const ContextInterval& interval) override {
    const ContextFrame& frame = interval.frame;
    if (frame.kind != ContextKind::kSoftirq) return;
    int32_t task_key = frame.pid != 0 ? frame.pid : -1 - static_cast<int32_t>(frame.cpu);
    auto key = std::make_tuple(task_key, frame.vec, frame.entered_ns);
    Run run{frame.cpu, frame.entered_ns, 0, 0, frame.start_known && !frame.resumed};
    if (auto earlier = pieces_.find(key); earlier != pieces_.end()) {
      run = earlier->second;
      pieces_.erase(earlier);
    }
    run.on_cpu_ns += interval.end_ns - frame.start_ns;
    ++run.pieces;
    if (interval.suspended) {
      pieces_[key] = run;
      return;
    }
    if (!Counts(run.cpu, run.entry_ns)) return;
    rows_.Add(run.cpu).Add(frame.vec).Add(run.entry_ns).Add(interval.end_ns).Add(run.on_cpu_ns);
    rows_.Add(run.pieces).Add(frame.pid).AddString(SoftirqSiteName(frame.site));
    rows_.Add(run.start_known).Add(interval.end_known);
  }

 private:
  struct Run {
    uint16_t cpu;
    TimestampNs entry_ns;
    int64_t on_cpu_ns;
    int32_t pieces;
    bool start_known;
  };
  std::map<std::tuple<int32_t, uint32_t, TimestampNs>, Run> pieces_;
};

class HardirqRuns : public FactTable {
 public:
  using FactTable::FactTable;
  void OnBegin(const TraceContext& context) override {
    rows_.Declare({{"cpu", ColumnType::kInt16}, {"irq", ColumnType::kInt32},
                   {"name", ColumnType::kString}, {"entry_ns", ColumnType::kInt64},
                   {"exit_ns", ColumnType::kInt64}, {"run_ns", ColumnType::kInt64},
                   {"pid", ColumnType::kInt32}, {"start_known", ColumnType::kUint8},
                   {"end_known", ColumnType::kUint8}});
    FactTable::OnBegin(context);
  }
  void OnInterval(const ContextInterval& interval) override {
    const ContextFrame& frame = interval.frame;
    if (frame.kind != ContextKind::kHardirq || !Counts(frame.cpu, frame.start_ns)) return;
    rows_.Add(frame.cpu).Add(frame.irq).AddString(Text(frame.name)).Add(frame.start_ns);
    rows_.Add(interval.end_ns).Add(interval.end_ns - frame.start_ns).Add(frame.pid);
    rows_.Add(frame.start_known).Add(interval.end_known);
  }
};

class NapiPolls : public FactTable {
 public:
  using FactTable::FactTable;
  void OnBegin(const TraceContext& context) override {
    rows_.Declare({{"cpu", ColumnType::kInt16}, {"napi", ColumnType::kUint64},
                   {"dev", ColumnType::kString}, {"context", ColumnType::kString},
                   {"ts_ns", ColumnType::kInt64}, {"work", ColumnType::kInt32},
                   {"budget", ColumnType::kInt32}, {"exhausted", ColumnType::kUint8},
                   {"pid", ColumnType::kInt32}});
    FactTable::OnBegin(context);
  }
  void OnInterval(const ContextInterval& interval) override {
    const ContextFrame& frame = interval.frame;
    // A poll is an instant (napi_poll is traced when it returns): its time is the interval's end.
    if (frame.kind != ContextKind::kNapiPoll || !Counts(frame.cpu, interval.end_ns)) return;
    rows_.Add(frame.cpu).Add(frame.napi).AddString(Text(frame.name));
    rows_.AddString(NapiContextName(NapiPollContext(frame))).Add(interval.end_ns).Add(frame.work);
    rows_.Add(frame.budget).Add(frame.budget > 0 && frame.work >= frame.budget).Add(frame.pid);
  }
};

template <typename Table>
std::unique_ptr<TableSink> Make(const AnalysisOptions& options) {
  return std::make_unique<Table>(options);
}

using TableFactory = std::unique_ptr<TableSink> (*)(const AnalysisOptions&);

const std::map<std::string, TableFactory>& Tables() {
  static const auto* tables = new std::map<std::string, TableFactory>{
      {"softirq_waits", &Make<SoftirqWaits>},
      {"softirq_runs", &Make<SoftirqRuns>},
      {"hardirq_runs", &Make<HardirqRuns>},
      {"thread_activations", &Make<ThreadActivations>},
      {"wake_waits", &Make<WakeWaits>},
      {"napi_polls", &Make<NapiPolls>},
  };
  return *tables;
}

}  // namespace

std::vector<std::string> TableNames() {
  std::vector<std::string> names;
  for (const auto& [name, factory] : Tables()) names.push_back(name);
  return names;
}

std::unique_ptr<TableSink> MakeTableSink(const std::string& name, const AnalysisOptions& options) {
  auto found = Tables().find(name);
  return found == Tables().end() ? nullptr : found->second(options);
}

}  // namespace napiscope::python
