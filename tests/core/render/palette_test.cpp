// The shared palette stays readable with the common colour-vision deficiencies: colours that
// share a lane or a chart are simulated as protanopes, deuteranopes and tritanopes see them
// (Machado, Oliveira & Fernandes 2009, severity 1) and must stay apart in CIELAB.
#include <algorithm>
#include <array>
#include <cmath>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "napiscope/palette.h"

namespace napiscope {
namespace {

using Matrix = std::array<std::array<double, 3>, 3>;

struct Vision {
  const char* name;
  Matrix matrix;
};

const std::array<Vision, 4> kVisions = {{
    {"normal", {{{1, 0, 0}, {0, 1, 0}, {0, 0, 1}}}},
    {"protanopia",
     {{{0.152286, 1.052583, -0.204868},
       {0.114503, 0.786281, 0.099216},
       {-0.003882, -0.048116, 1.051998}}}},
    {"deuteranopia",
     {{{0.367322, 0.860646, -0.227968},
       {0.280085, 0.672501, 0.047413},
       {-0.011820, 0.042940, 0.968881}}}},
    {"tritanopia",
     {{{1.255528, -0.076749, -0.178779},
       {-0.078411, 0.930809, 0.147602},
       {0.004733, 0.691367, 0.303900}}}},
}};

double ToLinear(int channel) {
  double c = channel / 255.0;
  return c <= 0.04045 ? c / 12.92 : std::pow((c + 0.055) / 1.055, 2.4);
}

double ToSrgb(double linear) {
  linear = std::clamp(linear, 0.0, 1.0);
  return linear <= 0.0031308 ? linear * 12.92 : 1.055 * std::pow(linear, 1 / 2.4) - 0.055;
}

// CIELAB (D65) of `color` as a viewer with `vision` sees it.
std::array<double, 3> SeenLab(Rgb color, const Vision& vision) {
  std::array<double, 3> in = {ToLinear(color.red()), ToLinear(color.green()),
                              ToLinear(color.blue())};
  std::array<double, 3> rgb{};
  for (int i = 0; i < 3; ++i) {
    double sum = 0;
    for (int j = 0; j < 3; ++j) sum += vision.matrix[i][j] * in[j];
    // Back through 8-bit sRGB, as a screen would show the simulated colour.
    rgb[i] = ToLinear(static_cast<int>(std::lround(ToSrgb(sum) * 255)));
  }
  double x = 0.4124 * rgb[0] + 0.3576 * rgb[1] + 0.1805 * rgb[2];
  double y = 0.2126 * rgb[0] + 0.7152 * rgb[1] + 0.0722 * rgb[2];
  double z = 0.0193 * rgb[0] + 0.1192 * rgb[1] + 0.9505 * rgb[2];
  auto f = [](double t) { return t > 0.008856 ? std::cbrt(t) : 7.787 * t + 16.0 / 116; };
  double fx = f(x / 0.95047), fy = f(y), fz = f(z / 1.08883);
  return {116 * fy - 16, 500 * (fx - fy), 200 * (fy - fz)};
}

struct Named {
  std::string name;
  Rgb color;
};

// Every pair of `colors` (and each against white, the page and lane background) stays at
// least `min_distance` CIELAB units apart for every vision.
void ExpectApart(const std::vector<Named>& colors, double min_distance) {
  std::vector<Named> all = colors;
  all.push_back({"white background", {0xffffff}});
  for (const Vision& vision : kVisions) {
    for (size_t a = 0; a < colors.size(); ++a) {
      for (size_t b = a + 1; b < all.size(); ++b) {
        std::array<double, 3> la = SeenLab(all[a].color, vision);
        std::array<double, 3> lb = SeenLab(all[b].color, vision);
        double distance = std::hypot(la[0] - lb[0], la[1] - lb[1], la[2] - lb[2]);
        EXPECT_GE(distance, min_distance)
            << all[a].name << " " << all[a].color.Hex() << " vs " << all[b].name << " "
            << all[b].color.Hex() << " with " << vision.name;
      }
    }
  }
}

TEST(PaletteTest, SoftirqVectorsStayApartForColourBlindViewers) {
  std::vector<Named> colors;
  for (uint32_t vec = 0; vec < kSoftirqVectorCount; ++vec) {
    colors.push_back({std::string(SoftirqVectorName(vec)), palette::VectorColor(vec)});
  }
  ExpectApart(colors, 20);
}

TEST(PaletteTest, TaskKindsStayApartForColourBlindViewers) {
  std::vector<Named> colors;
  for (TaskClass c : {TaskClass::kIrqThread, TaskClass::kSoftirqThread, TaskClass::kKsoftirqd,
                      TaskClass::kNapiKthread, TaskClass::kRtTask, TaskClass::kOther}) {
    colors.push_back({std::string(palette::TaskClassLabel(c)), palette::TaskClassColor(c)});
  }
  ExpectApart(colors, 20);
}

TEST(PaletteTest, HandlersDevicesAndActivationsStayApart) {
  std::vector<Named> handlers, devices, activations;
  for (uint16_t key = 0; key < 8; ++key) {
    handlers.push_back({"handler " + std::to_string(key), palette::HandlerColor(key)});
  }
  for (uint16_t key = 0; key < 6; ++key) {
    devices.push_back({"device " + std::to_string(key), palette::DeviceColor(key)});
  }
  for (ActivationKind kind : {ActivationKind::kIrqThread, ActivationKind::kNapiKthread,
                              ActivationKind::kKsoftirqd}) {
    activations.push_back({std::string(ActivationKindName(kind)), palette::ActivationColor(kind)});
  }
  ExpectApart(handlers, 15);
  ExpectApart(devices, 15);
  ExpectApart(activations, 15);
}

TEST(PaletteTest, SameAndCrossCpuStayApart) {
  ExpectApart({{"same CPU", palette::SameCpu()}, {"cross CPU", palette::CrossCpu()}}, 30);
}

TEST(PaletteTest, KeyColorFollowsTheLane) {
  EXPECT_EQ(palette::KeyColor(Lane::kSoftirq, kNetRx), palette::VectorColor(kNetRx));
  EXPECT_EQ(palette::KeyColor(Lane::kTask, static_cast<uint16_t>(TaskClass::kRtTask)),
            palette::TaskClassColor(TaskClass::kRtTask));
  EXPECT_EQ(palette::KeyColor(Lane::kHardirq, 9), palette::HandlerColor(1));
  EXPECT_EQ(palette::VectorColor(kNetRx).Hex(), "#5f96d6");
}

TEST(PaletteTest, EveryWaitHasTheOneWaitColourUnlikeAnyVector) {
  for (uint32_t vec = 0; vec < kSoftirqVectorCount; ++vec) {
    EXPECT_EQ(palette::KeyColor(Lane::kSoftirqWait, static_cast<uint16_t>(vec)),
              palette::WaitColor())
        << SoftirqVectorName(vec);
    EXPECT_NE(palette::WaitColor(), palette::VectorColor(vec)) << SoftirqVectorName(vec);
  }
  EXPECT_EQ(palette::WaitColor().Hex(), "#78b6ff");
}

TEST(PaletteTest, LighterScalesValueLikeQt) {
  EXPECT_EQ(palette::Lighter({0x808080}, 125).Hex(), "#a0a0a0");
}

}  // namespace
}  // namespace napiscope
