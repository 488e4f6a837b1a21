#include "timeline_layout.h"

#include <algorithm>
#include <cmath>

namespace napiscope::gui {
namespace {

constexpr RowKind kLaneRows[] = {RowKind::kTask, RowKind::kHardirq, RowKind::kSoftirq,
                                 RowKind::kNapiPoll};
// CPUs up to this count open with their four rows; more open compact.
constexpr size_t kExpandedByDefaultUpTo = 4;

bool Visible(const TimelineViewState& state, int cpu) {
  return cpu >= static_cast<int>(state.cpu_visible.size()) || state.cpu_visible[cpu];
}

}  // namespace

TimestampNs TimeAxis::TimeAt(double x) const {
  return from_ns + static_cast<TimestampNs>(std::llround((x - left) * NsPerPixel()));
}

bool TimelineLayout::Expanded(const TimelineViewState& state, int cpus, int cpu) {
  if (cpu < static_cast<int>(state.cpu_expanded.size())) return state.cpu_expanded[cpu];
  return ExpandedByDefault(static_cast<size_t>(cpus));
}

bool TimelineLayout::ExpandedByDefault(size_t shown_cpus) {
  return shown_cpus <= kExpandedByDefaultUpTo;
}

TimelineLayout::TimelineLayout(int cpus, const TimelineViewState& state, int width,
                               int viewport_height)
    : width_(width) {
  int y_pinned = kRulerHeight;
  for (int32_t pid : state.pinned_pids) {
    thread_rows_.push_back({-1, RowKind::kThread, y_pinned, kThreadRowHeight, pid});
    y_pinned += kThreadRowHeight;
  }
  rows_top_ = y_pinned + (state.pinned_pids.empty() ? 0 : 2);
  int expanded_height = 0;
  int compact_rows = 0;
  for (int cpu = 0; cpu < cpus; ++cpu) {
    if (!Visible(state, cpu)) continue;
    if (Expanded(state, cpus, cpu)) {
      expanded_height += kCpuGap;
      for (RowKind kind : kLaneRows) expanded_height += RowHeight(kind);
    } else {
      ++compact_rows;
    }
  }
  if (compact_rows > 0 && viewport_height > 0) {
    int free = viewport_height - rows_top_ - kCpuGap - expanded_height;
    compact_height_ =
        std::clamp(free / compact_rows - kCompactGap, kMinCompactHeight, kMaxCompactHeight);
  }
  int scroll = viewport_height > 0 ? state.scroll_y : 0;
  int y = rows_top_ - scroll;
  for (int cpu = 0; cpu < cpus; ++cpu) {
    if (!Visible(state, cpu)) continue;
    if (Expanded(state, cpus, cpu)) {
      y += kCpuGap;
      for (RowKind kind : kLaneRows) {
        rows_.push_back({cpu, kind, y, RowHeight(kind)});
        y += RowHeight(kind);
      }
    } else {
      y += kCompactGap;
      rows_.push_back({cpu, RowKind::kCompact, y, compact_height_});
      y += compact_height_;
    }
  }
  content_height_ = y + scroll + kCpuGap;
  viewport_height_ = viewport_height > 0 ? viewport_height : content_height_;
}

const LaneRow* TimelineLayout::FindThread(int32_t pid) const {
  for (const LaneRow& row : thread_rows_) {
    if (row.pid == pid) return &row;
  }
  return nullptr;
}

const LaneRow* TimelineLayout::RowAt(int y) const {
  for (const LaneRow& row : thread_rows_) {
    if (y >= row.top && y < row.bottom()) return &row;
  }
  if (y < rows_top_) return nullptr;
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

const LaneRow* TimelineLayout::Anchor(int cpu, RowKind kind) const {
  if (const LaneRow* row = Find(cpu, kind)) return row;
  return Find(cpu, RowKind::kCompact);
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

int TimelineLayout::ScrollToShow(int cpu, int scroll_y) const {
  std::optional<std::pair<int, int>> span = CpuSpan(cpu);
  if (!span) return scroll_y;
  int top = span->first - kCompactGap;
  int bottom = span->second + kCompactGap;
  if (top < rows_top_) {
    scroll_y -= rows_top_ - top;
  } else if (bottom > viewport_height_) {
    scroll_y += std::min(bottom - viewport_height_, top - rows_top_);
  }
  return std::clamp(scroll_y, 0, max_scroll());
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
    case RowKind::kCompact:
      return kMaxCompactHeight;
    case RowKind::kThread:
      return kThreadRowHeight;
  }
  return 22;
}

Lane TimelineLayout::LaneOf(RowKind kind) {
  switch (kind) {
    case RowKind::kTask:
    case RowKind::kCompact:
    case RowKind::kThread:
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
    case RowKind::kCompact:
    case RowKind::kThread:
      return "";
  }
  return "";
}

}  // namespace napiscope::gui
