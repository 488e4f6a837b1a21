// `napiscope diff` output: text with units, "napiscope.diff/1" JSON, Markdown.
#include <algorithm>
#include <array>
#include <cmath>

#include <fmt/format.h>

#include "napiscope/format.h"
#include "napiscope/phrasing.h"
#include "napiscope/report_diff.h"
#include "render/text_layout.h"

namespace napiscope {
namespace {

std::string FormatValue(MetricUnit unit, double value) {
  switch (unit) {
    case MetricUnit::kNs: return FormatDuration(std::llround(value));
    case MetricUnit::kShare: return fmt::format("{:.1f}%", value * 100);
    case MetricUnit::kCount: return fmt::format("{}", std::llround(value));
  }
  return "";
}

std::string FormatChange(const DiffRow& row) {
  if (!row.before || !row.after) return "";
  double change = row.Change();
  std::string sign = change > 0 ? "+" : "";
  // A share compares in percentage points: idle 0.0% -> 0.1% is +0.1 pp, not +85.5%.
  if (row.unit == MetricUnit::kShare) return fmt::format("{}{:.1f} pp", sign, change * 100);
  std::string absolute = sign + FormatValue(row.unit, change);
  std::optional<double> relative = row.RelativeChange();
  return fmt::format("{} ({})", absolute,
                     relative ? fmt::format("{}{:.1f}%", *relative > 0 ? "+" : "", *relative * 100)
                              : std::string("from 0"));
}

std::string Side(const DiffRow& row, const std::optional<double>& value) {
  return value ? FormatValue(row.unit, *value) : "-";
}

// "within 5%": how every output names the noise band.
std::string WithinBand(double noise_percent) { return fmt::format("within {:g}%", noise_percent); }

// " (4 within 5%)" after a count of unchanged metrics; "" when none moved within the band.
std::string WithinBandNote(int within_noise, double noise_percent) {
  if (within_noise == 0) return "";
  return fmt::format(" ({} {})", within_noise, WithinBand(noise_percent));
}

// The verdict column; `noise_percent` names the band of kWithinNoise.
std::string Mark(ChangeVerdict verdict, double noise_percent) {
  switch (verdict) {
    case ChangeVerdict::kWithinNoise:
      return WithinBand(noise_percent);
    case ChangeVerdict::kImproved: return "improved";
    case ChangeVerdict::kRegressed: return "REGRESSED";
    case ChangeVerdict::kChanged: return "changed";
    case ChangeVerdict::kOnlyBefore: return "gone";
    case ChangeVerdict::kOnlyAfter: return "new";
    case ChangeVerdict::kFewSamples: return "few samples";
    case ChangeVerdict::kNotSignificant: return "not significant";
    case ChangeVerdict::kSame: return "";
  }
  return "";
}

nlohmann::json JsonValue(MetricUnit unit, const std::optional<double>& value) {
  if (!value) return nullptr;
  if (unit == MetricUnit::kShare) return *value;
  return std::llround(*value);
}


std::string Samples(const DiffRow& row) {
  if (row.before_samples < 0 && row.after_samples < 0) return "";
  auto side = [](int64_t n) { return n < 0 ? std::string("-") : fmt::format("{}", n); };
  return side(row.before_samples) + " -> " + side(row.after_samples);
}

std::string CountsLine(const ReportDiff& diff) {
  DiffCounts counts = CountVerdicts(diff);
  std::string line =
      fmt::format("{} regressed, {} improved, {} unchanged{}", counts.regressed, counts.improved,
                  counts.unchanged, WithinBandNote(counts.within_noise, diff.noise_percent));
  if (counts.only_one_side > 0) line += fmt::format(", {} in one trace only", counts.only_one_side);
  if (counts.not_significant > 0) {
    line += fmt::format(", {} not significant", counts.not_significant);
  }
  if (counts.few_samples > 0) {
    line += fmt::format(", {} not judged (too few samples)", counts.few_samples);
  }
  int new_findings = 0, worse = 0, gone = 0;
  for (const FindingDiff& f : diff.findings) {
    new_findings += f.change == FindingChange::kNew;
    worse += f.change == FindingChange::kWorse;
    gone += f.change == FindingChange::kGone;
  }
  return line + fmt::format("; findings: {} new, {} worse, {} gone", new_findings, worse, gone);
}

// The metrics table: a row per metric, or, when a row is wider than `width`, each metric on
// two lines (what and verdict; the numbers under it), so that an 80-column terminal reads it.
std::string MetricsTable(const ReportDiff& diff, size_t width) {
  enum Column { kMetric, kSubject, kBefore, kAfter, kChange, kSamples, kVerdict, kColumns };
  using Cells = std::array<std::string, kColumns>;
  std::vector<Cells> cells;
  cells.push_back({"metric", "subject", "before", "after", "change", "samples", ""});
  for (const DiffRow* row : RowsByImportance(diff)) {
    cells.push_back({row->label, row->subject, Side(*row, row->before), Side(*row, row->after),
                     row->verdict == ChangeVerdict::kSame ? "=" : FormatChange(*row), Samples(*row),
                     Mark(row->verdict, diff.noise_percent)});
  }
  std::array<size_t, kColumns> w{};
  for (const Cells& line : cells) {
    for (size_t i = 0; i < line.size(); ++i) w[i] = std::max(w[i], line[i].size());
  }
  auto trimmed = [](std::string line) {
    line.erase(line.find_last_not_of(' ') + 1);
    return line + "\n";
  };
  size_t row_width = 2 + w[kMetric] + 2 + w[kSubject] + 2 + w[kBefore] + 2 + w[kAfter] + 2 +
                     w[kChange] + 2 + w[kSamples] + 2 + w[kVerdict];
  std::string text;
  for (const Cells& line : cells) {
    if (width == 0 || row_width <= width) {
      text += trimmed(fmt::format("  {:<{}}  {:<{}}  {:>{}}  {:>{}}  {:<{}}  {:>{}}  {}",
                                  line[kMetric], w[kMetric], line[kSubject], w[kSubject],
                                  line[kBefore], w[kBefore], line[kAfter], w[kAfter], line[kChange],
                                  w[kChange], line[kSamples], w[kSamples], line[kVerdict]));
    } else {
      text += trimmed(fmt::format("  {:<{}}  {:<{}}  {}", line[kMetric], w[kMetric], line[kSubject],
                                  w[kSubject], line[kVerdict]));
      text += trimmed(fmt::format("      {:>{}}  {:>{}}  {:<{}}  {:>{}}", line[kBefore], w[kBefore],
                                  line[kAfter], w[kAfter], line[kChange], w[kChange],
                                  line[kSamples], w[kSamples]));
    }
  }
  return text;
}

}  // namespace

std::string DiffToText(const ReportDiff& diff, size_t width) {
  std::string text = CountsLine(diff) + "\n";  // one line, whatever its width: for `head -1`
  text += fmt::format("before: {}\nafter:  {}\n", diff.before_path, diff.after_path);
  for (const std::string& warning : diff.warnings) {
    text += internal::JoinLines(internal::Wrap(warning, width, "warning: "));
  }
  if (!diff.findings.empty()) {
    text += "\nfindings that changed:\n";
    for (const FindingDiff& f : diff.findings) {
      std::string prefix = fmt::format("  {:<6} {:<8} ", FindingChangeName(f.change),
                                       SeverityName(f.severity));
      text += internal::JoinLines(internal::Wrap(f.summary, width, prefix));
    }
  }
  text += "\n" + internal::JoinLines(internal::Wrap(
                     fmt::format("metrics, most changed first (samples: waits, wakeups, "
                                 "activations or polls behind a value, before -> after; a p50 is "
                                 "judged from {} on both sides, a p99 from {}; a change is not "
                                 "significant when the 95% confidence intervals its samples give "
                                 "overlap; a change of at most {:g}% (points for a share) is "
                                 "within noise):",
                                 MinSamples("p50"), MinSamples("p99"), diff.noise_percent),
                     width, ""));
  return text + MetricsTable(diff, width);
}

nlohmann::json DiffToJson(const ReportDiff& diff) {
  nlohmann::json rows = nlohmann::json::array();
  for (const DiffRow& row : diff.rows) {
    std::optional<double> relative = row.RelativeChange();
    std::optional<double> percent = row.ChangePercent();
    bool both = row.before && row.after;
    rows.push_back(
        {{"metric", row.metric},
         {"subject", row.subject},
         {"unit", row.unit == MetricUnit::kNs      ? "ns"
                  : row.unit == MetricUnit::kShare ? "share"
                                                   : "count"},
         {"better", row.direction == MetricDirection::kLowerIsBetter ? "lower" : "neutral"},
         {"before", JsonValue(row.unit, row.before)},
         {"after", JsonValue(row.unit, row.after)},
         {"change", both ? JsonValue(row.unit, row.Change()) : nlohmann::json(nullptr)},
         {"relative_change", relative ? nlohmann::json(*relative) : nlohmann::json(nullptr)},
         {"verdict", ChangeVerdictName(row.verdict)},
         {"before_samples", row.before_samples < 0 ? nlohmann::json(nullptr)
                                                   : nlohmann::json(row.before_samples)},
         {"after_samples", row.after_samples < 0 ? nlohmann::json(nullptr)
                                                 : nlohmann::json(row.after_samples)},
         {"change_percent", percent ? nlohmann::json(*percent) : nlohmann::json(nullptr)},
         {"significant",
          row.significant ? nlohmann::json(*row.significant) : nlohmann::json(nullptr)}});
  }
  DiffCounts counts = CountVerdicts(diff);
  nlohmann::json findings = nlohmann::json::array();
  for (const FindingDiff& f : diff.findings) {
    findings.push_back({{"change", FindingChangeName(f.change)},
                        {"rule", f.rule},
                        {"cpu", f.cpu < 0 ? nlohmann::json(nullptr) : nlohmann::json(f.cpu)},
                        {"severity", SeverityName(f.severity)},
                        {"summary", f.summary}});
  }
  return {{"schema", "napiscope.diff/1"},
          {"before", {{"path", diff.before_path}}},
          {"after", {{"path", diff.after_path}}},
          {"noise_percent", diff.noise_percent},
          {"counts",
           {{"regressed", counts.regressed},
            {"improved", counts.improved},
            {"unchanged", counts.unchanged},
            {"within_noise", counts.within_noise},
            {"few_samples", counts.few_samples},
            {"not_significant", counts.not_significant},
            {"only_one_side", counts.only_one_side}}},
          {"warnings", diff.warnings},
          {"findings", findings},
          {"rows", rows}};
}

std::string DiffToMarkdown(const ReportDiff& diff) {
  std::string table;
  int same = 0, within_noise = 0, not_significant = 0;
  for (const DiffRow* row : RowsByImportance(diff)) {
    // A pull-request comment lists what moved beyond the noise; the count says the rest.
    within_noise += row->verdict == ChangeVerdict::kWithinNoise;
    not_significant += row->verdict == ChangeVerdict::kNotSignificant;
    if (row->verdict == ChangeVerdict::kSame || row->verdict == ChangeVerdict::kWithinNoise) {
      ++same;
      continue;
    }
    if (row->verdict == ChangeVerdict::kNotSignificant) continue;
    std::string mark = row->verdict == ChangeVerdict::kImproved ? "✅ improved"
                       : row->verdict == ChangeVerdict::kRegressed
                           ? "🔺 regressed"
                           : Mark(row->verdict, diff.noise_percent);
    table += fmt::format("| {} | {} | {} | {} | {} | {} | {} |\n", row->label, row->subject,
                         Side(*row, row->before), Side(*row, row->after), FormatChange(*row),
                         Samples(*row), mark);
  }
  std::string text = fmt::format("### napiscope diff\n\n{}\n\n`{}` → `{}`\n\n", CountsLine(diff),
                                 diff.before_path, diff.after_path);
  for (const std::string& warning : diff.warnings) text += "> **warning:** " + warning + "\n\n";
  if (!diff.findings.empty()) {
    for (const FindingDiff& f : diff.findings) {
      text += fmt::format("- **{}** {}: {}\n", FindingChangeName(f.change),
                          SeverityName(f.severity), f.summary);
    }
    text += "\n";
  }
  if (!table.empty()) {
    text += "| metric | subject | before | after | change | samples | |\n"
            "|---|---|--:|--:|--:|--:|---|\n" +
            table + "\n";
  }
  text += fmt::format("{} metric{} unchanged{}.\n", same, same == 1 ? "" : "s",
                      WithinBandNote(within_noise, diff.noise_percent));
  if (not_significant > 0) {
    text += fmt::format("{} moved by less than their samples can tell (not significant).\n",
                        Counted(not_significant, "metric"));
  }
  return text;
}

}  // namespace napiscope
