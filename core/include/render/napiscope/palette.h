// The colours of timelines and charts, for the HTML report (and meant for the GUI): task kinds,
// softirq vectors, IRQ handlers, NAPI devices, waits, activations, gaps and backgrounds.
// Chosen so that the colours that share a lane or a chart stay apart under protanopia,
// deuteranopia and tritanopia (tests/core/render/palette_test.cpp simulates them).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "napiscope/findings.h"
#include "napiscope/task_class.h"
#include "napiscope/timeline.h"

namespace napiscope {

/// A colour as 0xRRGGBB plus an opacity (255 opaque).
struct Rgb {
  uint32_t rgb = 0;     ///< 0xRRGGBB
  uint8_t alpha = 255;  ///< 0 transparent .. 255 opaque

  /// Red, green and blue components (0-255).
  int red() const { return static_cast<int>((rgb >> 16) & 0xff); }
  int green() const { return static_cast<int>((rgb >> 8) & 0xff); }
  int blue() const { return static_cast<int>(rgb & 0xff); }
  /// "#rrggbb" (opacity left out: CSS and SVG carry it separately).
  std::string Hex() const;
  bool operator==(const Rgb&) const = default;
};

namespace palette {

/// Fill of an interval of `lane` with colour `key` (see Lane for what keys mean).
Rgb KeyColor(Lane lane, uint16_t key);

/// Colour of a task kind.
Rgb TaskClassColor(TaskClass task_class);

/// Name of a task kind for people ("IRQ thread", "NAPI kthread").
std::string_view TaskClassLabel(TaskClass task_class);

/// Every task kind a task lane colours, in legend order (idle is drawn as no colour).
std::vector<TaskClass> LegendTaskClasses();

/// Colour of a softirq vector (grey past the ten known vectors).
Rgb VectorColor(uint32_t vec);

/// Colour of every raise-to-entry wait, whatever its vector (timelines and legends alike).
Rgb WaitColor();

/// Colour of hard IRQ handler key `key` (muted, so softirqs stay the loudest colour).
Rgb HandlerColor(uint16_t key);

/// Colour of NAPI device key `key`.
Rgb DeviceColor(uint16_t key);

/// Colour of an activation arrow.
Rgb ActivationColor(ActivationKind kind);

/// Hard IRQ time as one colour (the CPU time chart, where handlers are not told apart).
Rgb Hardirq();

/// Exhausted NAPI polls (work >= budget) are marked with this.
Rgb ExhaustedMark();

/// Idle time in the CPU time chart.
Rgb Idle();

/// Activations that stayed on the activating CPU, and those that crossed to another.
Rgb SameCpu();
Rgb CrossCpu();

/// Shading of time nothing is known about (translucent).
Rgb GapShade();

/// Marker A (click) and marker B (shift-click) of the GUI.
Rgb MarkerA();
Rgb MarkerB();

/// Tint over the CPUs and time window of the selected finding (translucent).
Rgb Highlight();

/// Outline of the intervals a selected finding names (its vector, IRQ or threads).
Rgb Emphasis();

/// Backgrounds: of the lanes, of every other lane, of the label column; text and grid lines.
Rgb LaneBackground();
Rgb LaneBackgroundAlt();
Rgb LabelBackground();
Rgb Text();
Rgb GridLine();

/// Colour of a finding's severity.
Rgb SeverityColor(Severity severity);

/// `color` made lighter by `percent` (125: a quarter brighter), as in HSV value.
Rgb Lighter(Rgb color, int percent);

}  // namespace palette
}  // namespace napiscope
