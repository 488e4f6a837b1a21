// The HTML page around the sections: document head with the inline style and script, the
// report page of one trace, and the check page of many (failing traces first).
#include <algorithm>
#include <numeric>

#include <fmt/format.h>

#include "napiscope/format.h"
#include "napiscope/phrasing.h"
#include "napiscope/report_html.h"
#include "render/html_parts.h"

namespace napiscope {
namespace {

using internal::HtmlEscape;
using internal::HtmlOut;

void PageStart(std::string_view title, HtmlOut& out) {
  out << "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
      << "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
      // Nothing may be fetched: a CI artifact or a mail attachment opens offline.
      << "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; "
         "style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src data:\">\n"
      << "<title>";
  out.Text(title);
  out << "</title>\n<style>" << internal::HtmlStyle() << "</style>\n</head>\n<body>\n";
}

void PageEnd(HtmlOut& out) {
  out << "<footer>Written by napiscope. Self-contained: no network access; charts are inline "
         "SVG (hover for details); tables sort by a click on their header when scripts run."
         "</footer>\n<script>"
      << internal::HtmlScript() << "</script>\n</body>\n</html>\n";
}

// Findings, charts and tables of one trace, after its header.
void TraceBody(const HtmlTraceView& view, std::string_view id, HtmlOut& out) {
  internal::RenderFindings(view, id, out);
  internal::RenderSoftirqWaitCharts(view, out);
  internal::RenderWakeLatencyCharts(view, out);
  internal::RenderCpuTimeChart(view, out);
  internal::RenderActivationCharts(view, out);
  internal::RenderNapiBudget(view, out);
  internal::RenderNetPath(view, out);
  internal::RenderKsoftirqdChains(view, out);
  internal::RenderTraceHeader(view, id, out);
}

std::string PageVerdict(const TraceCheck& check, const CheckOutcome& outcome) {
  if (!check.status.ok()) return "unreadable";
  return outcome.failed ? "failed" : "passed";
}

// Unreadable first, then failed, then passed; the given order within each.
int PageRank(const TraceCheck& check, Severity fail_on) {
  if (!check.status.ok()) return 0;
  return JudgeCheck(check, fail_on).failed ? 1 : 2;
}

}  // namespace

HtmlTraceView HtmlTrace::View() const {
  return {path, &report, &timeline, &context.strings};
}

std::string ReportToHtml(const HtmlTraceView& view) {
  HtmlOut out;
  PageStart("napiscope report: " + view.path, out);
  out << "<main>\n<h1>napiscope report: <code>";
  out.Text(view.path);
  out << "</code></h1>\n<section class=\"trace\" id=\"t0\">\n";
  TraceBody(view, "t0", out);
  out << "</section>\n</main>\n";
  PageEnd(out);
  return out.Take();
}

std::string HtmlCheckSection(const TraceCheck& check, const HtmlTraceView* view,
                             Severity fail_on, size_t index) {
  CheckOutcome outcome = JudgeCheck(check, fail_on);
  std::string verdict = PageVerdict(check, outcome);
  std::string id = fmt::format("t{}", index);
  HtmlOut out;
  out << fmt::format("<section class=\"trace {}\" id=\"{}\" data-verdict=\"{}\">\n", verdict, id,
                     verdict);
  out << fmt::format("<h2><span class=\"verdict {}\">{}</span> <code>", verdict, verdict);
  out.Text(check.path);
  out << "</code></h2>\n";
  if (!check.status.ok() || view == nullptr) {
    out << "<p class=\"error\">";
    out.Text(check.status.ok() ? std::string("no data") : std::string(check.status.message()));
    out << "</p>\n</section>\n";
    return out.Take();
  }
  out << fmt::format("<p>{}, {}, {} info; the trace fails at {} or above.</p>\n",
                     Counted(outcome.errors, "error"), Counted(outcome.warnings, "warning"),
                     outcome.infos, SeverityName(fail_on));
  // The loader's warnings, above the report they make less sure.
  for (const std::string& warning : LoaderDataWarnings(check.report.trace.meta)) {
    out << "<p class=\"error\">loader warning: ";
    out.Text(warning);
    out << (check.data_loss_fails ? " (fails the trace)" : " (allowed)") << "</p>\n";
  }
  TraceBody(*view, id, out);
  out << "</section>\n";
  return out.Take();
}

std::string ChecksToHtml(const std::vector<TraceCheck>& checks,
                         const std::vector<std::string>& sections, Severity fail_on) {
  std::vector<size_t> order(checks.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    return PageRank(checks[a], fail_on) < PageRank(checks[b], fail_on);
  });
  int failing = 0;
  for (const TraceCheck& check : checks) failing += PageRank(check, fail_on) < 2 ? 1 : 0;

  HtmlOut out;
  PageStart(fmt::format("napiscope check: {} of {} traces failing", failing, checks.size()), out);
  out << fmt::format("<main>\n<h1>napiscope check: {} of {} traces failing</h1>\n", failing,
                     checks.size());
  out << "<section class=\"summary\"><table class=\"sortable\"><thead><tr><th>trace</th>"
         "<th>verdict</th><th class=\"num\">errors</th><th class=\"num\">warnings</th>"
         "<th class=\"num\">infos</th></tr></thead><tbody>\n";
  for (size_t i : order) {
    const TraceCheck& check = checks[i];
    CheckOutcome outcome = JudgeCheck(check, fail_on);
    std::string verdict = PageVerdict(check, outcome);
    out << fmt::format("<tr><td><a href=\"#t{}\"><code>{}</code></a></td>", i,
                       HtmlEscape(check.path));
    out << fmt::format("<td><span class=\"verdict {0}\">{0}</span></td>", verdict);
    out << fmt::format("<td class=\"num\">{}</td><td class=\"num\">{}</td><td class=\"num\">{}"
                       "</td></tr>\n",
                       outcome.errors, outcome.warnings, outcome.infos);
  }
  out << fmt::format("</tbody></table><p>A trace fails when a finding is {} or worse.</p>"
                     "</section>\n",
                     SeverityName(fail_on));
  for (size_t i : order) {
    if (i < sections.size()) out << sections[i];
  }
  out << "</main>\n";
  PageEnd(out);
  return out.Take();
}

}  // namespace napiscope
