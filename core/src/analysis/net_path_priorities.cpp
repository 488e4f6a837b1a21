#include "analysis/net_path_priorities.h"

#include <algorithm>

namespace napiscope::internal {
namespace {

bool IsRtPrio(int prio) { return prio >= 0 && prio < 100; }

uint64_t TaskOnCpu(int32_t pid, int cpu) {
  return (uint64_t{static_cast<uint32_t>(pid)} << 32) | static_cast<uint32_t>(cpu);
}

}  // namespace

NetPathPriorities::NetPathPriorities(const ContextTracker* tracker, const AnalysisWindow& window)
    : tracker_(tracker), window_(window) {}

NetPathPriorities::CpuState& NetPathPriorities::Grow(uint16_t cpu) {
  cpus_.resize(cpu + 1);
  return cpus_[cpu];
}

void NetPathPriorities::RanOn(Runner& runner, int32_t pid, int cpu) {
  if (runner.cpus.Insert(cpu)) runners_on_cpu_[TaskOnCpu(pid, cpu)].push_back(&runner);
}

NetPathPriorities::Chain& NetPathPriorities::ChainOf(InterruptId irq) {
  Chain*& chain = chain_of_irq_[irq];
  if (chain == nullptr) chain = &chains_[irq];
  return *chain;
}

int NetPathPriorities::FindWindow(const CpuState& cpu, uint64_t wait_id) {
  for (size_t i = 0; i < cpu.windows.size(); ++i) {
    if (cpu.windows[i].wait_id == wait_id) return static_cast<int>(i);
  }
  return -1;
}

void NetPathPriorities::OnEvent(const Event& event) {
  switch (event.kind) {
    case EventKind::kIrqHandlerEntry:
    case EventKind::kIrqVectorEntry: {
      // A vector raises NET_RX too: RPS's IPI (call_function_single), a NAPI watchdog timer.
      if (!window_.Contains(event.ts_ns)) break;
      InterruptId irq = InterruptOf(event);
      Chain& chain = ChainOf(irq);
      chain.handler = event.irq.handler;
      if (irq.x86_vector) {
        if (chain.vector_entries.size() <= event.cpu) chain.vector_entries.resize(event.cpu + 1);
        ++chain.vector_entries[event.cpu];
        break;
      }
      chain.irq_cpus.Insert(event.cpu);
      ++chain.hardirqs;
      break;
    }
    case EventKind::kNapiPoll:
      NapiPoll(event);
      break;
    case EventKind::kSchedSwitch:
      Switch(event);
      break;
    default:
      break;
  }
}

// A poll by a NAPI kthread whose wakeups came from an IRQ is a run of that IRQ's chain.
void NetPathPriorities::NapiPoll(const Event& event) {
  int32_t pid = tracker_->CurrentPid(event.cpu);
  auto irq = irq_of_napi_thread_.find(pid);
  const ContextFrame& top = tracker_->Top(event.cpu);
  if (irq != irq_of_napi_thread_.end() && top.kind == ContextKind::kTask &&
      top.task_class == TaskClass::kNapiKthread && window_.Contains(event.ts_ns)) {
    Runner& runner = ChainOf(irq->second).runners[pid];
    ++runner.runs;
    RanOn(runner, pid, event.cpu);
  }
}

void NetPathPriorities::WorkOf(InterruptId irq, uint16_t cpu) {
  if (irq.x86_vector) ChainOf(irq).irq_cpus.Insert(cpu);
}

// A thread woken inside a traced hard IRQ serves that IRQ (its IRQ thread, or a NAPI kthread
// scheduled from the handler); a NAPI kthread woken by an IRQ thread serves that thread's IRQ.
void NetPathPriorities::OnWakeQueued(const WakeWaitFact& wait) {
  if (!wait.source.known() || context_ == nullptr) return;
  InterruptId irq = wait.source.irq;
  std::string_view comm = context_->strings.Get(wait.waking_comm);
  TaskClass woken = ClassifyTask(&context_->tasks, wait.pid, comm, wait.waking_prio);
  if (woken == TaskClass::kIrqThread && wait.source.in_hardirq) {
    if (!window_.Contains(wait.waking_ns)) return;
    Chain& chain = ChainOf(irq);
    chain.irq_thread = wait.pid;
    ++chain.irq_thread_runs;
  } else if (woken == TaskClass::kNapiKthread) {
    irq_of_napi_thread_[wait.pid] = irq;
    if (!window_.Contains(wait.waking_ns)) return;
    WorkOf(irq, wait.waker_cpu);
    Window opened;
    opened.irq = irq;
    opened.from_ns = wait.waking_ns;
    opened.since_ns = wait.waking_ns;
    opened.wait_id = wait.wait_id;
    Cpu(wait.queue_cpu).windows.push_back(std::move(opened));
    napi_wait_cpu_[wait.wait_id] = wait.queue_cpu;
  }
}

// A NAPI thread's work waits on the CPU it is queued on. An RT task's run on the old CPU that
// was still going on at the move is not counted (segments arrive when they end).
void NetPathPriorities::OnWakeMoved(uint64_t wait_id, uint16_t from_cpu, uint16_t to_cpu,
                                    TimestampNs ts_ns) {
  auto cpu = napi_wait_cpu_.find(wait_id);
  if (cpu == napi_wait_cpu_.end()) return;
  CpuState& from = Cpu(from_cpu);
  int index = FindWindow(from, wait_id);
  if (index < 0) return;
  Window moved = std::move(from.windows[static_cast<size_t>(index)]);
  from.windows.erase(from.windows.begin() + index);
  moved.since_ns = ts_ns;
  Cpu(to_cpu).windows.push_back(std::move(moved));
  cpu->second = to_cpu;
}

void NetPathPriorities::OnWakeRan(const WakeRunFact& run) {
  auto cpu = napi_wait_cpu_.find(run.wait_id);
  if (cpu == napi_wait_cpu_.end()) return;
  uint16_t cpu_index = cpu->second;
  napi_wait_cpu_.erase(cpu);
  int index = FindWindow(Cpu(cpu_index), run.wait_id);
  if (index < 0) return;
  CloseWindow(cpu_index, static_cast<size_t>(index), run.run_ns, run.pid, run.prio);
}

// Unknown (lost events, or it ran unseen): nothing is paired.
void NetPathPriorities::OnWakeDropped(uint64_t wait_id, WakeDropReason reason,
                                      TimestampNs ts_ns) {
  (void)reason, (void)ts_ns;
  auto cpu = napi_wait_cpu_.find(wait_id);
  if (cpu == napi_wait_cpu_.end()) return;
  CpuState& state = Cpu(cpu->second);
  napi_wait_cpu_.erase(cpu);
  int index = FindWindow(state, wait_id);
  if (index >= 0) state.windows.erase(state.windows.begin() + index);
}

// NET_RX raised in a hard IRQ or in its IRQ thread is that IRQ's work, waiting from now on.
void NetPathPriorities::OnSoftirqRaise(const SoftirqRaiseFact& raise) {
  if (raise.vec != kNetRx || !raise.source.known() || !window_.Contains(raise.raise_ns)) return;
  CpuState& cpu = Cpu(raise.cpu);
  if (FindWindow(cpu, 0) >= 0) return;
  InterruptId irq = raise.source.irq;
  WorkOf(irq, raise.cpu);
  Window opened;
  opened.irq = irq;
  opened.from_ns = raise.raise_ns;
  opened.since_ns = raise.raise_ns;
  cpu.windows.push_back(std::move(opened));
}

// The chain's NET_RX ran: at hard-IRQ exit (no runner thread) or in the task on the CPU.
void NetPathPriorities::OnSoftirqWait(const SoftirqWaitFact& wait) {
  if (wait.vec != kNetRx) return;
  CpuState& cpu = Cpu(wait.cpu);
  int index = FindWindow(cpu, 0);
  if (index < 0) return;
  bool at_irq_exit = wait.site == SoftirqSite::kIrqExit;
  int32_t runner_pid = at_irq_exit ? -1 : wait.task_pid;
  Runner& runner = ChainOf(cpu.windows[static_cast<size_t>(index)].irq).runners[runner_pid];
  ++runner.runs;
  RanOn(runner, runner_pid, wait.cpu);
  CloseWindow(wait.cpu, static_cast<size_t>(index), wait.entry_ns, runner_pid,
              at_irq_exit ? -1 : wait.task_prio);
}

void NetPathPriorities::OnSoftirqWaitDropped(const SoftirqRaiseFact& raise, TimestampNs gap_ns) {
  (void)gap_ns;
  if (raise.vec != kNetRx) return;
  CpuState& cpu = Cpu(raise.cpu);
  int index = FindWindow(cpu, 0);
  if (index >= 0) cpu.windows.erase(cpu.windows.begin() + index);
}

void NetPathPriorities::Switch(const Event& event) {
  const SchedSwitchFields& s = event.sched_switch;
  Seen& seen = seen_[s.next_pid];
  seen.comm = s.next_comm;
  seen.prio = s.next_prio;
  seen.cpus.Insert(event.cpu);
}

// The work ran (by `runner_pid` at `runner_prio`): RT tasks at or above the runner's priority
// that held the CPU meanwhile delayed it, each counted on the CPU it held.
void NetPathPriorities::CloseWindow(uint16_t cpu_index, size_t index, TimestampNs ts_ns,
                                    int32_t runner_pid, int16_t runner_prio) {
  CpuState& cpu = Cpu(cpu_index);
  Window window = std::move(cpu.windows[index]);
  cpu.windows.erase(cpu.windows.begin() + static_cast<std::ptrdiff_t>(index));
  Chain& chain = ChainOf(window.irq);
  ++chain.waits;
  chain.waited_ns += ts_ns - window.from_ns;
  if (runner_pid < 0) return;  // at hard-IRQ exit no task can hold it back
  int runner_rank = IsRtPrio(runner_prio) ? runner_prio : 100;
  std::map<int, int64_t> held_on;  // cpu -> RT time in this wait
  for (const auto& [key, ns] : window.rt_ns) {
    auto seen = seen_.find(key.second);
    if (seen == seen_.end() || seen->second.prio > runner_rank) continue;
    chain.held_on_cpu[key.first].by_pid[key.second] += ns;
    held_on[key.first] += ns;
  }
  int64_t held_ns = 0;
  for (const auto& [on, ns] : held_on) {
    HeldOnCpu& held = chain.held_on_cpu[on];
    if (held.waits++ == 0) held.first_from_ns = window.from_ns;
    held.last_to_ns = ts_ns;
    held.held_ns += ns;
    if (std::find(held.runners.begin(), held.runners.end(), runner_pid) == held.runners.end()) {
      held.runners.push_back(runner_pid);
    }
    if (ns > held.longest_ns) {
      held.longest_ns = ns;
      held.longest_from_ns = window.from_ns;
      held.longest_to_ns = ts_ns;
    }
    held_ns += ns;
  }
  if (held_ns > chain.worst_held_ns) {
    chain.worst_held_ns = held_ns;
    chain.worst_from_ns = window.from_ns;
    chain.worst_to_ns = ts_ns;
  }
}

void NetPathPriorities::OnSegment(const CpuSegment& segment) {
  const ContextFrame& frame = segment.frame;
  int64_t ns = segment.end_ns - segment.start_ns;
  if (ns <= 0 || !window_.Contains(segment.start_ns)) return;
  CpuState& cpu = Cpu(frame.cpu);
  if (frame.kind == ContextKind::kSoftirq && frame.vec == kNetRx) {
    // NET_RX time of that runner on a CPU where it ran a chain's work, for each such chain
    // (at hard-IRQ exit all IRQs of the CPU share the one "runner", so this is the CPU's
    // NET_RX time there).
    int32_t runner_pid = frame.site == SoftirqSite::kIrqExit ? -1 : frame.pid;
    auto runners = runners_on_cpu_.find(TaskOnCpu(runner_pid, frame.cpu));
    if (runners != runners_on_cpu_.end()) {
      for (Runner* runner : runners->second) runner->busy_ns += ns;
    }
    return;
  }
  if (frame.kind != ContextKind::kTask || frame.pid <= 0) return;
  if (frame.task_class == TaskClass::kNapiKthread) {
    auto irq = irq_of_napi_thread_.find(frame.pid);
    if (irq != irq_of_napi_thread_.end()) ChainOf(irq->second).runners[frame.pid].busy_ns += ns;
    return;
  }
  if (!IsRtPrio(frame.prio) || ServesSoftirqs(frame.task_class)) return;
  cpu.rt_run_ns[frame.pid] += ns;
  for (Window& window : cpu.windows) {
    TimestampNs from = std::max(segment.start_ns, window.since_ns);
    if (segment.end_ns > from) window.rt_ns[{frame.cpu, frame.pid}] += segment.end_ns - from;
  }
}

NetPathThread NetPathPriorities::ThreadOf(int32_t pid, std::string_view role, int64_t runs) const {
  NetPathThread thread;
  thread.pid = pid;
  thread.role = std::string(role);
  thread.runs = runs;
  if (pid < 0) {
    thread.comm = "(hard-IRQ exit)";
    return thread;
  }
  auto seen = seen_.find(pid);
  if (seen != seen_.end()) {
    thread.prio = seen->second.prio;
    thread.cpus = seen->second.cpus.values();
    if (context_ != nullptr) thread.comm = std::string(context_->strings.Get(seen->second.comm));
  }
  if (thread.comm.empty() && context_ != nullptr) {
    thread.comm = std::string(context_->strings.Get(context_->tasks.CommOf(pid)));
  }
  thread.rt_priority = RtPriorityOf(thread.prio);
  return thread;
}

std::vector<NetPathRow> NetPathPriorities::Rows() const {
  std::vector<NetPathRow> rows;
  for (const auto& [irq, chain] : chains_) {
    if (chain.runners.empty()) continue;  // not a network IRQ, or its work never ran
    NetPathRow row;
    row.irq = irq;
    if (context_ != nullptr) row.handler = std::string(context_->strings.Get(chain.handler));
    row.irq_cpus = chain.irq_cpus.values();
    row.hardirqs = chain.hardirqs;
    for (int cpu : row.irq_cpus) {
      if (static_cast<size_t>(cpu) < chain.vector_entries.size()) {
        row.hardirqs += chain.vector_entries[static_cast<size_t>(cpu)];
      }
    }
    row.irq_thread = ThreadOf(chain.irq_thread, "irq_thread", chain.irq_thread_runs);
    if (chain.irq_thread < 0) row.irq_thread.comm = "(not threaded)";
    CpuSet cpus = chain.irq_cpus;
    cpus.InsertAll(row.irq_thread.cpus);
    for (const auto& [pid, runner] : chain.runners) {
      std::string role = "irq_exit";
      if (pid >= 0) {
        auto seen = seen_.find(pid);
        std::string_view comm =
            seen != seen_.end() && context_ ? context_->strings.Get(seen->second.comm) : "";
        int prio = seen != seen_.end() ? seen->second.prio : -1;
        TaskClass task_class =
            ClassifyTask(context_ ? &context_->tasks : nullptr, pid, comm, prio);
        role = std::string(SoftirqSiteName(SoftirqSiteOfTask(task_class)));
      }
      NetPathThread thread = ThreadOf(pid, role, runner.runs);
      thread.cpus = runner.cpus.values();
      thread.busy_ns = runner.busy_ns;
      cpus.InsertAll(runner.cpus);
      row.runners.push_back(std::move(thread));
    }
    std::stable_sort(row.runners.begin(), row.runners.end(),
                     [](const NetPathThread& a, const NetPathThread& b) { return a.runs > b.runs; });
    int irq_rt = row.irq_thread.pid >= 0 ? row.irq_thread.rt_priority : -1;
    int runner_rt = row.runners.front().pid >= 0 ? row.runners.front().rt_priority : 100;
    int top = std::max(irq_rt, runner_rt), bottom = irq_rt >= 0 ? std::min(irq_rt, runner_rt)
                                                                : runner_rt;
    std::map<int32_t, int64_t> rt_ns;
    for (int cpu : cpus) {
      if (cpu < 0 || static_cast<size_t>(cpu) >= cpus_.size()) continue;
      for (const auto& [pid, ns] : cpus_[cpu].rt_run_ns) rt_ns[pid] += ns;
    }
    for (const auto& [pid, ns] : rt_ns) {
      NetPathThread seen = ThreadOf(pid, "", 0);
      NetPathRtTask task;
      task.pid = pid;
      task.comm = seen.comm;
      task.prio = seen.prio;
      task.rt_priority = seen.rt_priority;
      task.position = task.rt_priority > top ? "above" : task.rt_priority > bottom ? "between"
                                                                                   : "below";
      task.run_ns = ns;
      for (const auto& [on, held] : chain.held_on_cpu) {
        auto by_pid = held.by_pid.find(pid);
        if (by_pid != held.by_pid.end()) task.held_while_waiting_ns += by_pid->second;
      }
      row.rt_tasks.push_back(std::move(task));
    }
    std::stable_sort(row.rt_tasks.begin(), row.rt_tasks.end(),
                     [](const NetPathRtTask& a, const NetPathRtTask& b) {
                       return a.rt_priority > b.rt_priority;
                     });
    row.waits = chain.waits;
    row.waited_ns = chain.waited_ns;
    row.worst_held_from_ns = chain.worst_from_ns;
    row.worst_held_to_ns = chain.worst_to_ns;
    for (const NetPathThread& runner : row.runners) {
      bool shares_cpu = std::any_of(runner.cpus.begin(), runner.cpus.end(), [&](int cpu) {
        return std::find(row.irq_thread.cpus.begin(), row.irq_thread.cpus.end(), cpu) !=
               row.irq_thread.cpus.end();
      });
      if (row.irq_thread.pid >= 0 && runner.pid >= 0 && runner.pid != row.irq_thread.pid &&
          runner.prio == row.irq_thread.prio && shares_cpu) {
        row.same_priority = true;
      }
    }
    for (const NetPathRtTask& task : row.rt_tasks) row.starved |= task.held_while_waiting_ns > 0;
    for (const auto& [on, held] : chain.held_on_cpu) {
      NetPathHeldCpu out;
      out.cpu = on;
      out.waits = held.waits;
      out.held_ns = held.held_ns;
      out.longest_ns = held.longest_ns;
      out.longest_from_ns = held.longest_from_ns;
      out.longest_to_ns = held.longest_to_ns;
      out.first_from_ns = held.first_from_ns;
      out.last_to_ns = held.last_to_ns;
      out.runners = held.runners;
      for (const auto& [pid, ns] : held.by_pid) {
        NetPathThread seen = ThreadOf(pid, "", 0);
        out.holders.push_back({pid, seen.comm, seen.rt_priority, ns});
      }
      std::stable_sort(out.holders.begin(), out.holders.end(),
                       [](const NetPathHolder& a, const NetPathHolder& b) {
                         return a.held_ns > b.held_ns;
                       });
      if (out.held_ns > 0) row.held_by_cpu.push_back(std::move(out));
    }
    rows.push_back(std::move(row));
  }
  return rows;
}

}  // namespace napiscope::internal
