// The latency, run-time and CPU-time tables of the text report: CPUs as rows, so that they stay
// under 120 columns at any CPU count.
#include <algorithm>

#include <fmt/format.h>

#include "napiscope/format.h"
#include "napiscope/phrasing.h"
#include "render/report_text_parts.h"
#include "render/text_layout.h"

namespace napiscope::internal {
namespace {

std::string Percent(int64_t part, int64_t whole) {
  return whole > 0 ? fmt::format("{:.1f}%", 100.0 * static_cast<double>(part) / whole) : "-";
}

// Count, p50, p90, p99, max and when the max began; min and p99.9 are in the JSON.
std::vector<std::string> StatsCells(const DurationStats& d) {
  return {fmt::format("{}", d.count),     FormatDuration(d.p50_ns), FormatDuration(d.p90_ns),
          FormatDuration(d.p99_ns),       FormatDuration(d.max_ns), FormatTimestamp(d.max_at_ns)};
}

std::vector<std::string> WithStatsHeaders(std::vector<std::string> headers) {
  for (const char* h : {"count", "p50", "p90", "p99", "max", "max at"}) headers.push_back(h);
  return headers;
}

template <typename Row>
bool AnyInexact(const std::vector<Row>& rows, DurationStats Row::*stats) {
  return std::any_of(rows.begin(), rows.end(), [&](const Row& r) { return !(r.*stats).exact; });
}

constexpr std::string_view kInexactLegend =
    "(rows with more samples than kept exactly show percentiles as the upper bound of a bucket "
    "0.1% wide)";
constexpr std::string_view kVectorLegend =
    "(vN: x86 vector N, from irq_vectors events; not device IRQ N)";

// A note under a table, indented as its rows and wrapped to the report's width.
void AddLegend(std::string_view legend, size_t width, TextLines& text) {
  for (std::string& line : Wrap(legend, width, "  ", "   ")) text.push_back(std::move(line));
}

void SoftirqLatency(const Report& report, const TextReportOptions& options, TextLines& text) {
  // An analysis that could not run has no table; "lost and missing events" says why.
  if (!NotAvailableReason(report, "softirq_latency").empty()) return;
  text.push_back("");
  for (std::string& line :
       Wrap("softirq raise-to-entry latency (max at: the raise; dropped: waits cut by lost "
            "events; ran in: where the softirqs ran, by count):",
            options.width, "")) {
    text.push_back(std::move(line));
  }
  TextTable full(
      [] {
        std::vector<std::string> h = WithStatsHeaders({"cpu", "<vec"});
        h.push_back("dropped");
        h.push_back("<ran in");
        return h;
      }(),
      2);
  for (const SoftirqLatencyRow& row : report.softirq_latency) {
    std::vector<std::pair<int64_t, SoftirqSite>> sites;
    for (const auto& [site, count] : row.ran_in) sites.emplace_back(count, site);
    std::sort(sites.rbegin(), sites.rend());
    std::vector<std::string> where;
    for (const auto& [count, site] : sites) {
      where.push_back(fmt::format("{} {}", SoftirqSiteName(site), count));
    }
    std::vector<std::string> cells = {fmt::format("{}", row.cpu), VectorLabel(row.vec)};
    for (std::string& cell : StatsCells(row.delay)) cells.push_back(std::move(cell));
    cells.push_back(fmt::format("{}", row.dropped_pairs));
    cells.push_back(fmt::format("{}", fmt::join(where, ", ")));
    full.Add(std::move(cells));
  }
  full.AppendTo(options.width, text);
  if (AnyInexact(report.softirq_latency, &SoftirqLatencyRow::delay)) {
    AddLegend(kInexactLegend, options.width, text);
  }

  struct Longest {
    const SoftirqLatencyRow* row;
    const SoftirqWait* wait;
  };
  std::vector<Longest> longest;
  for (const SoftirqLatencyRow& row : report.softirq_latency) {
    for (const SoftirqWait& wait : row.worst) longest.push_back({&row, &wait});
  }
  std::stable_sort(longest.begin(), longest.end(), [](const Longest& a, const Longest& b) {
    return a.wait->delay_ns > b.wait->delay_ns;
  });
  if (longest.empty()) return;
  text.push_back("");
  text.push_back(fmt::format("the {} longest waits and what held the CPU meanwhile:",
                             std::min(longest.size(), options.top)));
  constexpr size_t kHolders = 3;
  for (size_t i = 0; i < longest.size() && i < options.top; ++i) {
    const SoftirqWait& wait = *longest[i].wait;
    std::vector<std::string> holders;
    for (size_t h = 0; h < wait.blame.size() && h < kHolders; ++h) {
      holders.push_back(fmt::format("{} {}", DescribeBlameHolder(wait.blame[h]),
                                    FormatDuration(wait.blame[h].time_ns)));
    }
    if (wait.blame.size() > kHolders) {
      holders.push_back(fmt::format("{} more", wait.blame.size() - kHolders));
    }
    if (wait.unknown_ns > 0) holders.push_back(FormatDuration(wait.unknown_ns) + " unknown");
    std::string sentence = fmt::format(
        "{} raised {}, ran {} in {}: {}", FormatDuration(wait.delay_ns),
        FormatTimestamp(wait.raise_ns), FormatTimestamp(wait.entry_ns),
        SoftirqSiteName(wait.ran_in), fmt::join(holders, ", "));
    std::string prefix = fmt::format("  cpu{:<3} {:<8} ", longest[i].row->cpu,
                                     VectorLabel(longest[i].row->vec));
    for (std::string& line : Wrap(sentence, options.width, prefix, std::string(prefix.size() + 2, ' '))) {
      text.push_back(std::move(line));
    }
  }
}

void Runtimes(const Report& report, const TextReportOptions& options, TextLines& text) {
  if (!NotAvailableReason(report, "contexts").empty()) return;
  text.push_back("");
  for (std::string& line : Wrap("softirq run time, entry to exit (max at: the entry; preempted: "
                                "runs whose task was switched out inside the softirq):",
                                options.width, "")) {
    text.push_back(std::move(line));
  }
  std::vector<std::string> headers = WithStatsHeaders({"cpu", "<vec"});
  headers.push_back("preempted");
  TextTable softirq(headers, 2);
  for (const SoftirqRuntimeRow& row : report.softirq_runtime) {
    std::vector<std::string> cells = {fmt::format("{}", row.cpu), VectorLabel(row.vec)};
    for (std::string& cell : StatsCells(row.run)) cells.push_back(std::move(cell));
    cells.push_back(fmt::format("{}", row.preempted_runs));
    softirq.Add(std::move(cells));
  }
  softirq.AppendTo(options.width, text);
  if (AnyInexact(report.softirq_runtime, &SoftirqRuntimeRow::run)) {
    AddLegend(kInexactLegend, options.width, text);
  }

  text.push_back("");
  text.push_back("hard IRQ run time, entry to exit (max at: the entry):");
  TextTable hardirq(WithStatsHeaders({"cpu", "irq", "<name"}), 3);
  bool any_vector = false;
  for (const HardirqRuntimeRow& row : report.hardirq_runtime) {
    any_vector = any_vector || row.irq.x86_vector;
    std::vector<std::string> cells = {
        fmt::format("{}", row.cpu),
        fmt::format("{}{}", row.irq.x86_vector ? "v" : "", row.irq.number), row.name};
    for (std::string& cell : StatsCells(row.run)) cells.push_back(std::move(cell));
    hardirq.Add(std::move(cells));
  }
  hardirq.AppendTo(options.width, text);
  if (any_vector) AddLegend(kVectorLegend, options.width, text);
  if (AnyInexact(report.hardirq_runtime, &HardirqRuntimeRow::run)) {
    AddLegend(kInexactLegend, options.width, text);
  }
}

}  // namespace

void LatencyAndRuntimeTables(const Report& report, const TextReportOptions& options,
                             TextLines& text) {
  SoftirqLatency(report, options, text);
  Runtimes(report, options, text);
}

void CpuTimeTables(const Report& report, size_t width, TextLines& text) {
  if (report.cpu_time.empty() || !NotAvailableReason(report, "contexts").empty()) return;
  text.push_back("");
  text.push_back("CPU time, share of each CPU's traced span (softirq: all vectors, split below):");
  TextTable table({"cpu", "span", "unknown", "idle", "hard IRQ", "softirq", "IRQ threads",
                   "ksoftirqd", "NAPI threads", "other RT", "other tasks"});
  CpuTimeRow all;
  for (const CpuTimeRow& row : report.cpu_time) {
    int64_t softirq = 0;
    for (int64_t ns : row.softirq_ns) softirq += ns;
    auto share = [&row](int64_t ns) { return Percent(ns, row.span_ns); };
    table.Add({fmt::format("{}", row.cpu), FormatDuration(row.span_ns), share(row.unknown_ns),
               share(row.idle_ns), share(row.hardirq_ns), share(softirq),
               share(row.irq_thread_ns), share(row.ksoftirqd_ns), share(row.napi_kthread_ns),
               share(row.rt_task_ns), share(row.other_task_ns)});
    all.span_ns += row.span_ns;
    all.unknown_ns += row.unknown_ns;
    all.idle_ns += row.idle_ns;
    all.hardirq_ns += row.hardirq_ns;
    all.irq_thread_ns += row.irq_thread_ns;
    all.ksoftirqd_ns += row.ksoftirqd_ns;
    all.napi_kthread_ns += row.napi_kthread_ns;
    all.rt_task_ns += row.rt_task_ns;
    all.other_task_ns += row.other_task_ns;
    all.softirq_ns.resize(std::max(all.softirq_ns.size(), row.softirq_ns.size()));
    for (size_t vec = 0; vec < row.softirq_ns.size(); ++vec) {
      all.softirq_ns[vec] += row.softirq_ns[vec];
    }
  }
  if (report.cpu_time.size() > 1) {
    int64_t softirq = 0;
    for (int64_t ns : all.softirq_ns) softirq += ns;
    auto share = [&all](int64_t ns) { return Percent(ns, all.span_ns); };
    table.Add({"all", FormatDuration(all.span_ns), share(all.unknown_ns), share(all.idle_ns),
               share(all.hardirq_ns), share(softirq), share(all.irq_thread_ns),
               share(all.ksoftirqd_ns), share(all.napi_kthread_ns), share(all.rt_task_ns),
               share(all.other_task_ns)});
  }
  table.AppendTo(width, text);

  std::vector<size_t> used;
  for (size_t vec = 0; vec < all.softirq_ns.size(); ++vec) {
    if (all.softirq_ns[vec] > 0) used.push_back(vec);
  }
  if (used.empty()) return;
  text.push_back("");
  text.push_back("softirq time by vector, share of each CPU's traced span:");
  std::vector<std::string> headers = {"cpu"};
  for (size_t vec : used) headers.push_back(VectorLabel(static_cast<uint32_t>(vec)));
  TextTable vectors(headers);
  auto add = [&](std::string label, const CpuTimeRow& row) {
    std::vector<std::string> cells = {std::move(label)};
    for (size_t vec : used) {
      cells.push_back(Percent(vec < row.softirq_ns.size() ? row.softirq_ns[vec] : 0, row.span_ns));
    }
    vectors.Add(std::move(cells));
  };
  for (const CpuTimeRow& row : report.cpu_time) add(fmt::format("{}", row.cpu), row);
  if (report.cpu_time.size() > 1) add("all", all);
  vectors.AppendTo(width, text);
}

}  // namespace napiscope::internal
