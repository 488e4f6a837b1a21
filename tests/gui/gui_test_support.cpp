#include "gui_test_support.h"

#include <gtest/gtest.h>

#include "support/test_support.h"

namespace napiscope::gui::testing {

std::shared_ptr<const LoadedTrace> LoadTestTrace(const std::string& relative) {
  auto trace = std::make_shared<LoadedTrace>();
  absl::Status status = LoadTraceForView(napiscope::testing::TestData(relative), {}, trace.get());
  EXPECT_TRUE(status.ok()) << status.message();
  return status.ok() ? trace : nullptr;
}

QColor ColorAt(const TimelineView& view, const QImage& image, int cpu, RowKind kind,
               TimestampNs ts_ns, int dy) {
  TimelineLayout layout = view.Layout();
  const LaneRow* row = layout.Find(cpu, kind);
  if (row == nullptr) return QColor();
  TimeAxis axis = AxisOf(view.state(), layout);
  return image.pixelColor(static_cast<int>(axis.XOf(ts_ns)), row->center() + dy);
}

QImage Render(TimelineView& view) { return view.grab().toImage(); }

}  // namespace napiscope::gui::testing
