// Pieces of the HTML report shared by its files: escaping, SVG primitives, axes, and the
// sections each file renders.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <string>
#include <string_view>
#include <vector>

#include "napiscope/palette.h"
#include "napiscope/report.h"
#include "napiscope/report_html.h"

namespace napiscope::internal {

/// `text` safe inside HTML text and attribute values.
std::string HtmlEscape(std::string_view text);

/// Appends SVG and HTML to one string; numbers are written with at most one decimal so that
/// the page stays small.
class HtmlOut {
 public:
  /// Appends raw markup.
  HtmlOut& operator<<(std::string_view markup) {
    out_ += markup;
    return *this;
  }
  /// Appends escaped text.
  HtmlOut& Text(std::string_view text);
  /// An SVG rectangle with fill `color` and an optional tooltip.
  void Rect(double x, double y, double width, double height, Rgb color,
            std::string_view tooltip = {}, std::string_view css_class = {});
  /// An SVG text at (x, y); `anchor` is "start", "middle" or "end".
  void SvgText(double x, double y, std::string_view text, std::string_view anchor = "start",
               std::string_view css_class = {});
  /// An SVG line.
  void Line(double x1, double y1, double x2, double y2, Rgb color, double width = 1,
            std::string_view css_class = {});
  /// Everything appended so far.
  std::string Take() { return std::move(out_); }
  /// Bytes appended so far.
  size_t size() const { return out_.size(); }

 private:
  std::string out_;
};

/// A coordinate with at most one decimal ("12", "12.5").
std::string Coord(double value);

/// A percentage of `part` in `whole` with one decimal ("12.5%"), "-" when whole is 0.
std::string PercentText(int64_t part, int64_t whole);

/// About how wide `text` is in the page's 11-pixel SVG font (bold: the "mark" class), a little
/// more than Chromium draws, so that a label placed by it stays inside its picture.
double EstimatedTextWidth(std::string_view text, bool bold = false);

/// The longest start of `text`, in whole UTF-8 characters, whose EstimatedTextWidth is at
/// most `width` pixels.
std::string_view FittingPrefix(std::string_view text, double width);

/// A count short enough for an axis: exact up to 99999, then "182k", "1.8M".
std::string AxisCount(int64_t count);

/// When none of the analyses `ids` ran (their events were not recorded), writes why and closes
/// the section, and is true: nothing else follows that would read as a result.
bool NotAnalysedNote(const Report& report, std::initializer_list<std::string_view> ids,
                     HtmlOut& out);

/// The sections of one trace. `id` prefixes element ids so that a check page with several
/// traces keeps them unique.
void RenderTraceHeader(const HtmlTraceView& view, std::string_view id, HtmlOut& out);
void RenderFindings(const HtmlTraceView& view, std::string_view id, HtmlOut& out);
void RenderSoftirqWaitCharts(const HtmlTraceView& view, HtmlOut& out);
void RenderWakeLatencyCharts(const HtmlTraceView& view, HtmlOut& out);
void RenderCpuTimeChart(const HtmlTraceView& view, HtmlOut& out);
void RenderActivationCharts(const HtmlTraceView& view, HtmlOut& out);
void RenderNapiBudget(const HtmlTraceView& view, HtmlOut& out);
void RenderNetPath(const HtmlTraceView& view, HtmlOut& out);
void RenderKsoftirqdChains(const HtmlTraceView& view, HtmlOut& out);

/// The timeline of [from_ns, to_ns) for a finding: per CPU of `cpus` its task, hard IRQ,
/// softirq (with the raise-to-entry waits) and NAPI lanes, and a lane per thread of `pids`,
/// binned per pixel column. Empty when the view has no timeline.
std::string FindingTimelineSvg(const HtmlTraceView& view, const std::vector<int>& cpus,
                               const std::vector<int32_t>& pids, const TimelineFilter& named,
                               TimestampNs from_ns, TimestampNs to_ns);

/// The page's style sheet and script (inline; nothing is fetched).
std::string HtmlStyle();
std::string_view HtmlScript();

}  // namespace napiscope::internal
