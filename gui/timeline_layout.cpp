#include "timeline_layout.h"

#include <algorithm>
#include <cmath>

namespace napiscope::gui {

double TimeAxis::XOf(TimestampNs ts_ns) const {
  return left + static_cast<double>(ts_ns - from_ns) * width / static_cast<double>(to_ns - from_ns);
}

TimestampNs TimeAxis::TimeAt(double x) const {
  return from_ns + static_cast<TimestampNs>(std::llround((x - left) * NsPerPixel()));
}

TimelineLayout::TimelineLayout(int cpus, const std::vector<bool>& visible, int width)
    : width_(width) {
  int y = kRulerHeight;
  for (int cpu = 0; cpu < cpus; ++cpu) {
    if (cpu < static_cast<int>(visible.size()) && !visible[cpu]) continue;
    y += kCpuGap;
    for (RowKind kind :
         {RowKind::kTask, RowKind::kHardirq, RowKind::kSoftirq, RowKind::kNapiPoll}) {
      rows_.push_back({cpu, kind, y, RowHeight(kind)});
      y += RowHeight(kind);
    }
  }
  height_ = y + kCpuGap;
}

const LaneRow* TimelineLayout::RowAt(int y) const {
  for (const LaneRow& row : rows_) {
    if (y >= row.top && y < row.bottom()) return &row;
  }
  return nullptr;
}

const LaneRow* TimelineLayout::Find(int cpu, RowKind kind) const {
  for (const LaneRow& row : rows_) {
    if (row.cpu == cpu && row.kind == kind) return &row;
  }
  return nullptr;
}

std::optional<std::pair<int, int>> TimelineLayout::CpuSpan(int cpu) const {
  std::optional<std::pair<int, int>> span;
  for (const LaneRow& row : rows_) {
    if (row.cpu != cpu) continue;
    if (!span) span = std::make_pair(row.top, row.bottom());
    span->second = row.bottom();
  }
  return span;
}

int TimelineLayout::RowHeight(RowKind kind) {
  switch (kind) {
    case RowKind::kTask:
      return 26;
    case RowKind::kHardirq:
      return 18;
    case RowKind::kSoftirq:
      return 24;
    case RowKind::kNapiPoll:
      return 22;
  }
  return 22;
}

Lane TimelineLayout::LaneOf(RowKind kind) {
  switch (kind) {
    case RowKind::kTask:
      return Lane::kTask;
    case RowKind::kHardirq:
      return Lane::kHardirq;
    case RowKind::kSoftirq:
      return Lane::kSoftirq;
    case RowKind::kNapiPoll:
      return Lane::kNapiPoll;
  }
  return Lane::kTask;
}

const char* TimelineLayout::RowName(RowKind kind) {
  switch (kind) {
    case RowKind::kTask:
      return "task";
    case RowKind::kHardirq:
      return "hard IRQ";
    case RowKind::kSoftirq:
      return "softirq";
    case RowKind::kNapiPoll:
      return "NAPI poll";
  }
  return "";
}

}  // namespace napiscope::gui
