// FillBatch fills the pixels painter.fillRect fills, rectangle by rectangle, in order.
#include "fill_batch.h"

#include <QImage>
#include <QPainter>
#include <random>
#include <string>
#include <vector>

#include <gtest/gtest.h>

namespace napiscope::gui {
namespace {

struct Fill {
  QRectF rect;
  QColor color;
};

// Rectangles like a lane's intervals (fractional left edges, one pixel wide or more, runs of
// one colour) and some that are not (fractional tops, thinner than a pixel, off the image).
std::vector<Fill> RandomFills(uint32_t seed) {
  std::mt19937 random(seed);
  auto uniform = [&](double lo, double hi) {
    return std::uniform_real_distribution<double>(lo, hi)(random);
  };
  const std::vector<QColor> colors = {QColor(0x1b9e77), QColor(0xd95f02), QColor(20, 90, 200, 90),
                                      QColor(0x7570b3)};
  std::vector<Fill> fills;
  double x = 117;
  for (int i = 0; i < 6000; ++i) {
    x += uniform(0, 3);
    if (x > 700) x = 117 + uniform(-2, 2);
    double width = i % 3 == 0 ? uniform(0.01, 1.5) : std::max(1.0, uniform(0, 9));
    int top = static_cast<int>(random() % 30);
    double y = i % 11 == 0 ? top + uniform(0, 1) : top;
    double height = i % 13 == 0 ? uniform(0.2, 12) : static_cast<double>(random() % 14 + 1);
    if (i % 97 == 0) x = -uniform(0, 5);  // left of the image: filled at once
    fills.push_back({QRectF(x, y, width, height), colors[(i / 40) % colors.size()]});
  }
  return fills;
}

QImage Background(QImage::Format format) {
  QImage image(QSize(720, 48), format);
  image.fill(QColor(0xf4f4f4));
  QPainter painter(&image);
  painter.fillRect(QRect(200, 0, 60, 48), QColor(20, 90, 200, 90));
  return image;
}

TEST(FillBatch, FillsThePixelsOfFillRectOneByOne) {
  struct Setup {
    const char* name;
    QPointF translation;
    bool antialiased;
  };
  for (const Setup& setup :
       {Setup{"plain", {0, 0}, false}, Setup{"translated", {3, 2}, false},
        Setup{"half-pixel translation", {0.5, 0.25}, false}, Setup{"antialiased", {0, 0}, true}}) {
    for (QImage::Format format : {QImage::Format_ARGB32_Premultiplied, QImage::Format_RGB32}) {
      for (uint32_t seed : {1u, 2u, 3u}) {
        std::vector<Fill> fills = RandomFills(seed);
        QImage want = Background(format);
        QImage got = want;
        {
          QPainter want_painter(&want);
          QPainter got_painter(&got);
          for (QPainter* painter : {&want_painter, &got_painter}) {
            painter->setClipRect(QRect(0, 3, 700, 40));
            painter->translate(setup.translation);
            painter->setRenderHint(QPainter::Antialiasing, setup.antialiased);
          }
          for (const Fill& fill : fills) want_painter.fillRect(fill.rect, fill.color);
          FillBatch batch(got_painter);
          for (size_t i = 0; i < fills.size(); ++i) {
            batch.Fill(fills[i].rect, fills[i].color);
            if (i % 500 == 499) batch.Flush();
          }
        }
        ASSERT_TRUE(got == want) << setup.name << " format " << format << " seed " << seed;
      }
    }
  }
}

TEST(FillBatch, LeavesThePenAndBrushAsTheyWere) {
  QImage image(QSize(50, 20), QImage::Format_ARGB32_Premultiplied);
  QPainter painter(&image);
  painter.setPen(QColor(0x112233));
  painter.setBrush(QColor(0x445566));
  {
    FillBatch batch(painter);
    batch.Fill(QRectF(1.3, 2, 4.5, 5), QColor(0xff0000));
  }
  EXPECT_EQ(painter.pen().color(), QColor(0x112233));
  EXPECT_EQ(painter.brush().color(), QColor(0x445566));
  EXPECT_EQ(image.pixelColor(3, 4), QColor(0xff0000));
}

}  // namespace
}  // namespace napiscope::gui
