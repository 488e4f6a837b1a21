#include "render/scheduling_render.h"

#include <fmt/format.h>

#include "napiscope/format.h"
#include "napiscope/phrasing.h"
#include "render/report_text_parts.h"
#include "render/text_layout.h"

namespace napiscope::internal {
namespace {

using nlohmann::json;

json MaskNames(uint32_t mask) {
  json names = json::array();
  for (uint32_t vec = 0; vec < 32; ++vec) {
    if (mask & (1u << vec)) names.push_back(VectorLabel(vec));
  }
  return names;
}

json ThreadJson(const ThreadActivityRow& row) {
  json cpus = json::object();
  for (const auto& [cpu, ns] : row.run_ns_by_cpu) cpus[std::to_string(cpu)] = ns;
  json paths = json::array();
  for (const auto& [path, count] : row.activation_paths) {
    paths.push_back({{"wakeup_cpu", path.first}, {"run_cpu", path.second}, {"count", count}});
  }
  json same = json::object(), cross = json::object();
  AddStatsJson(row.wake_to_run_same_cpu, same);
  AddStatsJson(row.wake_to_run_cross_cpu, cross);
  json out = {{"pid", row.pid},
              {"comm", row.comm},
              {"prio", row.prio},
              {"activations", row.activations},
              {"cross_cpu_activations", row.cross_cpu_activations},
              {"cross_cpu_share", row.CrossCpuShare()},
              {"inexact_activations", row.inexact_activations},
              {"dropped_activations", row.dropped_activations},
              {"activation_paths", paths},
              {"migrations", row.migrations},
              {"runs", row.runs},
              {"cpu_changes", row.cpu_changes},
              {"cpu_changes_per_s", row.cpu_changes_per_s},
              {"cpus", cpus},
              {"wake_to_run", {{"same_cpu", same}, {"cross_cpu", cross}}}};
  if (row.task_class == TaskClass::kIrqThread) {
    json hardirq_cpus = json::array(), hardirq_counts = json::object();
    for (const auto& [cpu, count] : row.hardirq_cpus) {
      hardirq_cpus.push_back(cpu);
      hardirq_counts[std::to_string(cpu)] = count;
    }
    out["irq"] = row.irq;
    out["name"] = row.irq_handler;
    out["hardirq_cpus"] = hardirq_cpus;
    out["hardirq_counts"] = hardirq_counts;
  }
  return out;
}

json ThreadsJson(const std::vector<ThreadActivityRow>& rows) {
  json out = json::array();
  for (const ThreadActivityRow& row : rows) out.push_back(ThreadJson(row));
  return out;
}

json BlockedJson(const KsoftirqdBlockedRow& row) {
  json held = json::array();
  for (const TaskTime& time : row.cpu_held_by) {
    held.push_back({{"pid", time.pid}, {"comm", time.comm}, {"prio", time.prio},
                    {"time_ns", time.time_ns}});
  }
  json chain = json::array();
  for (const ChainLink& link : row.chain) {
    chain.push_back({{"pid", link.pid},
                     {"comm", link.comm},
                     {"prio", link.prio},
                     {"relation", link.relation},
                     {"since_ns", link.since_ns}});
  }
  return {{"cpu", row.cpu},
          {"pid", row.pid},
          {"comm", row.comm},
          {"state", row.state},
          {"start_ns", row.start_ns},
          {"end_ns", row.end_ns},
          {"duration_ns", row.duration_ns},
          {"end_known", row.end_known},
          {"pending_mask_start", row.pending_mask_start},
          {"pending_mask_start_hex", fmt::format("0x{:x}", row.pending_mask_start)},
          {"pending_start", MaskNames(row.pending_mask_start)},
          {"pending_mask_end", row.pending_mask_end},
          {"pending_mask_end_hex", fmt::format("0x{:x}", row.pending_mask_end)},
          {"pending_end", MaskNames(row.pending_mask_end)},
          {"waker_pid", row.waker_pid},
          {"waker_comm", row.waker_comm},
          {"waker_cpu", row.waker_cpu},
          {"waker_context", row.waker_context},
          {"chain", chain},
          {"cpu_held_by", held}};
}

json IdleJson(const IdleWithPendingRow& row) {
  json after = json::object();
  for (const auto& [vec, ns] : row.processed_after_ns) after[std::to_string(vec)] = ns;
  return {{"cpu", row.cpu},
          {"ts_ns", row.ts_ns},
          {"pending_mask", row.pending_mask},
          {"pending_mask_hex", fmt::format("0x{:x}", row.pending_mask)},
          {"pending", MaskNames(row.pending_mask)},
          {"processed_after_ns", after}};
}

json StallJson(const SoftirqOrderingStallRow& row) {
  json blame = json::array();
  for (const BlameItem& item : row.blame) blame.push_back(BlameItemJson(item));
  return {{"cpu", row.cpu},
          {"vec", row.vec},
          {"name", VectorLabel(row.vec)},
          {"raise_ns", row.raise_ns},
          {"entry_ns", row.entry_ns},
          {"wait_ns", row.wait_ns},
          {"blocking_vec", row.blocking_vec},
          {"blocking_name", VectorLabel(row.blocking_vec)},
          {"blocking_pid", row.blocking_pid},
          {"blocking_comm", row.blocking_comm},
          {"blocking_site", row.blocking_site},
          {"blocking_preempted", row.blocking_preempted},
          {"blocking_held_ns", row.blocking_held_ns},
          {"unknown_ns", row.unknown_ns},
          {"blame", blame}};
}

json StarvedJson(const StarvedSoftirqThreadRow& row) {
  json holders = json::array();
  for (const TaskTime& time : row.rt_holders) {
    holders.push_back({{"pid", time.pid}, {"comm", time.comm}, {"prio", time.prio},
                       {"time_ns", time.time_ns}});
  }
  return {{"cpu", row.cpu},
          {"pid", row.pid},
          {"comm", row.comm},
          {"from_ns", row.from_ns},
          {"to_ns", row.to_ns},
          {"rt_ns", row.rt_ns},
          {"rt_share", row.rt_share},
          {"rt_holders", holders},
          {"longest_vec", row.longest_vec},
          {"longest_name", VectorLabel(row.longest_vec)},
          {"longest_raise_ns", row.longest_raise_ns},
          {"longest_wait_ns", row.longest_wait_ns},
          {"longest_never_ran", row.longest_never_ran},
          {"pending_at_end", MaskNames(row.pending_at_end)}};
}

template <typename Row, typename ToJson>
json RowsJson(const std::vector<Row>& rows, ToJson to_json) {
  json out = json::array();
  for (const Row& row : rows) out.push_back(to_json(row));
  return out;
}

std::string Percent(double share) { return fmt::format("{:.0f}%", share * 100); }

// How many CPUs and which took a thread's runs: "2-3 (cpu2 96%)".
std::string RanOn(const ThreadActivityRow& row) {
  std::vector<int> cpus;
  int64_t total = 0, most = 0;
  int most_cpu = -1;
  for (const auto& [cpu, ns] : row.run_ns_by_cpu) {
    cpus.push_back(cpu);
    total += ns;
    if (ns > most) most = ns, most_cpu = cpu;
  }
  if (cpus.empty()) return "-";
  if (cpus.size() == 1) return fmt::format("{}", cpus[0]);
  return fmt::format("{} (cpu{} {:.0f}%)", CpuRanges(cpus), most_cpu,
                     total > 0 ? 100.0 * static_cast<double>(most) / total : 0.0);
}

void ThreadLines(std::string_view title, std::string_view* legend, std::string_view id,
                 const Report& report, const std::vector<ThreadActivityRow>& rows, size_t width,
                 std::vector<std::string>& lines) {
  // An analysis that could not run has no table; "lost and missing events" says why.
  if (!NotAvailableReason(report, id).empty()) return;
  lines.push_back("");
  if (rows.empty()) {
    lines.push_back(fmt::format("{}: none in the trace", title));
    return;
  }
  lines.push_back(fmt::format("{}:", title));
  // The columns are explained under the first table shown.
  if (!legend->empty()) {
    for (std::string& line : Wrap(*legend, width, "  ")) lines.push_back(std::move(line));
    *legend = "";
  }
  bool irq = rows.front().task_class == TaskClass::kIrqThread;
  std::vector<std::string> headers = {"<thread", "pid", "activations", "cross", "share",
                                      "migrations", "changes/s", "same p50", "cross p50"};
  if (irq) headers.push_back("<IRQ on cpu");
  headers.push_back("<ran on cpu");
  TextTable table(headers, 2);
  std::vector<const ThreadActivityRow*> sorted;
  for (const ThreadActivityRow& row : rows) sorted.push_back(&row);
  std::stable_sort(sorted.begin(), sorted.end(), [](const auto* a, const auto* b) {
    if (a->irq != b->irq) return a->irq < b->irq;
    return NaturalLess(a->comm, b->comm);
  });
  auto p50 = [](const DurationStats& s) {
    return s.count > 0 ? FormatDuration(s.p50_ns) : std::string("-");
  };
  for (const ThreadActivityRow* row : sorted) {
    std::vector<std::string> cells = {
        row->comm,
        fmt::format("{}", row->pid),
        fmt::format("{}", row->activations),
        fmt::format("{}", row->cross_cpu_activations),
        Percent(row->CrossCpuShare()),
        fmt::format("{}", row->migrations),
        fmt::format("{:.1f}", row->cpu_changes_per_s),
        p50(row->wake_to_run_same_cpu),
        p50(row->wake_to_run_cross_cpu)};
    if (irq) {
      std::vector<int> cpus;
      for (const auto& [cpu, count] : row->hardirq_cpus) cpus.push_back(cpu);
      cells.push_back(cpus.empty() ? std::string("-") : CpuRanges(cpus));
    }
    cells.push_back(RanOn(*row));
    table.Add(std::move(cells));
  }
  table.AppendTo(width, lines);
}


}  // namespace

json BlameItemJson(const BlameItem& item) {
  json out = {{"kind", std::string(ContextKindName(item.kind))},
              {"name", item.name},
              {"holder", DescribeBlameHolder(item)},
              {"time_ns", item.time_ns}};
  switch (item.kind) {
    case ContextKind::kTask:
      out["pid"] = item.pid;
      out["prio"] = item.prio;
      break;
    case ContextKind::kHardirq:
      out["irq"] = item.irq.number;
      out["x86_vector"] = item.irq.x86_vector;
      break;
    case ContextKind::kSoftirq:
      out["vec"] = item.vec;
      break;
    case ContextKind::kNapiPoll:
      break;
  }
  return out;
}

void AddStatsJson(const DurationStats& stats, json& row) {
  row["count"] = stats.count;
  row["min_ns"] = stats.min_ns;
  row["p50_ns"] = stats.p50_ns;
  row["p90_ns"] = stats.p90_ns;
  row["p99_ns"] = stats.p99_ns;
  row["p999_ns"] = stats.p999_ns;
  row["max_ns"] = stats.max_ns;
  row["max_at_ns"] = stats.max_at_ns;
  row["exact"] = stats.exact;
}

void AddSchedulingJson(const Report& report, json& out) {
  out["irq_threads"] = ThreadsJson(report.irq_threads);
  out["napi_threads"] = ThreadsJson(report.napi_threads);
  out["ksoftirqd"] = ThreadsJson(report.ksoftirqd);
  out["ksoftirqd_blocked"] = RowsJson(report.ksoftirqd_blocked, BlockedJson);
  out["ksoftirqd_blocked_not_listed"] = report.ksoftirqd_blocked_not_listed;
  out["idle_with_pending"] = RowsJson(report.idle_with_pending, IdleJson);
  out["idle_with_pending_not_listed"] = report.idle_with_pending_not_listed;
  out["softirq_ordering_stalls"] = RowsJson(report.softirq_ordering_stalls, StallJson);
  out["softirq_ordering_stalls_not_listed"] = report.softirq_ordering_stalls_not_listed;
  out["softirq_thread_starved"] = RowsJson(report.softirq_thread_starved, StarvedJson);
}

std::vector<std::string> SchedulingText(const Report& report, const TextReportOptions& options) {
  const size_t kShown = options.top;
  std::vector<std::string> lines;
  std::string_view legend =
      "activations: the thread's wakeups followed by a run; cross: those that ran on another "
      "CPU than the wakeup, and their share; migrations: sched_migrate_task events; changes/s: "
      "runs on another CPU than the run before, per second; same/cross p50: median wake-to-run "
      "delay on the same / another CPU.";
  ThreadLines("IRQ threads (wakeup: the hard IRQ)", &legend, "irq_thread_pingpong", report,
              report.irq_threads, options.width, lines);
  ThreadLines("NAPI threads (wakeup: sched_waking)", &legend, "napi_thread_pingpong", report,
              report.napi_threads, options.width, lines);
  ThreadLines("ksoftirqd (wakeup: sched_waking)", &legend, "napi_thread_pingpong", report,
              report.ksoftirqd, options.width, lines);

  auto add = [&](const std::string& sentence, std::string_view prefix) {
    for (std::string& line : Wrap(sentence, options.width, prefix)) lines.push_back(line);
  };
  // "none", "3 times", "40 times (10 shown), longest first"
  auto count = [kShown](size_t listed, int64_t not_listed, std::string_view order) {
    size_t total = listed + static_cast<size_t>(not_listed);
    if (total == 0) return std::string("none");
    std::string shown =
        total > kShown ? fmt::format(" ({} shown)", std::min(listed, kShown)) : std::string();
    return fmt::format("{} time{}{}, {}", total, total == 1 ? "" : "s", shown, order);
  };

  if (NotAvailableReason(report, "ksoftirqd_blocked").empty()) {
    lines.push_back("");
    lines.push_back(fmt::format(
        "ksoftirqd switched out with softirqs pending: {}",
        count(report.ksoftirqd_blocked.size(), report.ksoftirqd_blocked_not_listed, "longest first")));
    std::vector<const KsoftirqdBlockedRow*> longest;
    for (const KsoftirqdBlockedRow& row : report.ksoftirqd_blocked) longest.push_back(&row);
    std::stable_sort(longest.begin(), longest.end(),
                     [](auto* a, auto* b) { return a->duration_ns > b->duration_ns; });
    for (size_t i = 0; i < longest.size() && i < kShown; ++i) {
      const KsoftirqdBlockedRow& row = *longest[i];
      std::string waker = row.waker_pid >= 0
                              ? fmt::format("woken by {} (pid {}) on CPU{} in {}", row.waker_comm,
                                            row.waker_pid, row.waker_cpu, row.waker_context)
                              : std::string("no wakeup seen");
      add(fmt::format("{} {} at {} for {}{}: pending {} -> {}; {}", row.comm, row.state,
                      FormatTimestamp(row.start_ns), FormatDuration(row.duration_ns),
                      row.end_known ? "" : " (or more)", FormatSoftirqMask(row.pending_mask_start),
                      FormatSoftirqMask(row.pending_mask_end), waker),
          "  ");
      for (const ChainLink& link : row.chain) {
        add(fmt::format("<- {} (pid {}) {}", link.comm, link.pid, link.relation), "      ");
      }
      std::vector<std::string> held;
      for (size_t h = 0; h < row.cpu_held_by.size() && h < 3; ++h) {
        held.push_back(fmt::format("{} (pid {}) {}", row.cpu_held_by[h].comm,
                                   row.cpu_held_by[h].pid,
                                   FormatDuration(row.cpu_held_by[h].time_ns)));
      }
      if (!held.empty()) {
        add(fmt::format("CPU{} meanwhile: {}", row.cpu, fmt::join(held, ", ")), "      ");
      }
    }
  }

  if (NotAvailableReason(report, "idle_with_pending").empty()) {
    lines.push_back("");
    lines.push_back(fmt::format(
        "idle entered with softirqs pending: {}",
        count(report.idle_with_pending.size(), report.idle_with_pending_not_listed, "in time order")));
    for (size_t i = 0; i < report.idle_with_pending.size() && i < kShown; ++i) {
      const IdleWithPendingRow& row = report.idle_with_pending[i];
      std::vector<std::string> after;
      for (const auto& [vec, ns] : row.processed_after_ns) {
        after.push_back(fmt::format("{} {}", VectorLabel(vec),
                                    ns < 0 ? std::string("never seen")
                                           : "after " + FormatDuration(ns)));
      }
      add(fmt::format("cpu{} at {}: pending {}; {}", row.cpu, FormatTimestamp(row.ts_ns),
                      FormatSoftirqMask(row.pending_mask), fmt::join(after, ", ")),
          "  ");
    }
  }

  if (NotAvailableReason(report, "softirq_latency").empty()) {
    lines.push_back("");
    lines.push_back(fmt::format("softirqs held back by a lower vector in progress: {}",
                                count(report.softirq_ordering_stalls.size(),
                                      report.softirq_ordering_stalls_not_listed, "in time order")));
    for (size_t i = 0; i < report.softirq_ordering_stalls.size() && i < kShown; ++i) {
      const SoftirqOrderingStallRow& row = report.softirq_ordering_stalls[i];
      std::string held =
          row.blocking_held_ns < 0
              ? std::string()
              : fmt::format("; {} held the CPU {} of it", VectorLabel(row.blocking_vec),
                            FormatDuration(row.blocking_held_ns));
      if (row.blocking_held_ns >= 0 && !row.blame.empty() &&
          !(row.blame.front().kind == ContextKind::kSoftirq &&
            row.blame.front().vec == row.blocking_vec)) {
        held += fmt::format(" (longest: {} {})", DescribeBlameHolder(row.blame.front()),
                            FormatDuration(row.blame.front().time_ns));
      }
      add(fmt::format("cpu{} {} waited {} from {} behind {} in {} (pid {}){}{}", row.cpu,
                      VectorLabel(row.vec), FormatDuration(row.wait_ns),
                      FormatTimestamp(row.raise_ns), VectorLabel(row.blocking_vec),
                      row.blocking_comm, row.blocking_pid,
                      row.blocking_preempted ? ", preempted inside it" : "", held),
          "  ");
    }
  }

  if (!report.softirq_thread_starved.empty()) {
    lines.push_back("");
    lines.push_back("ksoftirqd that never ran while RT tasks held its CPU:");
    for (const StarvedSoftirqThreadRow& row : report.softirq_thread_starved) {
      add(fmt::format("cpu{} {}: RT tasks {:.0f}% of {}; {} waited {}{}", row.cpu, row.comm,
                      row.rt_share * 100, FormatDuration(row.to_ns - row.from_ns),
                      VectorLabel(row.longest_vec), FormatDuration(row.longest_wait_ns),
                      row.longest_never_ran ? " (never ran)" : ""),
          "  ");
    }
  }
  return lines;
}

}  // namespace napiscope::internal
