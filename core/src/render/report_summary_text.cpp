// `report --summary`: one line per analysis with its headline numbers.
#include <algorithm>

#include <fmt/format.h>

#include "napiscope/format.h"
#include "napiscope/phrasing.h"
#include "render/net_path_render.h"
#include "render/report_text_parts.h"
#include "render/text_layout.h"

namespace napiscope::internal {
namespace {

std::string Share(int64_t part, int64_t whole) {
  return whole > 0 ? fmt::format("{:.1f}%", 100.0 * static_cast<double>(part) / whole) : "-";
}

template <typename Row>
const Row* MaxBy(const std::vector<Row>& rows, int64_t (*value)(const Row&)) {
  const Row* best = nullptr;
  for (const Row& row : rows) {
    if (best == nullptr || value(row) > value(*best)) best = &row;
  }
  return best;
}

std::string SoftirqLatencyLine(const Report& report) {
  int64_t waits = 0, dropped = 0;
  for (const SoftirqLatencyRow& row : report.softirq_latency) {
    waits += row.delay.count;
    dropped += row.dropped_pairs;
  }
  const auto* worst_p99 = MaxBy<SoftirqLatencyRow>(
      report.softirq_latency, [](const SoftirqLatencyRow& r) { return r.delay.p99_ns; });
  const auto* worst_max = MaxBy<SoftirqLatencyRow>(
      report.softirq_latency, [](const SoftirqLatencyRow& r) { return r.delay.max_ns; });
  if (waits == 0) return "no softirq was raised and run";
  return fmt::format(
      "{}, {} dropped by lost events; worst p99 {} (CPU{} {}), longest {} (CPU{} {}, "
      "raised {})",
      Counted(waits, "wait"), dropped, FormatDuration(worst_p99->delay.p99_ns), worst_p99->cpu,
      VectorLabel(worst_p99->vec), FormatDuration(worst_max->delay.max_ns), worst_max->cpu,
      VectorLabel(worst_max->vec), FormatTimestamp(worst_max->delay.max_at_ns));
}

template <typename Row>
std::string RuntimeLine(const std::vector<Row>& rows, const char* what, std::string label_of(const Row&)) {
  int64_t runs = 0;
  for (const Row& row : rows) runs += row.run.count;
  const Row* worst = MaxBy<Row>(rows, [](const Row& r) { return r.run.max_ns; });
  if (runs == 0) return fmt::format("no {} ran", what);
  return fmt::format("{}; longest {} (CPU{} {}, at {})", Counted(runs, "run"),
                     FormatDuration(worst->run.max_ns), worst->cpu, label_of(*worst),
                     FormatTimestamp(worst->run.max_at_ns));
}

std::string CpuTimeLine(const Report& report) {
  int64_t span = 0, idle = 0, hardirq = 0, softirq = 0, threads = 0, tasks = 0, unknown = 0;
  std::vector<int64_t> by_vec;
  for (const CpuTimeRow& row : report.cpu_time) {
    span += row.span_ns;
    idle += row.idle_ns;
    hardirq += row.hardirq_ns;
    unknown += row.unknown_ns;
    threads += row.irq_thread_ns + row.ksoftirqd_ns + row.napi_kthread_ns;
    tasks += row.rt_task_ns + row.other_task_ns;
    by_vec.resize(std::max(by_vec.size(), row.softirq_ns.size()));
    for (size_t vec = 0; vec < row.softirq_ns.size(); ++vec) {
      softirq += row.softirq_ns[vec];
      by_vec[vec] += row.softirq_ns[vec];
    }
  }
  size_t top_vec = std::max_element(by_vec.begin(), by_vec.end()) - by_vec.begin();
  std::string top = softirq > 0 ? fmt::format(" ({} {})", VectorLabel(static_cast<uint32_t>(top_vec)),
                                              Share(by_vec[top_vec], span))
                                : "";
  return fmt::format(
      "all CPUs: idle {}, hard IRQ {}, softirq {}{}, IRQ/NAPI threads and ksoftirqd {}, other "
      "tasks {}, unknown {}",
      Share(idle, span), Share(hardirq, span), Share(softirq, span), top, Share(threads, span),
      Share(tasks, span), Share(unknown, span));
}

std::string ThreadsLine(const std::vector<ThreadActivityRow>& rows) {
  if (rows.empty()) return "none in the trace";
  int64_t activations = 0, cross = 0, migrations = 0;
  for (const ThreadActivityRow& row : rows) {
    activations += row.activations;
    cross += row.cross_cpu_activations;
    migrations += row.migrations;
  }
  return fmt::format("{} thread{}, {} activations, {} of them on another CPU ({}), {} migrations",
                     rows.size(), rows.size() == 1 ? "" : "s", activations, cross,
                     Share(cross, activations), migrations);
}

std::string NapiLine(const Report& report) {
  if (report.napi.empty()) return "none in the trace";
  int64_t polls = 0, exhausted = 0;
  std::vector<std::string> devs;
  for (const NapiRow& row : report.napi) {
    polls += row.polls;
    exhausted += row.exhausted;
    if (std::find(devs.begin(), devs.end(), row.dev) == devs.end()) devs.push_back(row.dev);
  }
  return fmt::format("{} of {}, {} exhausted the budget ({})", Counted(polls, "poll"),
                     Counted(std::ssize(devs), "device"), exhausted, Share(exhausted, polls));
}

std::string WakeLine(const Report& report) {
  if (report.rt_wake_latency.empty()) return "no RT or softirq-serving thread was woken";
  int64_t wakeups = 0;
  std::vector<int32_t> pids;  // a row per thread and CPU it ran on
  for (const WakeLatencyRow& row : report.rt_wake_latency) {
    wakeups += row.latency.count;
    if (std::find(pids.begin(), pids.end(), row.pid) == pids.end()) pids.push_back(row.pid);
  }
  const auto* worst = MaxBy<WakeLatencyRow>(
      report.rt_wake_latency, [](const WakeLatencyRow& r) { return r.latency.max_ns; });
  return fmt::format("{} thread{} woken {} time{}; longest {} ({} on CPU{}, woken {})", pids.size(),
                     pids.size() == 1 ? "" : "s", wakeups, wakeups == 1 ? "" : "s",
                     FormatDuration(worst->latency.max_ns),
                     DescribeTask(worst->pid, worst->comm, worst->prio), worst->cpu,
                     FormatTimestamp(worst->latency.max_at_ns));
}

template <typename Row>
std::string CountLine(const std::vector<Row>& rows, int64_t not_listed) {
  int64_t count = static_cast<int64_t>(rows.size()) + not_listed;
  if (count == 0) return "none";
  return fmt::format("{} time{}", count, count == 1 ? "" : "s");
}

}  // namespace

void AnalysisSummaries(const Report& report, const TextReportOptions& options, TextLines& text) {
  std::vector<std::pair<std::string, std::string>> lines;  // title, headline (or why not)
  auto add = [&](std::string title, std::string_view id, auto headline) {
    std::string reason = NotAvailableReason(report, id);
    lines.emplace_back(std::move(title), reason.empty() ? headline() : "not available, " + reason);
  };
  add("softirq raise-to-entry latency", "softirq_latency",
      [&] { return SoftirqLatencyLine(report); });
  add("softirq run time", "contexts", [&] {
    return RuntimeLine<SoftirqRuntimeRow>(report.softirq_runtime, "softirq",
                                          [](const SoftirqRuntimeRow& r) { return VectorLabel(r.vec); });
  });
  add("hard IRQ run time", "contexts", [&] {
    return RuntimeLine<HardirqRuntimeRow>(
        report.hardirq_runtime, "hard IRQ", [](const HardirqRuntimeRow& r) {
          return fmt::format("{} {}", InterruptLabel(r.irq), r.name);
        });
  });
  add("CPU time", "contexts", [&] { return CpuTimeLine(report); });
  add("IRQ threads", "irq_thread_pingpong", [&] { return ThreadsLine(report.irq_threads); });
  add("NAPI threads", "napi_thread_pingpong", [&] { return ThreadsLine(report.napi_threads); });
  add("ksoftirqd", "napi_thread_pingpong", [&] { return ThreadsLine(report.ksoftirqd); });
  add("ksoftirqd blocked with softirqs pending", "ksoftirqd_blocked", [&] {
    return CountLine(report.ksoftirqd_blocked, report.ksoftirqd_blocked_not_listed);
  });
  add("idle entered with softirqs pending", "idle_with_pending", [&] {
    return CountLine(report.idle_with_pending, report.idle_with_pending_not_listed);
  });
  add("softirqs held back by a lower vector", "softirq_latency", [&] {
    return CountLine(report.softirq_ordering_stalls, report.softirq_ordering_stalls_not_listed);
  });
  add("NAPI polls", "napi", [&] { return NapiLine(report); });
  add("wake latency", "rt_wake_latency", [&] { return WakeLine(report); });
  add("network path priorities", "net_path", [&] { return NetPathSummaryLine(report); });

  text.push_back("");
  text.push_back("analyses (napiscope report without --summary shows their tables):");
  for (const auto& [title, headline] : lines) {
    for (std::string& line : Wrap(title + ": " + headline, options.width, "  ", "      ")) {
      text.push_back(std::move(line));
    }
  }
}

}  // namespace napiscope::internal
