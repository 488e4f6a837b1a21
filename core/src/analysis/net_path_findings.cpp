// net-path-priority: the NIC IRQ's chain (hard IRQ -> IRQ thread -> NET_RX runner) starved by
// RT tasks or flattened to one priority, with the chrt commands that order it.
#include <algorithm>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "analysis/held_evidence.h"
#include "analysis/net_path_priorities.h"
#include "napiscope/format.h"
#include "napiscope/phrasing.h"

namespace napiscope::internal {
namespace {

std::string Policy(const NetPathThread& thread) {
  return thread.rt_priority > 0 ? fmt::format("RT priority {}", thread.rt_priority)
                                : std::string("SCHED_OTHER");
}

std::string Named(const NetPathThread& thread) {
  return fmt::format("{} (pid {}, {})", thread.comm, thread.pid, Policy(thread));
}

std::string Chrt(int rt_priority, const NetPathThread& thread) {
  return fmt::format("chrt -f -p {} {}", rt_priority, thread.pid);
}

std::string CpuList(const std::vector<int>& cpus) {
  std::vector<std::string> names;
  for (int cpu : cpus) names.push_back(fmt::format("CPU{}", cpu));
  return fmt::format("{}", fmt::join(names, ", "));
}

// What the new order costs: the RT tasks that end up below the runner wait for its work.
std::string Cost(const NetPathRow& row, const NetPathThread& runner, int below_from,
                 int below_to) {
  std::vector<std::string> tasks;
  for (const NetPathRtTask& task : row.rt_tasks) {
    if (task.rt_priority >= below_from && task.rt_priority < below_to) {
      tasks.push_back(fmt::format("{} (pid {}, RT {})", task.comm, task.pid, task.rt_priority));
    }
  }
  if (tasks.empty()) return "No other RT task ran between those priorities on these CPUs.";
  int64_t per_run = runner.runs > 0 ? runner.busy_ns / runner.runs : 0;
  return fmt::format("{} would then wait behind that work: {} over the trace, {} per run on "
                     "average.",
                     fmt::join(tasks, ", "), FormatDuration(runner.busy_ns),
                     FormatDuration(per_run));
}

Finding Base(const NetPathRow& row, const NetPathThread& runner) {
  Finding finding;
  finding.rule = "net-path-priority";
  finding.cpu = runner.cpus.size() == 1 ? runner.cpus.front() : -1;
  finding.irq = row.irq;
  finding.evidence = {{"irq", row.irq.number},
                      {"handler", row.handler},
                      {"irq_thread_pid", row.irq_thread.pid},
                      {"irq_thread_prio", row.irq_thread.prio},
                      {"runner_pid", runner.pid},
                      {"runner_prio", runner.prio},
                      {"runner_role", runner.role}};
  return finding;
}

}  // namespace

void NetPathFindings(const std::vector<NetPathRow>& rows, const Thresholds& thresholds,
                     std::vector<Finding>* findings) {
  for (const NetPathRow& row : rows) {
    const NetPathThread& runner = row.runners.front();
    if (runner.pid < 0) continue;  // NET_RX at hard-IRQ exit: no thread to order
    bool irq_thread_apart = row.irq_thread.pid >= 0 && row.irq_thread.pid != runner.pid;
    // Per CPU: the waits there, each holder with its time on that CPU.
    int64_t held_ns = 0, waits = 0, longest_ns = 0;
    int highest_holder = 0;
    std::vector<int32_t> held_runners;
    std::vector<std::string> per_cpu;
    nlohmann::json by_cpu = nlohmann::json::array(), named = nlohmann::json::array();
    std::vector<int> cpus;
    for (const NetPathHeldCpu& on : row.held_by_cpu) {
      held_ns += on.held_ns;
      waits += on.waits;
      longest_ns = std::max(longest_ns, on.longest_ns);
      cpus.push_back(on.cpu);
      std::vector<std::string> holders, runner_names;
      nlohmann::json holder_json = nlohmann::json::array();
      for (const NetPathHolder& holder : on.holders) {
        highest_holder = std::max(highest_holder, holder.rt_priority);
        holders.push_back(fmt::format("{} (pid {}, RT {}) {}", holder.comm, holder.pid,
                                      holder.rt_priority, FormatDuration(holder.held_ns)));
        holder_json.push_back({{"pid", holder.pid}, {"held_ns", holder.held_ns}});
        named.push_back(HeldByTask(on.cpu, on.first_from_ns, on.last_to_ns, holder.pid,
                                   holder.held_ns));
      }
      for (int32_t pid : on.runners) {
        if (std::find(held_runners.begin(), held_runners.end(), pid) == held_runners.end()) {
          held_runners.push_back(pid);
        }
        auto thread = std::find_if(row.runners.begin(), row.runners.end(),
                                   [&](const NetPathThread& t) { return t.pid == pid; });
        runner_names.push_back(thread == row.runners.end() ? fmt::format("pid {}", pid)
                                                           : Named(*thread));
      }
      per_cpu.push_back(fmt::format("on CPU{}, {} waited {} in {} (longest {}) behind {}",
                                    on.cpu, fmt::join(runner_names, " and "),
                                    FormatDuration(on.held_ns), Counted(on.waits, "wait"),
                                    FormatDuration(on.longest_ns), fmt::join(holders, ", ")));
      by_cpu.push_back({{"cpu", on.cpu},
                        {"waits", on.waits},
                        {"held_ns", on.held_ns},
                        {"longest_ns", on.longest_ns},
                        {"runners", on.runners},
                        {"holders", holder_json}});
    }
    if (held_ns >= thresholds.softirq_starvation_warning_ns) {
      Finding finding = Base(row, runner);
      finding.severity = held_ns >= thresholds.softirq_starvation_error_ns ? Severity::kError
                                                                           : Severity::kWarning;
      finding.cpu = cpus.size() == 1 ? cpus.front() : -1;
      if (cpus.size() > 1) finding.other_cpus = cpus;
      int new_runner = highest_holder + 1;
      int new_irq = irq_thread_apart ? std::max(row.irq_thread.rt_priority, new_runner + 1) : 0;
      std::vector<std::string> commands;
      if (new_runner <= 98 && new_irq <= 99) {
        if (irq_thread_apart && new_irq != row.irq_thread.rt_priority) {
          commands.push_back(Chrt(new_irq, row.irq_thread));
        }
        // Each runner thread whose wait was held (the busiest when none is known).
        size_t before = commands.size();
        for (const NetPathThread& thread : row.runners) {
          bool held = std::find(held_runners.begin(), held_runners.end(), thread.pid) !=
                      held_runners.end();
          if (held && thread.pid >= 0 && thread.pid != row.irq_thread.pid) {
            commands.push_back(Chrt(new_runner, thread));
          }
        }
        if (commands.size() == before) commands.push_back(Chrt(new_runner, runner));
      }
      std::string order =
          commands.empty()
              ? "they already run at the top RT priorities: keep the RT tasks off these CPUs "
                "instead (taskset, isolcpus)."
              : fmt::format("order the chain above them: {}.", fmt::join(commands, "; "));
      finding.summary = fmt::format(
          "{} ({}): its {} work waited behind RT tasks at or above its runner {} in total over "
          "{} (the longest single hold {}): {}; {} {}",
          InterruptLabel(row.irq), row.handler, runner.role, FormatDuration(held_ns),
          Counted(waits, "wait"), FormatDuration(longest_ns),
          fmt::join(per_cpu, "; "), order,
          commands.empty() ? "" : Cost(row, runner, runner.rt_priority, new_runner));
      finding.start_ns = row.worst_held_from_ns;  // where to look: the longest held wait
      finding.end_ns = row.worst_held_to_ns;
      finding.evidence["held_ns"] = held_ns;
      finding.evidence["waits"] = waits;
      finding.evidence["longest_held_ns"] = longest_ns;
      finding.evidence["held_by_cpu"] = by_cpu;
      finding.evidence["holders"] = named;
      finding.evidence["commands"] = commands;
      findings->push_back(std::move(finding));
    } else if (row.same_priority) {
      Finding finding = Base(row, runner);
      finding.severity = Severity::kWarning;
      int new_irq = row.irq_thread.rt_priority + 1;
      std::vector<std::string> commands;
      if (new_irq <= 99) commands.push_back(Chrt(new_irq, row.irq_thread));
      finding.summary = fmt::format(
          "{} ({}): {} and its NET_RX runner {} share one priority on {}, so the runner "
          "waits behind the next interrupt's thread. Put the IRQ thread above it, as the "
          "2.6.26-rt forwarding advice did (85 and 75 instead of 50 and 50): {}. {}",
          InterruptLabel(row.irq), row.handler, Named(row.irq_thread), Named(runner),
          CpuList(runner.cpus),
          commands.empty() ? std::string("lower the runner instead")
                           : fmt::format("{}", fmt::join(commands, "; ")),
          Cost(row, row.irq_thread, row.irq_thread.rt_priority, new_irq + 1));
      finding.evidence["commands"] = commands;
      findings->push_back(std::move(finding));
    }
  }
}

}  // namespace napiscope::internal
