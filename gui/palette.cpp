#include "palette.h"

#include <array>

namespace napiscope::gui::palette {
namespace {

// Ten vectors, ten distinguishable hues (Tableau 10), NET_RX and NET_TX the strongest.
constexpr std::array<QRgb, kSoftirqVectorCount> kVectorColors = {
    0x9c755f,  // HI
    0xedc948,  // TIMER
    0xf28e2b,  // NET_TX
    0x4e79a7,  // NET_RX
    0xbab0ac,  // BLOCK
    0x76b7b2,  // IRQ_POLL
    0xff9da7,  // TASKLET
    0xe15759,  // SCHED
    0xb07aa1,  // HRTIMER
    0x59a14f,  // RCU
};

// Hard IRQ handlers get muted hues so softirqs stay the loudest colour on screen.
constexpr std::array<QRgb, 8> kHandlerColors = {0x8c6d31, 0x637939, 0x7b4173, 0x843c39,
                                                0x3182bd, 0x31a354, 0x756bb1, 0x636363};

constexpr std::array<QRgb, 6> kDeviceColors = {0x2ca25f, 0x3182bd, 0x8856a7,
                                               0xd95f0e, 0x1c9099, 0x636363};

}  // namespace

QColor TaskClassColor(TaskClass task_class) {
  switch (task_class) {
    case TaskClass::kIdle:
      return QColor(0xffffff);
    case TaskClass::kIrqThread:
      return QColor(0xff7f0e);
    case TaskClass::kKsoftirqd:
    case TaskClass::kSoftirqThread:  // RT softirq threads do ksoftirqd's work
      return QColor(0x9467bd);
    case TaskClass::kNapiKthread:
      return QColor(0x17becf);
    case TaskClass::kRtTask:
      return QColor(0xd62728);
    case TaskClass::kOther:
      return QColor(0xa7b4c2);
  }
  return QColor(0xa7b4c2);
}

QString TaskClassLabel(TaskClass task_class) {
  switch (task_class) {
    case TaskClass::kIdle:
      return "idle";
    case TaskClass::kIrqThread:
      return "IRQ thread";
    case TaskClass::kKsoftirqd:
      return "ksoftirqd";
    case TaskClass::kSoftirqThread:
      return "RT softirq thread";
    case TaskClass::kNapiKthread:
      return "NAPI kthread";
    case TaskClass::kRtTask:
      return "RT task";
    case TaskClass::kOther:
      return "other task";
  }
  return "other task";
}

QColor VectorColor(uint32_t vec) {
  return vec < kVectorColors.size() ? QColor(kVectorColors[vec]) : QColor(0x7f7f7f);
}

QColor KeyColor(Lane lane, uint16_t key) {
  switch (lane) {
    case Lane::kTask:
      return TaskClassColor(static_cast<TaskClass>(key));
    case Lane::kHardirq:
      return QColor(kHandlerColors[key % kHandlerColors.size()]);
    case Lane::kSoftirq:
      return VectorColor(key);
    case Lane::kSoftirqWait:
      return VectorColor(key).lighter(125);
    case Lane::kNapiPoll:
      return QColor(kDeviceColors[key % kDeviceColors.size()]);
  }
  return QColor(0x7f7f7f);
}

QColor ActivationColor(ActivationKind kind) {
  switch (kind) {
    case ActivationKind::kIrqThread:
      return QColor(0xd95f02);
    case ActivationKind::kNapiKthread:
      return QColor(0x0f8b8d);
    case ActivationKind::kKsoftirqd:
      return QColor(0x7b3fa0);
  }
  return QColor(0x333333);
}

QColor Idle() { return QColor(0xeef1f4); }
QColor SameCpu() { return QColor(0x59a14f); }
QColor CrossCpu() { return QColor(0xe8702a); }
QColor ExhaustedMark() { return QColor(0xd62728); }
QColor GapShade() { return QColor(80, 80, 80, 90); }
QColor MarkerA() { return QColor(0x1a9850); }
QColor MarkerB() { return QColor(0xc51b7d); }
QColor Highlight() { return QColor(255, 200, 0, 60); }
QColor Emphasis() { return QColor(0x111111); }
QColor LaneBackground() { return QColor(0xffffff); }
QColor LaneBackgroundAlt() { return QColor(0xf4f6f8); }
QColor LabelBackground() { return QColor(0xe9edf1); }
QColor Text() { return QColor(0x1f2328); }
QColor GridLine() { return QColor(0xd0d7de); }

std::vector<LegendGroup> Legend() {
  std::vector<LegendGroup> groups;
  LegendGroup tasks{"Task", {}};
  for (TaskClass c : {TaskClass::kIrqThread, TaskClass::kKsoftirqd, TaskClass::kNapiKthread,
                      TaskClass::kRtTask, TaskClass::kOther}) {
    static const char* const kNames[] = {"idle",         "IRQ thread", "ksoftirqd / sirq-*",
                                         "NAPI kthread", "RT task",    "other"};
    tasks.entries.push_back({TaskClassColor(c), kNames[static_cast<int>(c)]});
  }
  groups.push_back(tasks);
  LegendGroup vectors{"Softirq", {}};
  for (uint32_t vec = 0; vec < kSoftirqVectorCount; ++vec) {
    vectors.entries.push_back(
        {VectorColor(vec), QString::fromUtf8(SoftirqVectorName(vec).data(),
                                             static_cast<int>(SoftirqVectorName(vec).size()))});
  }
  vectors.entries.push_back({VectorColor(kNetRx).lighter(125), "raise → entry", true});
  groups.push_back(vectors);
  groups.push_back({"NAPI", {{ExhaustedMark(), "work ≥ budget"}}});
  groups.push_back({"Cross-CPU",
                    {{ActivationColor(ActivationKind::kIrqThread), "IRQ → thread", true},
                     {ActivationColor(ActivationKind::kNapiKthread), "wake NAPI", true},
                     {ActivationColor(ActivationKind::kKsoftirqd), "wake ksoftirqd", true}}});
  groups.push_back({"", {{GapShade(), "unknown (events lost)"}}});
  return groups;
}

}  // namespace napiscope::gui::palette
