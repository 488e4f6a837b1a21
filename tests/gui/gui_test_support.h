// Helpers for the GUI tests: load a trace for a view, and read the colour under a lane.
#pragma once

#include <QColor>
#include <QImage>
#include <memory>
#include <string>

#include "loaded_trace.h"
#include "timeline_view.h"

namespace napiscope::gui::testing {

/// Loads testdata/`relative` for the views; fails the test (and returns null) on error.
std::shared_ptr<const LoadedTrace> LoadTestTrace(const std::string& relative);

/// Colour of the rendered `image` at time `ts_ns` in the row `kind` of `cpu`, `dy` pixels
/// below the row's centre.
QColor ColorAt(const TimelineView& view, const QImage& image, int cpu, RowKind kind,
               TimestampNs ts_ns, int dy = 0);

/// Renders `view` to an image as it would appear on screen.
QImage Render(TimelineView& view);

}  // namespace napiscope::gui::testing
