// Escaping, SVG primitives, the inline style sheet and script of the HTML report, and the
// one-pass load (analyses, and the timeline built from their context tracker) it draws from.
#include <cmath>

#include <fmt/format.h>

#include "napiscope/analysis_session.h"
#include "render/html_parts.h"

namespace napiscope {

absl::Status LoadHtmlTrace(const std::string& path, const AnalysisOptions& options,
                           HtmlTrace* trace) {
  trace->path = options.load.name.empty() ? path : options.load.name;
  // One tracker and one set of producers for the report and the timeline, as in the GUI.
  SessionOutputs outputs;
  outputs.timeline = true;
  AnalysisSession session(options, outputs);
  absl::Status status = session.Load(path, trace->context);
  if (!status.ok()) return status;
  trace->report = session.Finish(trace->context);
  trace->timeline = session.TakeTimeline();
  return absl::OkStatus();
}

namespace internal {

std::string HtmlEscape(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += "&#39;";
        break;
      default:
        out += c;
    }
  }
  return out;
}

std::string Coord(double value) {
  double rounded = std::round(value * 10) / 10;
  if (rounded == std::floor(rounded)) return fmt::format("{}", static_cast<int64_t>(rounded));
  return fmt::format("{:.1f}", rounded);
}

double EstimatedTextWidth(std::string_view text, bool bold) {
  // Measured in headless Chromium: about 5.9 pixels a character, 7.1 in bold.
  size_t characters = 0;
  for (char c : text) characters += (static_cast<unsigned char>(c) & 0xc0) != 0x80;
  return static_cast<double>(characters) * (bold ? 7.4 : 6.2);
}

std::string_view FittingPrefix(std::string_view text, double width) {
  // Continuation bytes add no width, so the cut falls between whole characters.
  size_t fits = 0;
  while (fits < text.size() && EstimatedTextWidth(text.substr(0, fits + 1)) <= width) ++fits;
  return text.substr(0, fits);
}

std::string AxisCount(int64_t count) {
  if (count < 100'000) return std::to_string(count);
  if (count < 1'000'000) return fmt::format("{}k", count / 1000);
  return fmt::format("{:.1f}M", static_cast<double>(count) / 1e6);
}

std::string PercentText(int64_t part, int64_t whole) {
  return whole > 0 ? fmt::format("{:.1f}%", 100.0 * static_cast<double>(part) / whole) : "-";
}

bool NotAnalysedNote(const Report& report, std::initializer_list<std::string_view> ids,
                     HtmlOut& out) {
  std::vector<const AnalysisAvailability*> not_run;
  for (std::string_view id : ids) {
    const AnalysisAvailability* analysis = report.Availability(id);
    if (analysis == nullptr || analysis->available) return false;
    not_run.push_back(analysis);
  }
  out << "<p class=\"note\">Not analysed: ";
  for (size_t i = 0; i < not_run.size(); ++i) {
    if (i > 0) out << "; ";
    if (not_run.size() > 1) out.Text(not_run[i]->title + ": ");
    out.Text(not_run[i]->note);
  }
  out << "</p></section>\n";
  return true;
}

HtmlOut& HtmlOut::Text(std::string_view text) {
  out_ += HtmlEscape(text);
  return *this;
}

void HtmlOut::Rect(double x, double y, double width, double height, Rgb color,
                   std::string_view tooltip, std::string_view css_class) {
  out_ += fmt::format("<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"{}\"", Coord(x),
                      Coord(y), Coord(width), Coord(height), color.Hex());
  if (color.alpha != 255) out_ += fmt::format(" fill-opacity=\"{:.2f}\"", color.alpha / 255.0);
  if (!css_class.empty()) out_ += fmt::format(" class=\"{}\"", css_class);
  if (tooltip.empty()) {
    out_ += "/>";
  } else {
    out_ += "><title>" + HtmlEscape(tooltip) + "</title></rect>";
  }
}

void HtmlOut::SvgText(double x, double y, std::string_view text, std::string_view anchor,
                      std::string_view css_class) {
  out_ += fmt::format("<text x=\"{}\" y=\"{}\"", Coord(x), Coord(y));
  if (anchor != "start") out_ += fmt::format(" text-anchor=\"{}\"", anchor);
  if (!css_class.empty()) out_ += fmt::format(" class=\"{}\"", css_class);
  out_ += ">" + HtmlEscape(text) + "</text>";
}

void HtmlOut::Line(double x1, double y1, double x2, double y2, Rgb color, double width,
                   std::string_view css_class) {
  out_ += fmt::format("<line x1=\"{}\" y1=\"{}\" x2=\"{}\" y2=\"{}\" stroke=\"{}\"", Coord(x1),
                      Coord(y1), Coord(x2), Coord(y2), color.Hex());
  if (width != 1) out_ += fmt::format(" stroke-width=\"{}\"", Coord(width));
  if (!css_class.empty()) out_ += fmt::format(" class=\"{}\"", css_class);
  out_ += "/>";
}

std::string HtmlStyle() {
  // The colours the SVG and the GUI share come from the palette; the rest is the page's own.
  std::string root = fmt::format(
      ":root{{--text:{};--muted:#57606a;--grid:{};--bg-alt:{};--label:{};--error:{};"
      "--warning:{};--info:{}}}",
      palette::Text().Hex(), palette::GridLine().Hex(), palette::LaneBackgroundAlt().Hex(),
      palette::LabelBackground().Hex(), palette::SeverityColor(Severity::kError).Hex(),
      palette::SeverityColor(Severity::kWarning).Hex(),
      palette::SeverityColor(Severity::kInfo).Hex());
  return root + R"CSS(
*{box-sizing:border-box}
body{font:14px/1.45 system-ui,-apple-system,"Segoe UI",sans-serif;color:var(--text);margin:0;
background:#fff}
main{max-width:1180px;margin:0 auto;padding:16px 20px}
h1{font-size:22px;margin:8px 0 12px}h2{font-size:18px;margin:24px 0 8px;border-bottom:1px solid
var(--grid);padding-bottom:4px}h3{font-size:15px;margin:16px 0 6px}
code{font:12.5px ui-monospace,"DejaVu Sans Mono",monospace}
table{border-collapse:collapse;margin:6px 0 12px;font-size:13px}
th,td{border:1px solid var(--grid);padding:3px 7px;text-align:left;vertical-align:top}
th{background:var(--label)}td.num,th.num{text-align:right;font-variant-numeric:tabular-nums}
table.sortable th{cursor:pointer}
.finding{border:1px solid var(--grid);border-left:6px solid var(--info);border-radius:4px;
margin:10px 0;padding:8px 12px;break-inside:avoid}
.finding.sev-error{border-left-color:var(--error)}
.finding.sev-warning{border-left-color:var(--warning)}
.sev{display:inline-block;font-weight:600;font-size:12px;padding:0 6px;border-radius:3px;
color:#fff;background:var(--info);margin-right:6px;text-transform:uppercase}
.sev.sev-error{background:var(--error)}.sev.sev-warning{background:var(--warning)}
.sentence{font-size:15px}.when{color:var(--muted);font-size:12.5px}
dl.evidence{display:grid;grid-template-columns:max-content 1fr;gap:0 12px;margin:6px 0;
font-size:12.5px}dl.evidence dt{color:var(--muted)}dl.evidence dd{margin:0;
font-family:ui-monospace,"DejaVu Sans Mono",monospace;overflow-wrap:anywhere;
white-space:pre-line}
svg{display:block;max-width:100%;height:auto;font:11px system-ui,sans-serif}
svg text{fill:var(--text)}svg .axis{fill:var(--muted)}svg .mark{font-weight:600}
svg text.on-dark{fill:#fff}svg rect.named{stroke:#111;stroke-width:1}
.legend{display:flex;flex-wrap:wrap;gap:4px 14px;font-size:12px;margin:4px 0 8px}
.legend span{display:inline-flex;align-items:center;gap:4px}
.legend i{display:inline-block;width:12px;height:12px;border:1px solid #0003}
.legend i.thin{height:5px}
.charts{display:flex;flex-wrap:wrap;gap:10px 24px}.chart{flex:0 1 540px}
.chain{display:flex;flex-wrap:wrap;align-items:center;gap:4px;margin:4px 0 10px}
.link{border:1px solid var(--grid);border-radius:4px;padding:3px 8px;background:var(--bg-alt)}
.link small{display:block;color:var(--muted)}.arrow{color:var(--muted);font-size:12px}
.verdict{font-weight:600;padding:0 6px;border-radius:3px;color:#fff}
.verdict.failed,.verdict.unreadable{background:var(--error)}.verdict.passed{background:#1a7f37}
.error{color:var(--error)}.note{color:var(--muted)}
.badge{font-size:12px;font-weight:600;padding:0 6px;border-radius:3px;color:#fff;
background:var(--warning)}
section.trace{margin-bottom:32px}
footer{color:var(--muted);font-size:12px;text-align:center;padding:16px}
@media print{body{font-size:11px}main{max-width:none;padding:0}h2{break-after:avoid}
.finding,.chart,table,.chain{break-inside:avoid}footer{display:none}
a{color:inherit;text-decoration:none}}
)CSS";
}

std::string_view HtmlScript() {
  // Sorting only: the page reads the same without it.
  return R"JS(
(function(){
  function key(cell){var v=cell.getAttribute('data-v');if(v!==null)return parseFloat(v);
    var t=cell.textContent.trim();var n=parseFloat(t);return isNaN(n)?t.toLowerCase():n;}
  document.querySelectorAll('table.sortable').forEach(function(table){
    table.querySelectorAll('th').forEach(function(th,col){
      th.title='sort';th.addEventListener('click',function(){
        var body=table.tBodies[0];var rows=Array.prototype.slice.call(body.rows);
        var dir=th.getAttribute('data-dir')==='asc'?-1:1;th.setAttribute('data-dir',dir>0?'asc':'desc');
        rows.sort(function(a,b){var x=key(a.cells[col]),y=key(b.cells[col]);
          if(typeof x!==typeof y){x=String(x);y=String(y);}return x<y?-dir:x>y?dir:0;});
        rows.forEach(function(r){body.appendChild(r);});});});});
})();
)JS";
}

}  // namespace internal
}  // namespace napiscope
