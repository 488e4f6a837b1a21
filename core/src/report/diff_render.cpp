// `napiscope diff` output: text with units, "napiscope.diff/1" JSON, Markdown.
#include <algorithm>
#include <array>
#include <cmath>

#include <fmt/format.h>

#include "napiscope/format.h"
#include "napiscope/report_diff.h"

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
  std::string absolute = row.unit == MetricUnit::kShare
                             ? fmt::format("{}{:.1f} pp", sign, change * 100)
                             : sign + FormatValue(row.unit, change);
  std::optional<double> relative = row.RelativeChange();
  return fmt::format("{} ({})", absolute,
                     relative ? fmt::format("{}{:.1f}%", *relative > 0 ? "+" : "", *relative * 100)
                              : std::string("from 0"));
}

std::string Side(const DiffRow& row, const std::optional<double>& value) {
  return value ? FormatValue(row.unit, *value) : "-";
}

std::string_view Mark(ChangeVerdict verdict) {
  switch (verdict) {
    case ChangeVerdict::kImproved: return "improved";
    case ChangeVerdict::kRegressed: return "REGRESSED";
    case ChangeVerdict::kChanged: return "changed";
    case ChangeVerdict::kOnlyBefore: return "gone";
    case ChangeVerdict::kOnlyAfter: return "new";
    case ChangeVerdict::kSame: return "";
  }
  return "";
}

nlohmann::json JsonValue(MetricUnit unit, const std::optional<double>& value) {
  if (!value) return nullptr;
  if (unit == MetricUnit::kShare) return *value;
  return std::llround(*value);
}

}  // namespace

std::string DiffToText(const ReportDiff& diff) {
  std::vector<std::array<std::string, 6>> cells;
  cells.push_back({"metric", "subject", "before", "after", "change", ""});
  int changed = 0;
  for (const DiffRow& row : diff.rows) {
    changed += row.verdict != ChangeVerdict::kSame;
    cells.push_back({row.label, row.subject, Side(row, row.before), Side(row, row.after),
                     row.verdict == ChangeVerdict::kSame ? "=" : FormatChange(row),
                     std::string(Mark(row.verdict))});
  }
  std::array<size_t, 6> widths{};
  for (const auto& line : cells) {
    for (size_t i = 0; i < line.size(); ++i) widths[i] = std::max(widths[i], line[i].size());
  }
  std::string text = fmt::format("before: {}\nafter:  {}\n{} of {} metrics changed\n\n",
                                 diff.before_path, diff.after_path, changed, diff.rows.size());
  for (const auto& line : cells) {
    std::string out = fmt::format("{:<{}}  {:<{}}  {:>{}}  {:>{}}  {:<{}}  {}", line[0], widths[0],
                                  line[1], widths[1], line[2], widths[2], line[3], widths[3],
                                  line[4], widths[4], line[5]);
    out.erase(out.find_last_not_of(' ') + 1);
    text += out + "\n";
  }
  return text;
}

nlohmann::json DiffToJson(const ReportDiff& diff) {
  nlohmann::json rows = nlohmann::json::array();
  for (const DiffRow& row : diff.rows) {
    std::optional<double> relative = row.RelativeChange();
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
         {"verdict", ChangeVerdictName(row.verdict)}});
  }
  return {{"schema", "napiscope.diff/1"},
          {"before", {{"path", diff.before_path}}},
          {"after", {{"path", diff.after_path}}},
          {"rows", rows}};
}

std::string DiffToMarkdown(const ReportDiff& diff) {
  std::string table;
  int same = 0;
  for (const DiffRow& row : diff.rows) {
    if (row.verdict == ChangeVerdict::kSame) {
      ++same;
      continue;
    }
    std::string_view mark = row.verdict == ChangeVerdict::kImproved    ? "✅ improved"
                            : row.verdict == ChangeVerdict::kRegressed ? "🔺 regressed"
                                                                       : Mark(row.verdict);
    table += fmt::format("| {} | {} | {} | {} | {} | {} |\n", row.label, row.subject,
                         Side(row, row.before), Side(row, row.after), FormatChange(row), mark);
  }
  std::string text = fmt::format("### napiscope diff\n\n`{}` → `{}`\n\n", diff.before_path,
                                 diff.after_path);
  if (!table.empty()) {
    text += "| metric | subject | before | after | change | |\n|---|---|--:|--:|--:|---|\n" + table +
            "\n";
  }
  text += fmt::format("{} metric{} unchanged.\n", same, same == 1 ? "" : "s");
  return text;
}

}  // namespace napiscope
