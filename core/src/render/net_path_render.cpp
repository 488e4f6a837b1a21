#include "render/net_path_render.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "napiscope/format.h"
#include "napiscope/phrasing.h"
#include "render/report_text_parts.h"
#include "render/text_layout.h"

namespace napiscope::internal {
namespace {

using nlohmann::json;

json ThreadJson(const NetPathThread& thread) {
  return {{"pid", thread.pid},         {"comm", thread.comm},   {"prio", thread.prio},
          {"rt_priority", thread.rt_priority}, {"role", thread.role}, {"runs", thread.runs},
          {"busy_ns", thread.busy_ns}, {"cpus", thread.cpus}};
}

std::string PolicyText(int16_t prio, int rt_priority) {
  if (prio < 0) return "?";
  return rt_priority > 0 ? fmt::format("RT {}", rt_priority) : std::string("OTHER");
}

std::string ThreadText(const NetPathThread& thread) {
  if (thread.pid < 0) return thread.comm;
  return fmt::format("{} ({}, {})", thread.comm, thread.pid, PolicyText(thread.prio,
                                                                         thread.rt_priority));
}

// `prefix` then `text` on one line when it fits in `width`, else wrapped under the prefix's end
// (only then: the one-line form keeps its spacing).
void AddWrapped(const std::string& prefix, const std::string& text, size_t width,
                std::vector<std::string>& lines) {
  if (width == 0 || prefix.size() + text.size() <= width) {
    lines.push_back(prefix + text);
    return;
  }
  for (std::string& line : Wrap(text, width, prefix, std::string(prefix.size() + 2, ' '))) {
    lines.push_back(std::move(line));
  }
}

}  // namespace

void AddNetPathJson(const Report& report, json& out) {
  json rows = json::array();
  for (const NetPathRow& row : report.net_path) {
    json runners = json::array();
    for (const NetPathThread& runner : row.runners) runners.push_back(ThreadJson(runner));
    json rt_tasks = json::array();
    for (const NetPathRtTask& task : row.rt_tasks) {
      rt_tasks.push_back({{"pid", task.pid},
                          {"comm", task.comm},
                          {"prio", task.prio},
                          {"rt_priority", task.rt_priority},
                          {"position", task.position},
                          {"run_ns", task.run_ns},
                          {"held_while_waiting_ns", task.held_while_waiting_ns}});
    }
    json held_by_cpu = json::array();
    for (const NetPathHeldCpu& on : row.held_by_cpu) {
      json holders = json::array();
      for (const NetPathHolder& holder : on.holders) {
        holders.push_back({{"pid", holder.pid},
                           {"comm", holder.comm},
                           {"rt_priority", holder.rt_priority},
                           {"held_ns", holder.held_ns}});
      }
      held_by_cpu.push_back({{"cpu", on.cpu},
                             {"waits", on.waits},
                             {"held_ns", on.held_ns},
                             {"longest_ns", on.longest_ns},
                             {"longest_from_ns", on.longest_from_ns},
                             {"longest_to_ns", on.longest_to_ns},
                             {"runners", on.runners},
                             {"holders", holders}});
    }
    rows.push_back({{"irq", row.irq.number},
                    {"x86_vector", row.irq.x86_vector},
                    {"handler", row.handler},
                    {"irq_cpus", row.irq_cpus},
                    {"hardirqs", row.hardirqs},
                    {"irq_thread", ThreadJson(row.irq_thread)},
                    {"runners", runners},
                    {"rt_tasks", rt_tasks},
                    {"waits", row.waits},
                    {"waited_ns", row.waited_ns},
                    {"same_priority", row.same_priority},
                    {"starved", row.starved},
                    {"held_by_cpu", held_by_cpu}});
  }
  out["net_path"] = rows;
}

std::vector<std::string> NetPathText(const Report& report, const TextReportOptions& options) {
  std::vector<std::string> lines;
  // An analysis that could not run has no table; "lost and missing events" says why.
  if (report.net_path.empty() || !NotAvailableReason(report, "net_path").empty()) return lines;
  lines.push_back("");
  for (std::string& line : Wrap("network path priorities (hard IRQ -> IRQ thread -> NET_RX "
                                "runner; RT tasks on the same CPUs):",
                                options.width, "")) {
    lines.push_back(std::move(line));
  }
  for (const NetPathRow& row : report.net_path) {
    std::vector<std::string> runners;
    for (const NetPathThread& runner : row.runners) {
      runners.push_back(fmt::format("{} in {} x{}", ThreadText(runner), runner.role, runner.runs));
    }
    std::string chain = fmt::format(
        "{} {} (CPU {}) -> {} -> {}{}{}", InterruptLabel(row.irq), row.handler,
        fmt::join(row.irq_cpus, ","), ThreadText(row.irq_thread), fmt::join(runners, " / "),
        row.same_priority ? "  [same priority]" : "", row.starved ? "  [starved]" : "");
    AddWrapped("  ", chain, options.width, lines);
    for (const NetPathRtTask& task : row.rt_tasks) {
      AddWrapped(
          fmt::format("    {:<8} ", task.position),
          fmt::format("{} ({}, {}): ran {}, held the CPU {} while the work waited", task.comm,
                      task.pid, PolicyText(task.prio, task.rt_priority),
                      FormatDuration(task.run_ns), FormatDuration(task.held_while_waiting_ns)),
          options.width, lines);
    }
  }
  return lines;
}

std::string NetPathSummaryLine(const Report& report) {
  if (report.net_path.empty()) {
    // NET_RX that ran all the same was raised in tasks (loopback, netif_rx) or softirqs: say
    // so, or the line reads as if no packet was received.
    int64_t net_rx_runs = 0;
    for (const SoftirqRuntimeRow& row : report.softirq_runtime) {
      if (row.vec == kNetRx) net_rx_runs += row.run.count;
    }
    if (net_rx_runs == 0) return "no NIC IRQ's NET_RX or NAPI work was seen running";
    return fmt::format(
        "no NIC IRQ's NET_RX or NAPI work was seen running (NET_RX ran {} "
        "time{}, none of it traced to a hard IRQ)",
        net_rx_runs, net_rx_runs == 1 ? "" : "s");
  }
  int64_t starved = 0, same_priority = 0, vectors = 0;
  for (const NetPathRow& row : report.net_path) {
    starved += row.starved ? 1 : 0;
    same_priority += row.same_priority ? 1 : 0;
    vectors += row.irq.x86_vector ? 1 : 0;
  }
  std::vector<std::string> chains;
  int64_t devices = static_cast<int64_t>(report.net_path.size()) - vectors;
  if (devices > 0) {
    chains.push_back(fmt::format("{} NIC IRQ chain{}", devices, devices == 1 ? "" : "s"));
  }
  if (vectors > 0) {
    chains.push_back(fmt::format("{} x86 vector chain{}", vectors, vectors == 1 ? "" : "s"));
  }
  return fmt::format(
      "{}, {} starved by RT tasks, {} with the IRQ thread and its NET_RX runner "
      "at one priority",
      fmt::join(chains, " and "), starved, same_priority);
}

}  // namespace napiscope::internal
