// The HTML report's charts: softirq raise-to-entry delay histograms per vector and RT wake
// latency (log time axes, p50/p99/max marked), and CPU time per CPU as stacked bars.
#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "napiscope/format.h"
#include "napiscope/phrasing.h"
#include "napiscope/timeline_stats.h"
#include "render/html_parts.h"

namespace napiscope::internal {
namespace {

constexpr double kChartWidth = 520;
constexpr double kChartHeight = 160;
constexpr double kLeft = 44;
constexpr double kBottom = 34;  // room for the axis labels
constexpr double kTop = 30;     // room for two rows of marker labels
constexpr size_t kWakeCharts = 12;  // RT threads with a wake-latency histogram, worst first

// The smallest power-of-two bucket whose cumulative count reaches `rank`.
int BucketOfRank(const LogHistogram& histogram, int64_t rank) {
  int64_t seen = 0;
  for (int b = 0; b < LogHistogram::kBuckets; ++b) {
    seen += histogram.counts[b];
    if (seen >= rank) return b;
  }
  return LogHistogram::kBuckets - 1;
}

struct Marker {
  std::string label;  // "p50 ≤ 8 us"
  double x = 0;
};

// A histogram over power-of-two duration buckets, bars on a log time axis, with markers.
// `exact_max_ns` (when > 0) places the max marker exactly.
std::string HistogramSvg(const LogHistogram& histogram, std::string_view title,
                         int64_t exact_max_ns, Rgb bar_color) {
  int first = LogHistogram::kBuckets, last = 0;
  for (int b = 0; b < LogHistogram::kBuckets; ++b) {
    if (histogram.counts[b] == 0) continue;
    first = std::min(first, b);
    last = std::max(last, b);
  }
  if (first > last) return "";
  if (exact_max_ns > 0) last = std::max(last, LogHistogram::BucketOf(exact_max_ns));
  first = std::max(0, first - 1);
  last = std::min(LogHistogram::kBuckets - 1, last + 1);
  int buckets = last - first + 1;
  double plot_width = kChartWidth - kLeft - 8;
  double plot_height = kChartHeight - kBottom - kTop;
  double bar_width = plot_width / buckets;
  int64_t peak = *std::max_element(histogram.counts.begin(), histogram.counts.end());
  // x of a duration on the log axis: bucket b spans [2^b, 2^(b+1)).
  auto x_of = [&](double ns) {
    double position = ns <= 1 ? 0 : std::log2(ns);
    return kLeft + (std::clamp(position, static_cast<double>(first), last + 1.0) - first) *
                       bar_width;
  };
  HtmlOut out;
  out << fmt::format("<svg class=\"chart histogram\" viewBox=\"0 0 {0} {1}\" width=\"{0}\" "
                     "height=\"{1}\" role=\"img\" data-total=\"{2}\"><title>",
                     Coord(kChartWidth), Coord(kChartHeight), histogram.total);
  out.Text(title);
  out << "</title>";
  double base = kTop + plot_height;
  out.Line(kLeft, base, kLeft + plot_width, base, palette::GridLine());
  out.SvgText(kLeft - 4, kTop + 8, AxisCount(peak), "end", "axis");
  out.SvgText(kLeft - 4, base, "0", "end", "axis");
  for (int b = first; b <= last; ++b) {
    int64_t count = histogram.counts[b];
    double x = kLeft + (b - first) * bar_width;
    if (count > 0) {
      double height = std::max(1.5, plot_height * static_cast<double>(count) / peak);
      out.Rect(x + 0.5, base - height, bar_width - 1, height, bar_color,
               fmt::format("{} in [{}, {})", count,
                           FormatDuration(LogHistogram::BucketStartNs(b)),
                           FormatDuration(LogHistogram::BucketStartNs(b + 1))),
               "bar");
    }
    if ((b - first) % 2 == 0) {
      out.Line(x, base, x, base + 3, palette::Text());
      out.SvgText(x, base + 14, FormatDuration(LogHistogram::BucketStartNs(b)), "middle",
                  "axis");
    }
  }
  out.SvgText(kLeft + plot_width, base + 28, "log time axis (power-of-two buckets)", "end",
              "axis");
  std::vector<Marker> markers;
  int p50 = BucketOfRank(histogram, (histogram.total + 1) / 2);
  int p99 = BucketOfRank(histogram, (histogram.total * 99 + 99) / 100);
  // A percentile is at most its bucket's end, and at most the exact max: "p99 ≤ 16.4 us" beside
  // "max 15.3 us" read as a contradiction.
  auto percentile = [&](const char* name, int bucket) {
    int64_t bound = LogHistogram::BucketStartNs(bucket + 1);
    double x = std::ldexp(1.5, bucket);
    if (exact_max_ns > 0 && exact_max_ns < bound) {
      bound = exact_max_ns;
      x = std::min(x, static_cast<double>(exact_max_ns));
    }
    return Marker{std::string(name) + " ≤ " + FormatDuration(bound), x_of(x)};
  };
  markers.push_back(percentile("p50", p50));
  markers.push_back(percentile("p99", p99));
  if (exact_max_ns > 0) {
    markers.push_back({"max " + FormatDuration(exact_max_ns),
                       x_of(static_cast<double>(exact_max_ns))});
  }
  // Labels left to right in two rows when they would overlap; none past the right edge.
  double row_end[2] = {-1e9, -1e9};
  for (const Marker& marker : markers) {
    double width = EstimatedTextWidth(marker.label, true);
    double right = kChartWidth - width - 2;  // the last x at which the label fits
    double x = std::min(marker.x + 2, right);
    // The first row where it clears the label before it and fits; else the lower row, at the
    // edge (over part of a label rather than cut off).
    int row = std::max(x, row_end[0] + 4) <= right ? 0 : 1;
    x = std::min(std::max(x, row_end[row] + 4), right);
    out.SvgText(x, row == 0 ? 11 : 23, marker.label, "start", "mark");
    row_end[row] = x + width;
    out.Line(marker.x, row == 0 ? 13 : 25, marker.x, base, palette::Emphasis(), 1.2, "marker");
  }
  out << "</svg>";
  return out.Take();
}

// The report's window clipped to the timeline.
std::pair<TimestampNs, TimestampNs> Range(const HtmlTraceView& view) {
  const AnalysisWindow& window = view.report->window;
  TimestampNs from = std::max(window.from_ns, view.timeline->start_ns());
  TimestampNs to = std::min(window.to_ns, view.timeline->end_ns());
  return {from, to == std::numeric_limits<TimestampNs>::max() ? to : to + 1};
}

}  // namespace

void RenderSoftirqWaitCharts(const HtmlTraceView& view, HtmlOut& out) {
  const Report& report = *view.report;
  out << "<section class=\"softirq-waits\"><h2>Softirq raise → entry delay</h2>\n";
  if (NotAnalysedNote(report, {"softirq_latency"}, out)) return;
  if (view.timeline == nullptr || view.timeline->cpus() == 0) {
    out << "<p class=\"note\">No histograms: the trace's lanes were not built.</p></section>\n";
    return;
  }
  auto [from, to] = Range(view);
  std::array<LogHistogram, kSoftirqVectorCount> histograms{};
  for (int cpu = 0; cpu < view.timeline->cpus(); ++cpu) {
    if (!report.cpus.empty() &&
        std::find(report.cpus.begin(), report.cpus.end(), cpu) == report.cpus.end()) {
      continue;
    }
    auto per_cpu = SoftirqWaitHistograms(*view.timeline, cpu, from, to);
    for (uint32_t vec = 0; vec < kSoftirqVectorCount; ++vec) {
      for (int b = 0; b < LogHistogram::kBuckets; ++b) {
        histograms[vec].counts[b] += per_cpu[vec].counts[b];
      }
      histograms[vec].total += per_cpu[vec].total;
    }
  }
  out << "<p>Every raise that waited for its softirq, all CPUs together; p50 and p99 are the "
         "upper bounds of their buckets, max is exact. The table has each CPU's exact "
         "percentiles.</p>\n<div class=\"charts\">";
  bool any = false;
  for (uint32_t vec = 0; vec < kSoftirqVectorCount; ++vec) {
    if (histograms[vec].total == 0) continue;
    any = true;
    int64_t max_ns = 0;
    for (const SoftirqLatencyRow& row : report.softirq_latency) {
      if (row.vec == vec) max_ns = std::max(max_ns, row.delay.max_ns);
    }
    out << "<div class=\"chart\"><h3>" << SoftirqVectorName(vec) << " <small>"
        << std::to_string(histograms[vec].total) << " waits</small></h3>"
        << HistogramSvg(histograms[vec],
                        fmt::format("{} raise to entry delay", SoftirqVectorName(vec)), max_ns,
                        palette::VectorColor(vec))
        << "</div>";
  }
  out << "</div>\n";
  if (!any) out << "<p>No softirq was raised and entered in the range.</p>\n";
  if (!report.softirq_latency.empty()) {
    out << "<details><summary>Per CPU and vector</summary><table class=\"sortable\"><thead><tr>"
           "<th>CPU</th><th>vector</th><th class=\"num\">waits</th><th class=\"num\">p50</th>"
           "<th class=\"num\">p99</th><th class=\"num\">max</th><th>max at</th></tr></thead>"
           "<tbody>";
    for (const SoftirqLatencyRow& row : report.softirq_latency) {
      out << fmt::format(
          "<tr><td class=\"num\">{}</td><td>{}</td><td class=\"num\">{}</td>"
          "<td class=\"num\" data-v=\"{}\">{}</td><td class=\"num\" data-v=\"{}\">{}</td>"
          "<td class=\"num\" data-v=\"{}\">{}</td><td>{}</td></tr>",
          row.cpu, VectorLabel(row.vec), row.delay.count, row.delay.p50_ns,
          FormatDuration(row.delay.p50_ns), row.delay.p99_ns, FormatDuration(row.delay.p99_ns),
          row.delay.max_ns, FormatDuration(row.delay.max_ns),
          FormatTimestamp(row.delay.max_at_ns));
    }
    out << "</tbody></table></details>\n";
  }
  out << "</section>\n";
}

void RenderWakeLatencyCharts(const HtmlTraceView& view, HtmlOut& out) {
  const Report& report = *view.report;
  out << "<section class=\"wake-latency\"><h2>RT thread wake latency</h2>\n";
  if (NotAnalysedNote(report, {"rt_wake_latency"}, out)) return;
  std::vector<const WakeLatencyRow*> rows;
  for (const WakeLatencyRow& row : report.rt_wake_latency) {
    if (row.policy == SchedPolicyClass::kRealtime && row.latency.count > 0) rows.push_back(&row);
  }
  if (rows.empty()) {
    out << "<p>No real-time thread was woken and run in the range.</p></section>\n";
    return;
  }
  std::stable_sort(rows.begin(), rows.end(),
                   [](auto* a, auto* b) { return a->latency.max_ns > b->latency.max_ns; });
  out << "<p>sched_waking → switch-in of each real-time thread, per CPU it ran on; the worst "
         "first.</p>\n";
  // One wakeup has no distribution to draw: its row says it all (on a server, the migration/N
  // threads, each woken once, would fill the charts).
  std::vector<const WakeLatencyRow*> charted;
  for (const WakeLatencyRow* row : rows) {
    if (row->latency.count > 1 && charted.size() < kWakeCharts) charted.push_back(row);
  }
  if (charted.empty()) {
    out << fmt::format(
        "<p class=\"note\">Each of these {} threads was woken once: the table "
        "says all a histogram would.</p>\n",
        rows.size());
  } else {
    out << "<div class=\"charts\">";
    for (const WakeLatencyRow* row : charted) {
      std::string name = DescribeTask(row->pid, row->comm, row->prio);
      out << "<div class=\"chart\"><h3>";
      out.Text(name);
      out << fmt::format(" <small>CPU {}, {} wakeups, p50 {}, p99 {}</small></h3>", row->cpu,
                         row->latency.count, FormatDuration(row->latency.p50_ns),
                         FormatDuration(row->latency.p99_ns))
          << HistogramSvg(row->histogram, name + " wake latency", row->latency.max_ns,
                          palette::TaskClassColor(TaskClass::kRtTask))
          << "</div>";
    }
    out << "</div>\n";
  }
  if (!charted.empty() && rows.size() > charted.size()) {
    size_t woken_once = static_cast<size_t>(
        std::count_if(rows.begin(), rows.end(), [](auto* row) { return row->latency.count == 1; }));
    std::string once = woken_once > 0 ? fmt::format("; {} woken once {} in the table only",
                                                    woken_once, woken_once == 1 ? "is" : "are")
                                      : std::string();
    out << fmt::format(
        "<p class=\"note\">{} of the {} threads {} a chart, the longest wakeups "
        "first{}.</p>\n",
        charted.size(), rows.size(), charted.size() == 1 ? "has" : "have", once);
  }
  out << "<table class=\"sortable\"><thead><tr><th>thread</th><th>CPU</th>"
         "<th class=\"num\">wakeups</th><th class=\"num\">p50</th><th class=\"num\">p99</th>"
         "<th class=\"num\">max</th><th>max at</th></tr></thead><tbody>";
  for (const WakeLatencyRow* row : rows) {
    out << "<tr><td>";
    out.Text(DescribeTask(row->pid, row->comm, row->prio));
    out << fmt::format(
        "</td><td class=\"num\">{}</td><td class=\"num\">{}</td><td class=\"num\" "
        "data-v=\"{}\">{}</td><td class=\"num\" data-v=\"{}\">{}</td><td class=\"num\" "
        "data-v=\"{}\">{}</td><td>{}</td></tr>",
        row->cpu, row->latency.count, row->latency.p50_ns, FormatDuration(row->latency.p50_ns),
        row->latency.p99_ns, FormatDuration(row->latency.p99_ns), row->latency.max_ns,
        FormatDuration(row->latency.max_ns), FormatTimestamp(row->latency.max_at_ns));
  }
  out << "</tbody></table>\n</section>\n";
}

}  // namespace napiscope::internal
