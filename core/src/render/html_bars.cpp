// The HTML report's bar charts: CPU time per CPU (stacked, legible from 2 to 256 CPUs), IRQ and
// NAPI thread activations on the same vs another CPU, and NAPI polls against their budget.
#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "napiscope/format.h"
#include "napiscope/phrasing.h"
#include "render/html_parts.h"
#include "render/napi_rt_render.h"
#include "render/report_text_parts.h"

namespace napiscope::internal {
namespace {

constexpr double kBarsWidth = 960;
constexpr double kBarLabelWidth = 190;
constexpr size_t kMaxThreads = 40;

struct Part {
  std::string label;
  Rgb color;
  int64_t ns = 0;
};

// The parts of a CPU's time, in the order they stack: IRQ work first, idle and unknown last.
std::vector<Part> PartsOf(const CpuTimeRow& row) {
  std::vector<Part> parts;
  parts.push_back({"hard IRQ", palette::Hardirq(), row.hardirq_ns});
  // Always the ten vectors, then whatever a corrupt vector number added, so rows line up.
  int64_t beyond_ns = 0;
  for (uint32_t vec = 0; vec < row.softirq_ns.size(); ++vec) {
    if (vec >= kSoftirqVectorCount) beyond_ns += row.softirq_ns[vec];
  }
  for (uint32_t vec = 0; vec < kSoftirqVectorCount; ++vec) {
    int64_t ns = vec < row.softirq_ns.size() ? row.softirq_ns[vec] : 0;
    parts.push_back({"softirq " + VectorLabel(vec), palette::VectorColor(vec), ns});
  }
  parts.push_back({"softirq, other vectors", palette::VectorColor(kSoftirqVectorCount),
                   beyond_ns});
  parts.push_back({"IRQ threads", palette::TaskClassColor(TaskClass::kIrqThread),
                   row.irq_thread_ns});
  parts.push_back({"ksoftirqd", palette::TaskClassColor(TaskClass::kKsoftirqd), row.ksoftirqd_ns});
  parts.push_back({"NAPI kthreads", palette::TaskClassColor(TaskClass::kNapiKthread),
                   row.napi_kthread_ns});
  parts.push_back({"RT tasks", palette::TaskClassColor(TaskClass::kRtTask), row.rt_task_ns});
  parts.push_back({"other tasks", palette::TaskClassColor(TaskClass::kOther), row.other_task_ns});
  parts.push_back({"idle", palette::Idle(), row.idle_ns});
  parts.push_back({"unknown (events lost)", {0xb0b0b0}, row.unknown_ns});
  return parts;
}

void Swatch(HtmlOut& out, Rgb color, std::string_view label) {
  out << fmt::format("<span><i style=\"background:{}\"></i>{}</span>", color.Hex(),
                     HtmlEscape(label));
}

// One row of a chart of two-part bars: a thread's same- and cross-CPU activations, a NAPI
// instance's polls within and over its budget.
struct TwoPartBar {
  std::string name;   // left of the bar
  int64_t first = 0;  // the left part
  int64_t second = 0;
  std::string first_tooltip;
  std::string second_tooltip;
  std::string value;  // right of the bar
};

// The bars, scaled to the longest; the name and value columns as wide as their widest text,
// so that no label runs out of the picture.
void RenderTwoPartBars(const std::vector<TwoPartBar>& bars, std::string_view css_class,
                       std::string_view title, Rgb first_color, Rgb second_color, HtmlOut& out) {
  constexpr double kRowHeight = 16;
  double name_width = kBarLabelWidth, value_width = 0;
  int64_t most = 1;
  for (const TwoPartBar& bar : bars) {
    name_width = std::max(name_width, EstimatedTextWidth(bar.name) + 12);
    value_width = std::max(value_width, EstimatedTextWidth(bar.value) + 12);
    most = std::max(most, bar.first + bar.second);
  }
  double plot_width = std::max(kBarsWidth / 3, kBarsWidth - name_width - value_width);
  double width = name_width + plot_width + value_width;
  double scale = plot_width / static_cast<double>(most);
  out << fmt::format(
      "<svg class=\"chart {2}\" viewBox=\"0 0 {0} {1}\" width=\"{0}\" "
      "height=\"{1}\" role=\"img\"><title>{3}</title>",
      Coord(width), Coord(kRowHeight * static_cast<double>(bars.size()) + 4), css_class,
      HtmlEscape(title));
  for (size_t i = 0; i < bars.size(); ++i) {
    const TwoPartBar& bar = bars[i];
    double y = static_cast<double>(i) * kRowHeight;
    out.SvgText(name_width - 6, y + 12, bar.name, "end");
    out.Rect(name_width, y + 2, std::max(0.5, scale * static_cast<double>(bar.first)),
             kRowHeight - 4, first_color, bar.first_tooltip);
    if (bar.second > 0) {
      out.Rect(name_width + scale * static_cast<double>(bar.first), y + 2,
               std::max(0.5, scale * static_cast<double>(bar.second)), kRowHeight - 4, second_color,
               bar.second_tooltip);
    }
    out.SvgText(name_width + plot_width + 6, y + 12, bar.value, "start", "axis");
  }
  out << "</svg>\n";
}

}  // namespace

void RenderCpuTimeChart(const HtmlTraceView& view, HtmlOut& out) {
  const Report& report = *view.report;
  out << "<section class=\"cpu-time\"><h2>CPU time per CPU</h2>\n";
  // As in the text report: without sched_switch no task is known to run, so the time outside
  // IRQs and softirqs would be drawn as idle when nothing says so.
  if (std::string why = NotAvailableReason(report, "contexts"); !why.empty()) {
    out << "<p>Not analysed: " << HtmlEscape(why) << " events, so no task is known to run.</p>"
        << "</section>\n";
    return;
  }
  if (report.cpu_time.empty()) {
    out << "<p>No CPU had events in the range.</p></section>\n";
    return;
  }
  // Which parts occur anywhere: only those get a legend entry.
  std::vector<Part> totals = PartsOf(report.cpu_time.front());
  for (Part& part : totals) part.ns = 0;
  for (const CpuTimeRow& row : report.cpu_time) {
    std::vector<Part> parts = PartsOf(row);
    for (size_t i = 0; i < parts.size(); ++i) totals[i].ns += parts[i].ns;
  }
  out << "<div class=\"legend\">";
  for (const Part& part : totals) {
    if (part.ns > 0) Swatch(out, part.color, part.label);
  }
  out << "</div>\n";
  // Rows shrink with the CPU count; labels are thinned so that they never overlap.
  size_t cpus = report.cpu_time.size();
  double bar_height = std::clamp(720.0 / static_cast<double>(cpus), 3.0, 18.0);
  size_t label_every = static_cast<size_t>(std::ceil(12.0 / bar_height));
  double plot_width = kBarsWidth - 60 - 20;  // the "100%" under the end stays inside
  double height = bar_height * static_cast<double>(cpus) + 22;
  out << fmt::format("<svg class=\"chart cpu-bars\" viewBox=\"0 0 {0} {1}\" width=\"{0}\" "
                     "height=\"{1}\" role=\"img\" data-cpus=\"{2}\"><title>CPU time per CPU"
                     "</title>",
                     Coord(kBarsWidth), Coord(height), cpus);
  for (size_t i = 0; i < cpus; ++i) {
    const CpuTimeRow& row = report.cpu_time[i];
    double y = static_cast<double>(i) * bar_height;
    std::vector<Part> parts = PartsOf(row);
    std::string tooltip = fmt::format("CPU {} over {}:", row.cpu, FormatDuration(row.span_ns));
    for (const Part& part : parts) {
      if (part.ns > 0) {
        tooltip += fmt::format("\n{} {} ({})", part.label, FormatDuration(part.ns),
                               PercentText(part.ns, row.span_ns));
      }
    }
    out << "<g class=\"cpu\" data-cpu=\"" << std::to_string(row.cpu) << "\"><title>"
        << HtmlEscape(tooltip) << "</title>";
    double x = 60;
    for (const Part& part : parts) {
      if (part.ns <= 0 || row.span_ns <= 0) continue;
      double width = plot_width * static_cast<double>(part.ns) / static_cast<double>(row.span_ns);
      if (width >= 0.2) out.Rect(x, y + 0.5, width, std::max(1.0, bar_height - 1), part.color);
      x += width;
    }
    out << "</g>";
    if (i % label_every == 0) {
      out.SvgText(56, y + std::min(bar_height, 12.0) - 2, fmt::format("CPU {}", row.cpu), "end",
                  "axis");
    }
  }
  double axis_y = bar_height * static_cast<double>(cpus) + 14;
  for (int percent = 0; percent <= 100; percent += 25) {
    double x = 60 + plot_width * percent / 100;
    out.SvgText(x, axis_y, fmt::format("{}%", percent), "middle", "axis");
  }
  out << "</svg>\n<details><summary>Numbers per CPU</summary><table class=\"sortable\"><thead>"
         "<tr><th>CPU</th><th class=\"num\">span</th>";
  for (const Part& part : totals) {
    if (part.ns > 0) out << "<th class=\"num\">" << HtmlEscape(part.label) << "</th>";
  }
  out << "</tr></thead><tbody>";
  for (const CpuTimeRow& row : report.cpu_time) {
    std::vector<Part> parts = PartsOf(row);
    out << fmt::format("<tr><td class=\"num\">{}</td><td class=\"num\" data-v=\"{}\">{}</td>",
                       row.cpu, row.span_ns, FormatDuration(row.span_ns));
    for (size_t i = 0; i < parts.size(); ++i) {
      if (totals[i].ns <= 0) continue;
      out << fmt::format("<td class=\"num\" data-v=\"{}\">{}</td>", parts[i].ns,
                         PercentText(parts[i].ns, row.span_ns));
    }
    out << "</tr>";
  }
  out << "</tbody></table></details>\n</section>\n";
}

void RenderActivationCharts(const HtmlTraceView& view, HtmlOut& out) {
  const Report& report = *view.report;
  out << "<section class=\"activations\"><h2>IRQ and NAPI thread activations</h2>\n";
  if (NotAnalysedNote(report, {"irq_thread_pingpong", "napi_thread_pingpong"}, out)) return;
  std::vector<const ThreadActivityRow*> rows;
  for (const auto* list : {&report.irq_threads, &report.napi_threads, &report.ksoftirqd}) {
    for (const ThreadActivityRow& row : *list) {
      if (row.activations > 0) rows.push_back(&row);
    }
  }
  if (rows.empty()) {
    out << "<p>No IRQ thread, NAPI kthread or ksoftirqd was activated in the range.</p>"
           "</section>\n";
    return;
  }
  std::stable_sort(rows.begin(), rows.end(), [](auto* a, auto* b) {
    return a->cross_cpu_activations != b->cross_cpu_activations
               ? a->cross_cpu_activations > b->cross_cpu_activations
               : a->activations > b->activations;
  });
  size_t shown = std::min(rows.size(), kMaxThreads);
  out << "<p>Each wakeup (hard IRQ for IRQ threads, sched_waking for the others) followed by a "
         "run: on the CPU that woke the thread, or on another (a cross-CPU hop costs an IPI and "
         "cache misses).</p>\n<div class=\"legend\">";
  Swatch(out, palette::SameCpu(), "same CPU");
  Swatch(out, palette::CrossCpu(), "cross-CPU");
  out << "</div>\n";
  std::vector<TwoPartBar> bars;
  for (size_t i = 0; i < shown; ++i) {
    const ThreadActivityRow& row = *rows[i];
    TwoPartBar& bar = bars.emplace_back();
    bar.name = fmt::format("{} ({})", row.comm, row.pid);
    bar.first = row.activations - row.cross_cpu_activations;
    bar.second = row.cross_cpu_activations;
    bar.first_tooltip = fmt::format("{}: {} on the waking CPU", bar.name, bar.first);
    bar.second_tooltip = fmt::format("{}: {} on another CPU", bar.name, bar.second);
    bar.value = fmt::format("{} of {} cross ({})", row.cross_cpu_activations, row.activations,
                            PercentText(row.cross_cpu_activations, row.activations));
  }
  RenderTwoPartBars(bars, "activations", "thread activations", palette::SameCpu(),
                    palette::CrossCpu(), out);
  if (rows.size() > shown) {
    out << fmt::format("<p class=\"note\">{} threads with fewer cross-CPU activations not "
                       "drawn.</p>\n",
                       rows.size() - shown);
  }
  out << "</section>\n";
}

void RenderNapiBudget(const HtmlTraceView& view, HtmlOut& out) {
  const Report& report = *view.report;
  out << "<section class=\"napi\"><h2>NAPI budget per instance</h2>\n";
  if (NotAnalysedNote(report, {"napi"}, out)) return;
  if (report.napi.empty()) {
    out << "<p>No napi:napi_poll in the range.</p></section>\n";
    return;
  }
  out << "<p>Polls per NAPI instance, CPU and context; the red part used its whole budget "
         "(work ≥ budget), so the instance was polled again at once.";
  if (HasBacklogPolls(report)) {
    out << fmt::format(" {} is the backlog: packets queued by netif_rx, RPS and loopback.",
                       kBacklogNapiDevice);
  }
  out << "</p>\n<div class=\"legend\">";
  Swatch(out, palette::DeviceColor(1), "polls within budget");
  Swatch(out, palette::ExhaustedMark(), "budget exhausted");
  out << "</div>\n";
  std::vector<TwoPartBar> bars;
  for (size_t i = 0; i < std::min(report.napi.size(), kMaxThreads); ++i) {
    const NapiRow& row = report.napi[i];
    TwoPartBar& bar = bars.emplace_back();
    bar.name = fmt::format("{} CPU {} {}", row.dev, row.cpu, NapiContextName(row.context));
    bar.first = row.polls - row.exhausted;
    bar.second = row.exhausted;
    bar.first_tooltip =
        fmt::format("{}: {} within budget {}", bar.name, Counted(bar.first, "poll"), row.budget);
    bar.second_tooltip = fmt::format("{}: {} exhausted the budget; longest run {}", bar.name,
                                     Counted(row.exhausted, "poll"), row.max_consecutive_exhausted);
    bar.value = fmt::format("{}, {} exhausted, budget {}", Counted(row.polls, "poll"),
                            PercentText(row.exhausted, row.polls), row.budget);
  }
  RenderTwoPartBars(bars, "napi-bars", "NAPI polls and budget", palette::DeviceColor(1),
                    palette::ExhaustedMark(), out);
  out << "<details><summary>Numbers per instance</summary><table class=\"sortable\">"
         "<thead><tr><th>device</th><th>CPU</th><th>context</th><th class=\"num\">budget</th>"
         "<th class=\"num\">polls</th><th class=\"num\">exhausted</th><th class=\"num\">work "
         "p50</th><th class=\"num\">work p99</th><th class=\"num\">work max</th>"
         "<th class=\"num\">longest exhausted run</th></tr></thead><tbody>";
  for (const NapiRow& row : report.napi) {
    out << "<tr><td>";
    out.Text(row.dev);
    out << fmt::format(
        "</td><td class=\"num\">{}</td><td>{}</td><td class=\"num\">{}</td>"
        "<td class=\"num\">{}</td><td class=\"num\" data-v=\"{}\">{} ({})</td>"
        "<td class=\"num\">{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td>"
        "<td class=\"num\">{}</td></tr>",
        row.cpu, NapiContextName(row.context), row.budget, row.polls, row.exhausted,
        row.exhausted, PercentText(row.exhausted, row.polls), row.work_per_poll.p50,
        row.work_per_poll.p99, row.work_per_poll.max, row.max_consecutive_exhausted);
  }
  out << "</tbody></table></details>\n</section>\n";
}

}  // namespace napiscope::internal
