#include "palette.h"

#include <algorithm>
#include <cmath>

#include "napiscope/palette.h"
#include "qt_text.h"

namespace napiscope::gui::palette {
namespace {

namespace core = ::napiscope::palette;

// The core's colours (napiscope/palette.h, shared with the HTML report) as Qt colours.
QColor Q(Rgb color) { return QColor(color.red(), color.green(), color.blue(), color.alpha); }

}  // namespace

QColor TaskClassColor(TaskClass task_class) { return Q(core::TaskClassColor(task_class)); }

QString TaskClassLabel(TaskClass task_class) { return Str(core::TaskClassLabel(task_class)); }

QColor VectorColor(uint32_t vec) { return Q(core::VectorColor(vec)); }
QColor KeyColor(Lane lane, uint16_t key) { return Q(core::KeyColor(lane, key)); }
QColor ActivationColor(ActivationKind kind) { return Q(core::ActivationColor(kind)); }

QColor CpuColor(int cpu) {
  // Golden-ratio hues: neighbouring CPUs differ, and any count gets colours.
  double hue = std::fmod(cpu * 0.618033988749895, 1.0);
  return QColor::fromHsvF(static_cast<float>(hue), 0.5f, 0.9f);
}

QColor Idle() { return Q(core::Idle()); }
QColor SameCpu() { return Q(core::SameCpu()); }
QColor CrossCpu() { return Q(core::CrossCpu()); }
QColor ExhaustedMark() { return Q(core::ExhaustedMark()); }
QColor GapFill() { return QColor(0xf3ead9); }
QColor SoftirqWait() { return Q(core::WaitColor()); }
QColor WakeWait() { return QColor(0x4a6fa5); }
QColor GapHatch() { return QColor(0xc2a878); }
QColor SeverityColor(Severity severity) { return Q(core::SeverityColor(severity)); }
QColor MarkerA() { return Q(core::MarkerA()); }
QColor MarkerB() { return Q(core::MarkerB()); }
QColor Highlight() { return Q(core::Highlight()); }
QColor Emphasis() { return Q(core::Emphasis()); }
QColor LaneBackground() { return Q(core::LaneBackground()); }
QColor LaneBackgroundAlt() { return Q(core::LaneBackgroundAlt()); }
QColor LabelBackground() { return Q(core::LabelBackground()); }
QColor PinnedLabel() { return QColor(0xdbe7f5); }
QColor Text() { return Q(core::Text()); }
QColor GridLine() { return Q(core::GridLine()); }

std::vector<TaskClass> TaskClassesShown(const Timeline& timeline) {
  const std::vector<TimelineItem>& items = timeline.items();
  std::vector<TaskClass> shown;
  for (TaskClass c : LegendTaskClasses()) {
    if (std::any_of(items.begin(), items.end(), [c](const TimelineItem& item) {
          return item.lane == Lane::kTask && item.task_class == c;
        })) {
      shown.push_back(c);
    }
  }
  return shown;
}

std::vector<LegendGroup> Legend(const std::vector<TaskClass>& task_classes) {
  std::vector<LegendGroup> groups;
  LegendGroup tasks{"Task", {}};
  for (TaskClass c : task_classes) tasks.entries.push_back({TaskClassColor(c), TaskClassLabel(c)});
  if (!tasks.entries.empty()) groups.push_back(tasks);
  LegendGroup vectors{"Softirq", {}};
  for (uint32_t vec = 0; vec < kSoftirqVectorCount; ++vec) {
    vectors.entries.push_back(
        {VectorColor(vec), Str(SoftirqVectorName(vec))});
  }
  vectors.entries.push_back({SoftirqWait(), "raise → entry", true});
  groups.push_back(vectors);
  groups.push_back({"NAPI", {{ExhaustedMark(), "work ≥ budget"}}});
  groups.push_back({"Cross-CPU",
                    {{ActivationColor(ActivationKind::kIrqThread), "IRQ → thread", true},
                     {ActivationColor(ActivationKind::kNapiKthread), "wake NAPI", true},
                     {ActivationColor(ActivationKind::kKsoftirqd), "wake ksoftirqd", true}}});
  groups.push_back({"Thread lane",
                    {{CpuColor(0), "ran (colour per CPU)"},
                     {ActivationColor(ActivationKind::kIrqThread), "woken → ran", true},
                     {WakeWait(), "woken → ran (other tasks)", true},
                     {Text(), "▼ migrated", true}}});
  groups.push_back(
      {"", {{GapFill(), "unknown (events lost or sched_switch missing)", false, true}}});
  return groups;
}

}  // namespace napiscope::gui::palette
