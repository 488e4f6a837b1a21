#include "napiscope/palette.h"

#include <algorithm>
#include <array>

#include <fmt/format.h>

namespace napiscope {

std::string Rgb::Hex() const { return fmt::format("#{:06x}", rgb & 0xffffff); }

namespace palette {
namespace {

// Ten vectors, ten colours that stay at least 20 CIELAB units apart from each other and from
// white under protanopia, deuteranopia and tritanopia (Machado 2009 simulation); NET_RX blue and
// NET_TX orange as before. A search from Tableau 10 found them.
constexpr std::array<uint32_t, kSoftirqVectorCount> kVectorColors = {
    0x623f3c,  // HI
    0xf4d520,  // TIMER
    0xe87e19,  // NET_TX
    0x5f96d6,  // NET_RX
    0xbfbac3,  // BLOCK
    0x7cf0af,  // IRQ_POLL
    0xe8a265,  // TASKLET
    0xc5362a,  // SCHED
    0x9f7095,  // HRTIMER
    0x6f926d,  // RCU
};

// Hard IRQ handlers get muted hues so softirqs stay the loudest colour on screen.
constexpr std::array<uint32_t, 8> kHandlerColors = {0x8e6f31, 0x324e07, 0x7c3f72, 0x944942,
                                                    0x4188ce, 0x2daa5f, 0x784e9b, 0x4b4045};

constexpr std::array<uint32_t, 6> kDeviceColors = {0x31cf87, 0x32a4fd, 0x8856a7,
                                                   0xd95f0e, 0x1a858d, 0x5a5b54};

}  // namespace

Rgb TaskClassColor(TaskClass task_class) {
  switch (task_class) {
    case TaskClass::kIdle:
      return {0xffffff};
    case TaskClass::kIrqThread:
      return {0xff860f};
    case TaskClass::kKsoftirqd:
      return {0x564bb0};
    case TaskClass::kSoftirqThread:  // ksoftirqd's work in RT threads: a plum of its own
      return {0x8c2d6e};
    case TaskClass::kNapiKthread:
      return {0x12afcc};
    case TaskClass::kRtTask:
      return {0xbf001b};
    case TaskClass::kOther:
      return {0xb39c83};
  }
  return {0xb39c83};
}

std::string_view TaskClassLabel(TaskClass task_class) {
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

std::vector<TaskClass> LegendTaskClasses() {
  return {TaskClass::kIrqThread, TaskClass::kSoftirqThread, TaskClass::kKsoftirqd,
          TaskClass::kNapiKthread, TaskClass::kRtTask, TaskClass::kOther};
}

Rgb VectorColor(uint32_t vec) {
  return vec < kVectorColors.size() ? Rgb{kVectorColors[vec]} : Rgb{0x7f7f7f};
}

// One light blue for every vector's wait: a thin bar of it, wherever drawn, is a wait (the run
// that follows it says which vector).
Rgb WaitColor() { return {0x78b6ff}; }

Rgb HandlerColor(uint16_t key) { return {kHandlerColors[key % kHandlerColors.size()]}; }

Rgb DeviceColor(uint16_t key) { return {kDeviceColors[key % kDeviceColors.size()]}; }

Rgb KeyColor(Lane lane, uint16_t key) {
  switch (lane) {
    case Lane::kTask:
      return TaskClassColor(static_cast<TaskClass>(key));
    case Lane::kHardirq:
      return HandlerColor(key);
    case Lane::kSoftirq:
      return VectorColor(key);
    case Lane::kSoftirqWait:
      return WaitColor();
    case Lane::kNapiPoll:
      return DeviceColor(key);
  }
  return {0x7f7f7f};
}

Rgb ActivationColor(ActivationKind kind) {
  switch (kind) {
    case ActivationKind::kIrqThread:
      return {0xd95f02};
    case ActivationKind::kNapiKthread:
      return {0x0f8b8d};
    case ActivationKind::kKsoftirqd:
      return {0x7b3fa0};
  }
  return {0x333333};
}

Rgb Hardirq() { return {0x4b4045}; }
Rgb Idle() { return {0xeef1f4}; }
// Okabe-Ito blue and orange: the pair every colour-vision deficiency keeps apart.
Rgb SameCpu() { return {0x0072b2}; }
Rgb CrossCpu() { return {0xe69f00}; }
Rgb ExhaustedMark() { return {0xbf001b}; }
Rgb GapShade() { return {0x505050, 90}; }
Rgb MarkerA() { return {0x1a9850}; }
Rgb MarkerB() { return {0xc51b7d}; }
Rgb Highlight() { return {0xffc800, 60}; }
Rgb Emphasis() { return {0x111111}; }
Rgb LaneBackground() { return {0xffffff}; }
Rgb LaneBackgroundAlt() { return {0xf4f6f8}; }
Rgb LabelBackground() { return {0xe9edf1}; }
Rgb Text() { return {0x1f2328}; }
Rgb GridLine() { return {0xd0d7de}; }
Rgb SeverityColor(Severity severity) {
  switch (severity) {
    case Severity::kError:
      return {0xc0392b};
    case Severity::kWarning:
      return {0xb9770e};
    case Severity::kInfo:
      return {0x2e86c1};
  }
  return {0x333333};
}

Rgb Lighter(Rgb color, int percent) {
  // HSV value scaled; what overflows past full value comes off the saturation (as Qt does).
  int r = color.red(), g = color.green(), b = color.blue();
  int max = std::max({r, g, b});
  if (max == 0) return {0x000000, color.alpha};
  int value = max * percent / 100;
  double scale = static_cast<double>(std::min(value, 255)) / max;
  auto channel = [&](int c) {
    double scaled = c * scale;
    if (value > 255) scaled += (255 - scaled) * std::min(1.0, (value - 255) / 255.0);
    return static_cast<uint32_t>(std::clamp(static_cast<int>(scaled + 0.5), 0, 255));
  };
  return {(channel(r) << 16) | (channel(g) << 8) | channel(b), color.alpha};
}

}  // namespace palette
}  // namespace napiscope
