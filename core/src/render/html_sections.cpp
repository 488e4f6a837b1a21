// The HTML report's text sections: findings (sentence, numbers, timeline), blocked ksoftirqd
// chains, and the trace's header (kernel, CPUs, span, lost events, analyses run and not run).
#include <algorithm>
#include <limits>
#include <set>

#include <fmt/format.h>

#include "napiscope/analysis_requirements.h"
#include "napiscope/finding_evidence.h"
#include "napiscope/format.h"
#include "napiscope/info_report.h"
#include "napiscope/phrasing.h"
#include "render/html_parts.h"
#include "render/napi_rt_render.h"

namespace napiscope::internal {
namespace {

constexpr size_t kMaxTimelineCpus = 8;
constexpr size_t kMaxThreadLanes = 4;
constexpr size_t kMaxChains = 20;

// CPUs whose lanes a finding's timeline shows: its CPU and the other CPUs it names; for
// findings about no CPU, the CPUs with events busiest with IRQs and softirqs in its interval.
std::vector<int> TimelineCpus(const HtmlTraceView& view, const Finding& finding) {
  std::vector<int> cpus;
  if (finding.cpu >= 0) cpus.push_back(finding.cpu);
  for (int cpu : finding.other_cpus) {
    if (cpu >= 0 && std::find(cpus.begin(), cpus.end(), cpu) == cpus.end()) cpus.push_back(cpu);
  }
  const Timeline& timeline = *view.timeline;
  if (cpus.empty()) {
    std::vector<std::pair<TimestampNs, int>> busy;
    TimestampNs from = finding.end_ns > finding.start_ns ? finding.start_ns : timeline.start_ns();
    TimestampNs to = finding.end_ns > finding.start_ns ? finding.end_ns : timeline.end_ns();
    for (int cpu : view.report->trace.CpusWithEvents()) {
      if (cpu >= timeline.cpus()) break;
      TimestampNs ns = 0;
      for (Lane lane : {Lane::kHardirq, Lane::kSoftirq, Lane::kNapiPoll}) {
        ns += timeline.Summarize(cpu, lane, from, to).busy_ns;
      }
      busy.push_back({-ns, cpu});
    }
    std::sort(busy.begin(), busy.end());
    for (size_t i = 0; i < busy.size() && i < 4; ++i) cpus.push_back(busy[i].second);
    std::sort(cpus.begin(), cpus.end());
  }
  if (cpus.size() > kMaxTimelineCpus) cpus.resize(kMaxTimelineCpus);
  return cpus;
}

// A finding of no time, CPU or item (an analysis that did not run) has no picture: the
// busiest CPUs of the whole trace would be about nothing it says.
bool Pictured(const Finding& finding) {
  return finding.end_ns > 0 || finding.start_ns > 0 || finding.cpu >= 0 || finding.vec >= 0 ||
         finding.irq.known() || !TasksNamed(finding).empty();
}

void RenderFinding(const HtmlTraceView& view, const Finding& finding, std::string_view id,
                   size_t index, HtmlOut& out) {
  std::string_view severity = SeverityName(finding.severity);
  out << fmt::format("<article class=\"finding sev-{}\" id=\"{}-f{}\" data-rule=\"{}\">\n",
                     severity, id, index, HtmlEscape(finding.rule));
  out << fmt::format("<div><span class=\"sev sev-{0}\">{0}</span><span class=\"sentence\">",
                     severity);
  out.Text(finding.summary);
  out << "</span></div>\n<div class=\"when\">";
  out.Text(finding.rule);
  if (finding.cpu >= 0) out << " · CPU " << std::to_string(finding.cpu);
  if (finding.end_ns > finding.start_ns) {
    out << " · " << FormatTimestamp(finding.start_ns) << " .. " << FormatTimestamp(finding.end_ns)
        << " (" << FormatDuration(finding.end_ns - finding.start_ns) << ")";
  } else if (finding.start_ns != 0) {
    out << " · at " << FormatTimestamp(finding.start_ns);
  }
  out << "</div>\n";
  std::vector<EvidenceLine> evidence = EvidenceForPeople(finding.evidence);
  if (!evidence.empty()) {
    out << "<dl class=\"evidence\">";
    for (const EvidenceLine& line : evidence) {
      out << "<dt>";
      out.Text(line.label);
      out << "</dt><dd>";
      out.Text(line.value);
      out << "</dd>";
    }
    out << "</dl>\n";
  }
  bool pictured = Pictured(finding);
  if (pictured && view.timeline != nullptr && view.timeline->cpus() > 0) {
    TimelineFilter named;
    if (finding.vec >= 0) named.vecs.push_back(static_cast<uint32_t>(finding.vec));
    named.AddInterrupt(finding.irq);
    named.pids = TasksNamed(finding);
    std::vector<int32_t> threads = named.pids;
    if (threads.size() > kMaxThreadLanes) threads.resize(kMaxThreadLanes);
    TimestampNs from = finding.start_ns, to = finding.end_ns;
    if (from == 0 && to == 0) {
      from = view.timeline->start_ns();
      to = view.timeline->end_ns();
    }
    out << "<figure class=\"timeline\">"
        << FindingTimelineSvg(view, TimelineCpus(view, finding), threads, named, from,
                              std::max(to, from))
        << "</figure>\n";
  } else if (pictured) {
    out << "<p class=\"note\">No timeline: the trace's lanes were not built.</p>\n";
  }
  out << "</article>\n";
}

void Legend(HtmlOut& out) {
  out << "<div class=\"legend\">";
  auto swatch = [&out](Rgb color, std::string_view label, bool thin = false) {
    out << fmt::format("<span><i{} style=\"background:{}\"></i>{}</span>",
                       thin ? " class=\"thin\"" : "", color.Hex(), HtmlEscape(label));
  };
  for (TaskClass c : palette::LegendTaskClasses()) {
    swatch(palette::TaskClassColor(c), palette::TaskClassLabel(c));
  }
  for (uint32_t vec : {kNetRx, kNetTx, kTimer, kSched, kRcu, kHrtimer, kTasklet}) {
    swatch(palette::VectorColor(vec), SoftirqVectorName(vec));
  }
  swatch(palette::WaitColor(), "raise → entry wait", true);
  swatch(palette::ExhaustedMark(), "NAPI budget exhausted", true);
  swatch({0xb0b0b0}, "unknown (events lost)");
  swatch(palette::Highlight(), "the finding's interval");
  out << "</div>\n";
}

}  // namespace

void RenderFindings(const HtmlTraceView& view, std::string_view id, HtmlOut& out) {
  const Report& report = *view.report;
  out << fmt::format("<section class=\"findings\" id=\"{}-findings\"><h2>Findings ({})</h2>\n",
                     id, report.findings.size());
  if (report.findings.empty()) {
    out << "<p>No findings: nothing reached a threshold.</p>\n";
  } else if (std::any_of(report.findings.begin(), report.findings.end(), Pictured)) {
    Legend(out);  // of the findings' timelines
  }
  for (size_t i = 0; i < report.findings.size(); ++i) {
    RenderFinding(view, report.findings[i], id, i, out);
  }
  out << "</section>\n";
}

void RenderKsoftirqdChains(const HtmlTraceView& view, HtmlOut& out) {
  const Report& report = *view.report;
  out << "<section class=\"chains\"><h2>Blocked ksoftirqd chains</h2>\n";
  if (NotAnalysedNote(report, {"ksoftirqd_blocked"}, out)) return;
  if (report.ksoftirqd_blocked.empty()) {
    out << "<p>ksoftirqd never blocked while softirqs were pending on its CPU.</p></section>\n";
    return;
  }
  out << "<p>ksoftirqd switched out (not runnable) while softirqs were pending on its CPU; each "
         "chain reads left to right: what it waited on, and what that waited on.</p>\n";
  std::vector<const KsoftirqdBlockedRow*> rows;
  for (const KsoftirqdBlockedRow& row : report.ksoftirqd_blocked) rows.push_back(&row);
  std::stable_sort(rows.begin(), rows.end(), [](auto* a, auto* b) {
    return a->duration_ns > b->duration_ns;
  });
  for (size_t i = 0; i < rows.size() && i < kMaxChains; ++i) {
    const KsoftirqdBlockedRow& row = *rows[i];
    out << "<div class=\"chain\"><div class=\"link\">";
    out.Text(DescribeTask(row.pid, row.comm, -1));
    out << "<small>";
    out.Text(fmt::format("CPU {}, state {}, blocked {}{} at {}; pending {}", row.cpu, row.state,
                         FormatDuration(row.duration_ns), row.end_known ? "" : " (end unknown)",
                         FormatTimestamp(row.start_ns),
                         FormatSoftirqMask(row.pending_mask_start)));
    out << "</small></div>";
    for (const ChainLink& link : row.chain) {
      out << "<span class=\"arrow\">→ ";
      out.Text(link.relation);
      out << "</span><div class=\"link\">";
      out.Text(DescribeTask(link.pid, link.comm, link.prio));
      if (link.since_ns != 0) {
        out << "<small>since " << FormatTimestamp(link.since_ns) << "</small>";
      }
      out << "</div>";
    }
    if (row.waker_pid >= 0) {
      out << "<span class=\"arrow\">→ woken by</span><div class=\"link\">";
      out.Text(DescribeTask(row.waker_pid, row.waker_comm, -1));
      out << "<small>";
      out.Text(fmt::format("CPU {}, in {}", row.waker_cpu, row.waker_context));
      out << "</small></div>";
    }
    out << "</div>\n";
    if (!row.cpu_held_by.empty()) {
      out << "<p class=\"note\">CPU " << std::to_string(row.cpu) << " meanwhile: ";
      for (size_t h = 0; h < row.cpu_held_by.size() && h < 4; ++h) {
        const TaskTime& held = row.cpu_held_by[h];
        out.Text(fmt::format("{}{} {}", h == 0 ? "" : ", ",
                             DescribeTask(held.pid, held.comm, held.prio),
                             FormatDuration(held.time_ns)));
      }
      out << "</p>\n";
    }
  }
  size_t hidden = rows.size() > kMaxChains ? rows.size() - kMaxChains : 0;
  int64_t not_listed = report.ksoftirqd_blocked_not_listed + static_cast<int64_t>(hidden);
  if (not_listed > 0) {
    out << fmt::format("<p class=\"note\">{} shorter intervals not shown (JSON lists the "
                       "report's rows).</p>\n",
                       not_listed);
  }
  out << "</section>\n";
}

void RenderTraceHeader(const HtmlTraceView& view, std::string_view id, HtmlOut& out) {
  const Report& report = *view.report;
  const TraceSummary& s = report.trace;
  out << fmt::format("<section class=\"header\" id=\"{}-header\"><h2>Trace</h2>\n", id);
  out << "<table><tbody>";
  auto row = [&out](std::string_view key, const std::string& value) {
    out << "<tr><th>" << key << "</th><td>";
    out.Text(value);
    out << "</td></tr>";
  };
  row("file", s.meta.path.empty() ? view.path : s.meta.path);
  row("format", DescribeTraceFormat(s.meta));
  row("kernel", s.meta.kernel_release.empty() ? "unknown (the file has no uname)"
                                              : s.meta.kernel_release);
  row("preemption", KernelModelLine(report.kernel));
  row("CPUs", std::to_string(s.meta.cpus));
  row("events", std::to_string(s.events));
  if (s.events > 0) {
    row("span", fmt::format("{} .. {} ({})", FormatTimestamp(s.first_ts_ns),
                            FormatTimestamp(s.last_ts_ns),
                            FormatDuration(s.last_ts_ns - s.first_ts_ns)));
  }
  if (report.window.restricted()) {
    const AnalysisWindow& w = report.window;
    row("window", fmt::format("{} .. {} (what begins inside counts)",
                              w.from_ns == std::numeric_limits<TimestampNs>::min()
                                  ? std::string("start")
                                  : FormatTimestamp(w.from_ns),
                              w.to_ns == std::numeric_limits<TimestampNs>::max()
                                  ? std::string("end")
                                  : FormatTimestamp(w.to_ns)));
  }
  if (!report.cpus.empty()) row("rows of CPUs", fmt::format("{}", fmt::join(report.cpus, ",")));
  int64_t lost = 0;
  for (const CpuMissedSummary& m : s.missed_per_cpu) lost += m.events;
  row("lost events", s.missed.empty()
                         ? std::string("none")
                         : fmt::format("{}, {} known lost", Counted(std::ssize(s.missed), "gap"),
                                       Counted(lost, "event")));
  for (const std::string& warning : s.meta.warnings) row("warning", warning);
  out << "</tbody></table>\n";

  bool any_lost = false;
  for (const CpuMissedSummary& m : s.missed_per_cpu) any_lost = any_lost || m.gaps > 0;
  if (any_lost) {
    out << "<h3>Lost events per CPU</h3><table class=\"sortable\"><thead><tr><th>CPU</th>"
           "<th>what was lost</th></tr></thead><tbody>";
    for (const CpuMissedSummary& m : s.missed_per_cpu) {
      if (m.gaps == 0) continue;
      out << fmt::format("<tr><td class=\"num\">{}</td><td>", m.cpu);
      out.Text(DescribeMissed(m, s.last_ts_ns - s.first_ts_ns));
      out << "</td></tr>";
    }
    out << "</tbody></table><p class=\"note\">Waits pending across a loss are dropped, not "
           "guessed.</p>\n";
  }

  out << "<h3>Analyses</h3><table class=\"analyses\"><thead><tr><th>analysis</th><th>ran</th>"
         "<th>why not, or what it lacked</th></tr></thead><tbody>";
  for (const AnalysisAvailability& a : s.analyses) {
    if (!ReportRunsAnalysis(a.id)) continue;
    std::string why = a.note;
    if (why.empty() && !a.available) {
      why = fmt::format("needs {}", fmt::join(a.missing_required, ", "));
    } else if (why.empty() && !a.missing_optional.empty()) {
      why = fmt::format("less complete without {}", fmt::join(a.missing_optional, ", "));
    }
    out << fmt::format("<tr data-analysis=\"{}\"><td>", HtmlEscape(a.id));
    out.Text(a.title);
    out << fmt::format("</td><td>{}</td><td>", a.available ? "yes" : "<b class=\"error\">no</b>");
    out.Text(why);
    out << "</td></tr>";
  }
  out << "</tbody></table>\n";
  if (report.anomalies.missing_switches > 0 || report.anomalies.unmatched_exits > 0) {
    out << "<p class=\"note\">";
    out.Text(fmt::format("{} sched_switch events missing (the time before each is unknown); {} "
                         "IRQ/softirq exits without an entry.",
                         report.anomalies.missing_switches, report.anomalies.unmatched_exits));
    out << "</p>\n";
  }
  out << "</section>\n";
}

}  // namespace napiscope::internal
