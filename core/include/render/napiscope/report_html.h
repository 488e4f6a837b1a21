// Renders reports as one self-contained HTML page: inline CSS and SVG (readable without
// JavaScript), a small inline script for sorting tables, nothing fetched from the network.
// Findings come first, each with a timeline of its interval drawn from the Timeline the GUI
// draws; then softirq wait and wake-latency histograms, CPU time, thread activations, NAPI
// budget, blocked ksoftirqd chains and the trace's header.
#pragma once

#include <string>
#include <vector>

#include <absl/status/status.h>

#include "napiscope/analysis_session.h"
#include "napiscope/check_render.h"
#include "napiscope/event_sink.h"
#include "napiscope/report.h"
#include "napiscope/timeline.h"
#include "napiscope/timeline_stats.h"

namespace napiscope {

/// What the HTML report reads of one trace. Only `report` is required: without a timeline the
/// findings have no pictures and the charts that need one say so.
struct HtmlTraceView {
  std::string path;                     ///< the file as given
  const Report* report = nullptr;       ///< the analyses' result
  const Timeline* timeline = nullptr;   ///< lanes for the findings' timelines and histograms
  const StringTable* strings = nullptr;  ///< names the timeline's items refer to
};

/// A trace loaded for the HTML report: the context, the timeline model and the report of one
/// pass over the file, as the GUI loads it.
struct HtmlTrace {
  std::string path;
  TraceContext context;
  Timeline timeline;
  Report report;

  /// The view of this trace for the renderers.
  HtmlTraceView View() const;
};

/// Loads and analyses `path` with `options`, building the timeline in the same pass. Errors
/// are the loader's ("PATH: what is wrong").
absl::Status LoadHtmlTrace(const std::string& path, const AnalysisOptions& options,
                           HtmlTrace* trace);

/// `napiscope report --format html`: a whole page for one trace.
std::string ReportToHtml(const HtmlTraceView& view);

/// One trace's section of a `check` page, rendered right after the trace was analysed so that
/// its timeline need not be kept; `view` is null when the trace could not be read.
/// `index` makes the section's element ids unique on the page.
std::string HtmlCheckSection(const TraceCheck& check, const HtmlTraceView* view,
                             Severity fail_on, size_t index);

/// `napiscope check -f html`: a summary table, then `sections` (one per check, in the same
/// order as `checks`) with the failing traces first.
std::string ChecksToHtml(const std::vector<TraceCheck>& checks,
                         const std::vector<std::string>& sections, Severity fail_on);

}  // namespace napiscope
