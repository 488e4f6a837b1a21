// The one place that decides the timeline's colours: task kinds, softirq vectors, IRQ
// handlers, NAPI devices, waits, gaps, arrows and markers, plus the legend built from them.
#pragma once

#include <QColor>
#include <QString>
#include <vector>

#include "napiscope/findings.h"
#include "napiscope/palette.h"
#include "napiscope/timeline.h"

namespace napiscope::gui {

/// One swatch of the legend.
struct LegendEntry {
  QColor color;
  QString label;
  bool thin = false;  ///< drawn as a thin bar (waits) rather than a block
  bool hatched = false;  ///< drawn with the unknown-time hatch over the colour
};

/// A titled group of legend swatches.
struct LegendGroup {
  QString title;
  std::vector<LegendEntry> entries;
};

/// Colours of the timeline.
namespace palette {

/// Fill of an interval of `lane` with colour `key` (see Lane for what keys mean).
QColor KeyColor(Lane lane, uint16_t key);

/// Colour of a task kind.
QColor TaskClassColor(TaskClass task_class);

/// Name of a task kind for people ("IRQ thread", "NAPI kthread").
QString TaskClassLabel(TaskClass task_class);

/// Colour of a softirq vector.
QColor VectorColor(uint32_t vec);

/// Colour of a CPU in thread lanes (neighbouring CPUs differ; any CPU count).
QColor CpuColor(int cpu);

/// Colour of an activation arrow.
QColor ActivationColor(ActivationKind kind);

/// A softirq's raise -> entry wait, of any vector, in compact and expanded rows alike.
QColor SoftirqWait();

/// A wake -> run wait of a pinned task that is no service thread (no activation kind).
QColor WakeWait();

/// Exhausted NAPI polls (work >= budget) are marked with this.
QColor ExhaustedMark();

/// Idle time in the CPU time chart.
QColor Idle();

/// Activations that stayed on the activating CPU, and those that crossed to another.
QColor SameCpu();
QColor CrossCpu();

/// Time nothing is known about: a light fill under a hatch, drawn beneath recorded intervals.
QColor GapFill();
QColor GapHatch();

/// Colour of a finding's severity.
QColor SeverityColor(Severity severity);

/// Marker A (click) and marker B (shift-click).
QColor MarkerA();
QColor MarkerB();

/// Tint over the CPUs and time window of the selected finding.
QColor Highlight();

/// Outline of the intervals a selected finding names (its vector, IRQ or threads).
QColor Emphasis();

/// Backgrounds: of the lanes, of every other lane, of the label column, and text.
QColor LaneBackground();
QColor LaneBackgroundAlt();
QColor LabelBackground();
QColor PinnedLabel();
QColor Text();
QColor GridLine();

using ::napiscope::palette::LegendTaskClasses;

/// The task kinds `timeline`'s task lanes show, in legend order.
std::vector<TaskClass> TaskClassesShown(const Timeline& timeline);

/// The legend: the task kinds `task_classes` (named by the core's TaskClassLabel), softirq
/// vectors (with the wait bar), NAPI marks, arrows, gaps.
std::vector<LegendGroup> Legend(const std::vector<TaskClass>& task_classes = LegendTaskClasses());

}  // namespace palette
}  // namespace napiscope::gui
