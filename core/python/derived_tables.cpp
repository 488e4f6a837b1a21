#include "derived_tables.h"

#include <pybind11/stl.h>  // the string column names Take() returns

#include <algorithm>
#include <deque>
#include <functional>
#include <map>
#include <tuple>

#include <absl/container/flat_hash_map.h>

#include "napiscope/contexts.h"
#include "napiscope/napi_rt_rows.h"
#include "napiscope/phrasing.h"
#include "napiscope/task_class.h"
#include "napiscope/wait_blame.h"
#include "numpy_columns.h"

namespace py = pybind11;

namespace napiscope::python {
namespace {

// Hears the trace's context tracker and fact producers (an AnalysisSession without the report
// runs them, as the analyses' are run) and builds one table from what they derive. Rows count
// when they begin inside the window and on the CPUs asked, as the report's do.
class FactTable : public TableSink, public ContextListener, public FactListener {
 public:
  explicit FactTable(const AnalysisOptions& options) : options_(options) {}

  void Subscribe(SessionOutputs* outputs) override {
    outputs->context_listeners.push_back(this);
    outputs->fact_listeners.push_back(this);
    outputs->sinks.push_back(this);
  }

  void OnBegin(const TraceContext& context) override { context_ = &context; }
  void OnEvent(const Event&) override {}

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
  ColumnBuilder rows_;
};

// Paired softirq waits with what held their CPU from raise to entry: the report's blame, for
// every wait rather than the worst few. A wait's row is written once the tracker's segments
// have passed its entry (during the tracker's warm-up they arrive after the events). With
// `holders`, the table has a row per holder of each wait instead (softirq_wait_blame).
class SoftirqWaits : public FactTable {
 public:
  SoftirqWaits(const AnalysisOptions& options, bool holders)
      : FactTable(options), holders_(holders) {}

  void OnBegin(const TraceContext& context) override {
    if (holders_) {
      rows_.Declare({{"cpu", ColumnType::kInt16},
                     {"vec", ColumnType::kInt16},
                     {"raise_ns", ColumnType::kInt64},
                     {"rank", ColumnType::kInt16},
                     {"kind", ColumnType::kString},
                     {"holder", ColumnType::kString},
                     {"name", ColumnType::kString},
                     {"pid", ColumnType::kInt32},
                     {"prio", ColumnType::kInt16},
                     {"irq", ColumnType::kInt32},
                     {"x86_vector", ColumnType::kUint8},
                     {"holder_vec", ColumnType::kInt16},
                     {"time_ns", ColumnType::kInt64}});
    } else {
      rows_.Declare({{"cpu", ColumnType::kInt16}, {"vec", ColumnType::kInt16},
                     {"raise_ns", ColumnType::kInt64}, {"entry_ns", ColumnType::kInt64},
                     {"delay_ns", ColumnType::kInt64}, {"ran_in", ColumnType::kString},
                     {"pending_mask", ColumnType::kInt64}, {"blame", ColumnType::kString},
                     {"blame_kind", ColumnType::kString}, {"blame_ns", ColumnType::kInt64},
                     {"unknown_ns", ColumnType::kInt64}});
    }
    FactTable::OnBegin(context);
  }
  void OnEnd() override {
    for (CpuWaits& cpu : cpus_) {
      for (Wait& wait : cpu.entered) Write(wait);
      cpu.entered.clear();
    }
  }

  void OnSoftirqRaise(const SoftirqRaiseFact& raise) override {
    if (Counts(raise.cpu, raise.raise_ns)) Cpu(raise.cpu).pending.push_back({raise, {}, {}});
  }
  void OnSoftirqWaitDropped(const SoftirqRaiseFact& raise, TimestampNs) override {
    std::erase_if(Cpu(raise.cpu).pending, [&](const Wait& w) { return w.raise.vec == raise.vec; });
  }
  void OnSoftirqWait(const SoftirqWaitFact& fact) override {
    if (!fact.paired()) return;
    CpuWaits& cpu = Cpu(fact.cpu);
    auto found = std::find_if(cpu.pending.begin(), cpu.pending.end(), [&](const Wait& w) {
      return w.raise.vec == fact.vec && w.raise.raise_ns == fact.raise_ns;
    });
    if (found == cpu.pending.end()) return;  // raised outside the window or the CPUs asked
    found->entry = fact;
    cpu.entered.push_back(std::move(*found));
    cpu.pending.erase(found);
    WriteFinished(cpu);
  }
  void OnSegment(const CpuSegment& segment) override {
    Charge(segment.frame.cpu, segment.start_ns, segment.end_ns, &segment.frame);
  }
  void OnUnknownTime(uint16_t cpu, TimestampNs start_ns, TimestampNs end_ns) override {
    Charge(cpu, start_ns, end_ns, nullptr);
  }

 private:
  struct Wait {
    SoftirqRaiseFact raise;
    SoftirqWaitFact entry;  // set once entered
    WaitBlame blame;
  };
  struct CpuWaits {
    std::vector<Wait> pending;  // raised, not entered
    std::deque<Wait> entered;   // entered, in entry order, blame still collecting
    TimestampNs segments_until_ns = 0;
  };

  CpuWaits& Cpu(uint16_t cpu) {
    if (cpu >= cpus_.size()) cpus_.resize(cpu + 1);
    return cpus_[cpu];
  }
  void Charge(uint16_t cpu_id, TimestampNs start_ns, TimestampNs end_ns,
              const ContextFrame* frame) {
    CpuWaits& cpu = Cpu(cpu_id);
    for (Wait& wait : cpu.pending) {
      wait.blame.Charge(std::max(start_ns, wait.raise.raise_ns), end_ns, frame);
    }
    for (Wait& wait : cpu.entered) {
      wait.blame.Charge(std::max(start_ns, wait.raise.raise_ns),
                        std::min(end_ns, wait.entry.entry_ns), frame);
    }
    cpu.segments_until_ns = std::max(cpu.segments_until_ns, end_ns);
    WriteFinished(cpu);
  }
  void WriteFinished(CpuWaits& cpu) {
    while (!cpu.entered.empty() && cpu.entered.front().entry.entry_ns <= cpu.segments_until_ns) {
      Write(cpu.entered.front());
      cpu.entered.pop_front();
    }
  }
  void Write(const Wait& wait) {
    const SoftirqWaitFact& fact = wait.entry;
    std::vector<BlameItem> items = wait.blame.Items(context_->strings);
    if (holders_) {
      for (size_t rank = 0; rank < items.size(); ++rank) {
        const BlameItem& item = items[rank];
        rows_.Add(fact.cpu).Add(fact.vec).Add(fact.raise_ns).Add(static_cast<int>(rank));
        rows_.AddString(ContextKindName(item.kind)).AddString(DescribeBlameHolder(item));
        bool task = item.kind == ContextKind::kTask, softirq = item.kind == ContextKind::kSoftirq;
        rows_.AddString(item.name).Add(task ? item.pid : -1).Add(item.prio).Add(item.irq.number);
        rows_.Add(item.irq.x86_vector);
        rows_.Add(softirq ? static_cast<int>(item.vec) : -1).Add(item.time_ns);
      }
      return;
    }
    rows_.Add(fact.cpu).Add(fact.vec).Add(fact.raise_ns).Add(fact.entry_ns).Add(fact.delay_ns());
    rows_.AddString(SoftirqSiteName(fact.site)).Add(fact.pending_mask);
    rows_.AddString(items.empty() ? "" : DescribeBlameHolder(items.front()));
    rows_.AddString(items.empty() ? "" : ContextKindName(items.front().kind));
    rows_.Add(items.empty() ? int64_t{0} : items.front().time_ns).Add(wait.blame.unknown_ns());
  }

  bool holders_;
  std::vector<CpuWaits> cpus_;
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
    rows_.Declare({{"cpu", ColumnType::kInt16},
                   {"irq", ColumnType::kInt32},
                   {"name", ColumnType::kString},
                   {"entry_ns", ColumnType::kInt64},
                   {"exit_ns", ColumnType::kInt64},
                   {"run_ns", ColumnType::kInt64},
                   {"pid", ColumnType::kInt32},
                   {"start_known", ColumnType::kUint8},
                   {"end_known", ColumnType::kUint8},
                   {"inferred", ColumnType::kUint8},
                   {"x86_vector", ColumnType::kUint8}});
    FactTable::OnBegin(context);
  }
  // Traced hard IRQs and those inferred from common_flags alone (named kUntracedIrqName).
  void OnInterval(const ContextInterval& interval) override {
    const ContextFrame& frame = interval.frame;
    if (frame.kind != ContextKind::kHardirq || !Counts(frame.cpu, frame.start_ns)) return;
    rows_.Add(frame.cpu).Add(frame.irq.number).AddString(Text(frame.name)).Add(frame.start_ns);
    rows_.Add(interval.end_ns).Add(interval.end_ns - frame.start_ns).Add(frame.pid);
    rows_.Add(frame.start_known)
        .Add(interval.end_known)
        .Add(frame.inferred)
        .Add(frame.irq.x86_vector);
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
      {"softirq_waits",
       [](const AnalysisOptions& o) -> std::unique_ptr<TableSink> {
         return std::make_unique<SoftirqWaits>(o, false);
       }},
      {"softirq_wait_blame",
       [](const AnalysisOptions& o) -> std::unique_ptr<TableSink> {
         return std::make_unique<SoftirqWaits>(o, true);
       }},
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
