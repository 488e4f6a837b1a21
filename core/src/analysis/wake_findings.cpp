// rt-wake-latency and softirq-starvation: what held the CPU while a thread or softirq waited.
#include <map>

#include <fmt/format.h>

#include "analysis/held_evidence.h"
#include "analysis/napi_rt_findings.h"
#include "napiscope/format.h"
#include "napiscope/phrasing.h"

namespace napiscope::internal {
namespace {

// Holders shown in a sentence.
constexpr size_t kHoldersInSentence = 3;

// "softirq NET_RX 250 us (80%), iperf3 (pid 9918) 20 us (6%, a lower-priority task that could
// not be preempted)"
std::string Holders(const std::vector<BlameItem>& blame, int64_t total_ns, int16_t woken_prio) {
  std::string text;
  for (size_t i = 0; i < blame.size() && i < kHoldersInSentence; ++i) {
    text += fmt::format("{}{}", i == 0 ? "" : ", ", DescribeWakeHolder(blame[i], total_ns,
                                                                       woken_prio));
  }
  return text.empty() ? std::string("nothing recorded") : text;
}

// An x86 vector is a per-CPU interrupt: there is no /proc/irq/N to move it with.
std::string VectorAdvice(const BlameItem& top, int cpu) {
  std::string held =
      fmt::format("The {} held CPU{}, a per-CPU interrupt that /proc/irq cannot move: ",
                  DescribeBlameHolder(top), cpu);
  if (top.name == "local_timer") {
    return held +
           "timer callbacks ran in it (timer:hrtimer_expire_entry names them); nohz_full keeps "
           "the tick off a CPU that runs one task.";
  }
  if (top.name == "reschedule" || top.name.starts_with("call_function")) {
    return held +
           "other CPUs sent it (wakeups, smp_call_function, TLB shootdowns); keep their work "
           "off this CPU (isolcpus, housekeeping CPUs).";
  }
  return held + fmt::format("irq_vectors:{}_entry marks each one.", top.name);
}

// A softirq held the CPU: the network's can follow its IRQs elsewhere; a timer vector runs
// callbacks that the CPU's own work armed; other vectors are named by their raises.
std::string SoftirqAdvice(const BlameItem& top, bool napi_poll, int cpu) {
  if (napi_poll || top.vec == kNetRx || top.vec == kNetTx) {
    return fmt::format(
        "Softirq work ran ahead of it on CPU{}: keep network IRQs (and with them NET_RX) off "
        "this CPU via /proc/irq/N/smp_affinity_list, or move the polling into threads "
        "(threaded NAPI, PREEMPT_RT) placed elsewhere.",
        cpu);
  }
  if (top.vec == kHrtimer || top.vec == kTimer) {
    return fmt::format(
        "Timer callbacks ran ahead of it on CPU{} in softirq {}: timer:{}_expire_entry names "
        "them; move the work that arms them (a busy TCP sender's pacing, for one) off this CPU.",
        cpu, VectorLabel(top.vec), top.vec == kHrtimer ? "hrtimer" : "timer");
  }
  return fmt::format(
      "Softirq {} ran ahead of it on CPU{}: softirq_raise events show what raised it there; "
      "move that work off this CPU.",
      VectorLabel(top.vec), cpu);
}

// What to look at, from what held the CPU longest in the worst wakeup (`silent_ns`: the
// longest stretch of it in which the CPU recorded no event at all).
std::string Advice(const BlameItem& top, int16_t woken_prio, int cpu, int64_t silent_ns) {
  std::string_view role = WakeBlameRole(top, woken_prio);
  if (role == "softirq" || role == "napi_poll") return SoftirqAdvice(top, role == "napi_poll", cpu);
  if (role == "hardirq" && top.irq.x86_vector) return VectorAdvice(top, cpu);
  if (role == "hardirq") {
    return fmt::format(
        "Hard IRQ {} ({}) held CPU{}: move it with /proc/irq/{}/smp_affinity_list "
        "or thread it.",
        top.name, top.irq.number, cpu, top.irq.number);
  }
  if (role == "higher_prio") {
    return fmt::format(
        "{} runs at the same or a higher priority on CPU{}: lower it or move it "
        "(chrt, taskset).",
        DescribeBlameHolder(top), cpu);
  }
  if ((role == "lower_prio" || role == "task") && silent_ns > 0 && silent_ns * 2 >= top.time_ns) {
    // Nothing recorded, not even an interrupt: the task may not have run at all.
    return fmt::format(
        "CPU{} recorded no event at all for {} of it: either {} ran with interrupts or "
        "preemption disabled (the irqsoff/preemptoff tracers show where), or, on a VM, the vCPU "
        "did not run (steal time, the 'st' of vmstat or /proc/stat, or the host's trace tells "
        "them apart).",
        cpu, FormatDuration(silent_ns), DescribeBlameHolder(top));
  }
  if (role == "lower_prio" || role == "task") {
    return fmt::format(
        "{} kept CPU{} although it is less urgent: a section with preemption or "
        "interrupts disabled; the irqsoff/preemptoff tracers show where.",
        DescribeBlameHolder(top), cpu);
  }
  if (role == "idle") {
    return fmt::format("CPU{} was idle: the time is the exit from an idle state; limit deep "
                       "C-states (PM QoS /dev/cpu_dma_latency, intel_idle.max_cstate).",
                       cpu);
  }
  return "";
}

int64_t RtTaskTime(const std::vector<BlameItem>& blame, int32_t except_pid, int16_t at_most_prio,
                   std::vector<const BlameItem*>* tasks) {
  int64_t total = 0;
  for (const BlameItem& item : blame) {
    bool rt = item.kind == ContextKind::kTask && item.pid != 0 && item.pid != except_pid &&
              item.prio >= 0 && item.prio < 100 && (at_most_prio < 0 || item.prio <= at_most_prio);
    // Threads that serve softirqs do the waiting work; they are not what starves it.
    if (!rt || ServesSoftirqs(item.task_class)) continue;
    total += item.time_ns;
    tasks->push_back(&item);
  }
  return total;
}

// Of a row's longest waits, the one in which RT tasks held the CPU longest (nullptr if none).
template <typename Wait>
struct MostRt {
  const Wait* wait = nullptr;
  int64_t rt_ns = 0;
  std::vector<const BlameItem*> tasks;
};

template <typename Wait>
MostRt<Wait> MostRtTime(const std::vector<Wait>& waits, int32_t except_pid, int16_t at_most) {
  MostRt<Wait> most;
  for (const Wait& wait : waits) {
    std::vector<const BlameItem*> tasks;
    int64_t rt_ns = RtTaskTime(wait.blame, except_pid, at_most, &tasks);
    if (rt_ns <= most.rt_ns) continue;
    most = {&wait, rt_ns, std::move(tasks)};
  }
  return most;
}

// evidence.holders of the tasks a sentence names (TaskList's), on `cpu` within the wait.
nlohmann::json NamedTasks(const std::vector<const BlameItem*>& tasks, int cpu, TimestampNs from_ns,
                          TimestampNs to_ns) {
  nlohmann::json named = nlohmann::json::array();
  for (size_t i = 0; i < tasks.size() && i < kHoldersInSentence; ++i) {
    named.push_back(HeldByBlameItem(cpu, from_ns, to_ns, *tasks[i]));
  }
  return named;
}

std::string TaskList(const std::vector<const BlameItem*>& tasks) {
  std::string text;
  for (size_t i = 0; i < tasks.size() && i < kHoldersInSentence; ++i) {
    text += fmt::format("{}{} {}", i == 0 ? "" : ", ", DescribeBlameHolder(*tasks[i]),
                        FormatDuration(tasks[i]->time_ns));
  }
  return text;
}

constexpr std::string_view kStarvationAdvice =
    "Softirq work that waits for a thread cannot run while busier RT tasks keep the CPU: give "
    "the threads that serve it (ksoftirqd, irq/N-*, napi/*) a priority above the RT "
    "application (chrt -f -p PRIO PID; hard-IRQ threads above softirq threads), or keep the RT "
    "application off the CPUs that handle network IRQs (taskset, smp_affinity_list).";

Severity StarvationSeverity(int64_t rt_ns, const Thresholds& t) {
  return t.softirq_starvation_error_ns > 0 && rt_ns >= t.softirq_starvation_error_ns
             ? Severity::kError
             : Severity::kWarning;
}

}  // namespace

void RtWakeLatencyFindings(const std::vector<WakeLatencyRow>& rows, const Thresholds& t,
                           std::vector<Finding>* findings) {
  if (t.rt_wake_latency_warning_ns <= 0) return;
  for (const WakeLatencyRow& row : rows) {
    if (row.policy != SchedPolicyClass::kRealtime ||
        row.latency.max_ns <= t.rt_wake_latency_warning_ns || row.worst.empty()) {
      continue;
    }
    const WakeLatencySample& worst = row.worst.front();
    Finding finding;
    finding.rule = "rt-wake-latency";
    finding.severity = t.rt_wake_latency_error_ns > 0 &&
                               row.latency.max_ns > t.rt_wake_latency_error_ns
                           ? Severity::kError
                           : Severity::kWarning;
    finding.cpu = row.cpu;
    finding.start_ns = worst.waking_ns;
    finding.end_ns = worst.switch_in_ns;
    std::string unknown = worst.unknown_ns > 0
                              ? fmt::format(", {} unknown (lost events or missing switches)",
                                            FormatDuration(worst.unknown_ns))
                              : std::string();
    finding.summary = fmt::format(
        "{} on CPU{} ran up to {} after its wakeup (p99 {}, {}); in the worst, woken "
        "from CPU{}, CPU{} was held by {}{}. {}",
        DescribeTask(row.pid, row.comm, row.prio), row.cpu, FormatDuration(row.latency.max_ns),
        FormatDuration(row.latency.p99_ns), Counted(row.latency.count, "wakeup"), worst.waker_cpu,
        row.cpu, Holders(worst.blame, worst.latency_ns, row.prio), unknown,
        worst.blame.empty() ? "" : Advice(worst.blame.front(), row.prio, row.cpu,
                                          worst.silent_ns));
    nlohmann::json blame = nlohmann::json::array(), named = nlohmann::json::array();
    for (const BlameItem& item : worst.blame) {
      blame.push_back({{"holder", DescribeBlameHolder(item)},
                       {"role", std::string(WakeBlameRole(item, row.prio))},
                       {"time_ns", item.time_ns}});
      nlohmann::json held = HeldByBlameItem(row.cpu, worst.waking_ns, worst.switch_in_ns, item);
      if (named.size() < kHoldersInSentence && !held.is_null()) named.push_back(held);
    }
    finding.pid = row.pid;
    finding.evidence = {{"pid", row.pid},         {"comm", row.comm},
                        {"prio", row.prio},       {"count", row.latency.count},
                        {"p99_ns", row.latency.p99_ns}, {"max_ns", row.latency.max_ns},
                        {"max_at_ns", worst.waking_ns}, {"unknown_ns", worst.unknown_ns},
                        {"silent_ns", worst.silent_ns},
                        {"blame", blame},         {"holders", named}};
    findings->push_back(std::move(finding));
  }
}

void SoftirqStarvationFindings(const std::vector<SoftirqLatencyRow>& softirq_rows,
                               const std::vector<WakeLatencyRow>& wake_rows, const Thresholds& t,
                               std::vector<Finding>* findings) {
  if (t.softirq_starvation_warning_ns <= 0) return;
  for (const SoftirqLatencyRow& row : softirq_rows) {
    // The worst wait of the (cpu, vec) by RT time in it, one finding per row.
    auto [worst, worst_rt_ns, worst_tasks] = MostRtTime(row.worst, -1, -1);
    if (worst == nullptr || worst_rt_ns < t.softirq_starvation_warning_ns) continue;
    Finding finding;
    finding.rule = "softirq-starvation";
    finding.severity = StarvationSeverity(worst_rt_ns, t);
    finding.cpu = row.cpu;
    finding.start_ns = worst->raise_ns;
    finding.end_ns = worst->entry_ns;
    finding.summary = fmt::format(
        "{} raised on CPU{} waited {} to run ({}), {} of it behind RT tasks: {}. {}",
        VectorLabel(row.vec), row.cpu, FormatDuration(worst->delay_ns),
        SoftirqSiteName(worst->ran_in), FormatDuration(worst_rt_ns), TaskList(worst_tasks),
        kStarvationAdvice);
    finding.vec = static_cast<int32_t>(row.vec);
    finding.evidence = {{"vec", row.vec},
                        {"raise_ns", worst->raise_ns},
                        {"delay_ns", worst->delay_ns},
                        {"rt_tasks_ns", worst_rt_ns},
                        {"ran_in", std::string(SoftirqSiteName(worst->ran_in))},
                        {"holders",
                         NamedTasks(worst_tasks, row.cpu, worst->raise_ns, worst->entry_ns)}};
    findings->push_back(std::move(finding));
  }
  for (const WakeLatencyRow& row : wake_rows) {
    if (!ServesSoftirqs(row.task_class)) continue;
    // Only tasks it could not preempt: as urgent or more (any RT task for a normal thread).
    int16_t at_most = row.policy == SchedPolicyClass::kRealtime ? row.prio : int16_t{-1};
    auto [worst, worst_rt_ns, worst_tasks] = MostRtTime(row.worst, row.pid, at_most);
    if (worst == nullptr || worst_rt_ns < t.softirq_starvation_warning_ns) continue;
    Finding finding;
    finding.rule = "softirq-starvation";
    finding.severity = StarvationSeverity(worst_rt_ns, t);
    finding.cpu = row.cpu;
    finding.start_ns = worst->waking_ns;
    finding.end_ns = worst->switch_in_ns;
    finding.summary = fmt::format(
        "{}{} waited {} on CPU{} after its wakeup, {} of it behind RT tasks it cannot "
        "preempt: {}. {}",
        DescribeTask(row.pid, row.comm, row.prio),
        row.policy == SchedPolicyClass::kRealtime ? "" : " at normal priority",
        FormatDuration(worst->latency_ns), row.cpu, FormatDuration(worst_rt_ns),
        TaskList(worst_tasks), kStarvationAdvice);
    finding.pid = row.pid;
    finding.evidence = {{"pid", row.pid},
                        {"comm", row.comm},
                        {"prio", row.prio},
                        {"waking_ns", worst->waking_ns},
                        {"latency_ns", worst->latency_ns},
                        {"rt_tasks_ns", worst_rt_ns},
                        {"holders", NamedTasks(worst_tasks, row.cpu, worst->waking_ns,
                                               worst->switch_in_ns)}};
    findings->push_back(std::move(finding));
  }
}

}  // namespace napiscope::internal
