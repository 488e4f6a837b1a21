// The timeline's drawing shortcuts draw the pixels of the plain way they replace: the bars of a
// lane's aggregated columns, filled in one call per colour, are the bars filled one by one, on
// recorded traces at several zooms, lane heights, image formats and clips; a frame whose fills
// are written into an image's pixels is the frame the painter draws on a pixmap.
#include <QImage>
#include <QPainter>
#include <QPixmap>
#include <algorithm>
#include <string>

#include <gtest/gtest.h>

#include "gui_test_support.h"
#include "palette.h"
#include "timeline_painter.h"

namespace napiscope::gui {
namespace {

// The columns as the painter filled them before: each run of alike columns with its own
// fillRect, its exhausted mark right after it.
void PaintColumnsOneByOne(QPainter& painter, const LaneSlice& slice, Lane lane,
                          const TimeAxis& axis, int top, int height) {
  constexpr int kExhaustedMarkHeight = 3;
  ForEachColumnRun(
      slice, axis.NsPerPixel(), [&](double fraction) { return ColumnBarHeight(fraction, height); },
      [&](const ColumnRun& run) {
        int x = axis.left + static_cast<int>(run.first);
        int width = static_cast<int>(run.width);
        int bar = static_cast<int>(run.bar);
        painter.fillRect(QRect(x, top + height - bar, width, bar),
                         palette::KeyColor(lane, run.key));
        if (run.marked) {
          painter.fillRect(QRect(x, top, width, kExhaustedMarkHeight), palette::ExhaustedMark());
        }
      });
}

// An image with a background that is not one colour, so blending differences would show.
QImage Background(QSize size, QImage::Format format) {
  QImage image(size, format);
  image.fill(palette::LaneBackground());
  QPainter painter(&image);
  for (int y = 0; y < size.height(); y += 7) {
    painter.fillRect(QRect(0, y, size.width(), 3), palette::LaneBackgroundAlt());
  }
  painter.fillRect(QRect(size.width() / 3, 0, 40, size.height()), QColor(20, 90, 200, 90));
  return image;
}

TEST(TimelinePainter, ColumnsFilledPerColourAreTheColumnsFilledOneByOne) {
  for (const char* file : {"real/server16-softirq-napi.dat", "real/veth-threaded-napi.dat"}) {
    auto trace = testing::LoadTestTrace(file);
    ASSERT_NE(trace, nullptr) << file;
    const Timeline& timeline = trace->timeline;
    TimestampNs start = timeline.start_ns();
    TimestampNs span = timeline.end_ns() - start;
    size_t aggregated = 0;
    for (TimestampNs zoom : {span, span / 7, span / 60}) {
      for (int width : {700, 1802}) {
        TimeAxis axis{start + (span - zoom) / 2, start + (span - zoom) / 2 + zoom, 118, width};
        for (QImage::Format format :
             {QImage::Format_ARGB32_Premultiplied, QImage::Format_RGB32}) {
          QImage want = Background(QSize(118 + width + 4, 40), format);
          QImage got = want;
          for (int cpu = 0; cpu < timeline.cpus(); ++cpu) {
            for (Lane lane : {Lane::kTask, Lane::kHardirq, Lane::kSoftirq, Lane::kNapiPoll}) {
              LaneSlice slice = timeline.Query(cpu, lane, axis.from_ns, axis.to_ns, axis.width);
              if (!slice.aggregated) continue;
              ++aggregated;
              // Lane heights of full rows and of compact rows' parts, a clip cutting some bars.
              for (auto [top, height] : {std::pair{2, 18}, {5, 8}, {30, 2}, {20, 12}}) {
                QPainter want_painter(&want);
                QPainter got_painter(&got);
                want_painter.setClipRect(QRect(0, 4, want.width(), 30));
                got_painter.setClipRect(QRect(0, 4, got.width(), 30));
                PaintColumnsOneByOne(want_painter, slice, lane, axis, top, height);
                PaintColumns(got_painter, slice, lane, axis, top, height);
              }
              std::string where = std::string(file) + " cpu " + std::to_string(cpu) + " lane " +
                                  std::string(LaneName(lane)) + " zoom " + std::to_string(zoom) +
                                  " width " + std::to_string(width);
              ASSERT_TRUE(got == want) << where;
            }
          }
        }
      }
    }
    EXPECT_GT(aggregated, 0u) << file;
  }
}

// Painted on a QImage, the intervals drawn one by one are written into its pixels; on a pixmap
// only the painter draws. Both frames must be the same, at zooms where lanes are aggregated
// columns and where their intervals are drawn one by one, compact and expanded rows.
TEST(TimelinePainter, FramesWrittenIntoTheImageAreTheFramesThePainterDraws) {
  for (const char* file : {"real/server16-softirq-napi.dat", "real/veth-threaded-napi.dat"}) {
    auto trace = testing::LoadTestTrace(file);
    ASSERT_NE(trace, nullptr) << file;
    const Timeline& timeline = trace->timeline;
    TimestampNs start = timeline.start_ns();
    TimestampNs span = timeline.end_ns() - start;
    size_t one_by_one = 0;  // lanes of the frames whose intervals are drawn one by one
    for (bool expanded : {false, true}) {
      for (TimestampNs zoom : {span, span / 50, span / 2000}) {
        TimelineViewState state;
        state.from_ns = start + (span - zoom) / 2;
        state.to_ns = state.from_ns + zoom;
        if (expanded) state.cpu_expanded.assign(static_cast<size_t>(timeline.cpus()), true);
        TimelineLayout layout(timeline.cpus(), state, 1300, 900);
        for (int cpu = 0; cpu < timeline.cpus(); ++cpu) {
          LaneSlice slice =
              timeline.Query(cpu, Lane::kSoftirq, state.from_ns, state.to_ns, layout.time_width());
          if (!slice.aggregated && !slice.intervals.empty()) ++one_by_one;
        }
        QImage direct(1300, layout.height(), QImage::Format_ARGB32_Premultiplied);
        QPixmap painted(1300, layout.height());
        for (QPaintDevice* device : std::initializer_list<QPaintDevice*>{&direct, &painted}) {
          QPainter painter(device);
          TimelinePainter(*trace, state, layout).Paint(painter);
        }
        std::string where = std::string(file) + (expanded ? " expanded" : " compact") + " zoom " +
                            std::to_string(zoom);
        ASSERT_TRUE(direct == painted.toImage().convertToFormat(direct.format())) << where;
      }
    }
    EXPECT_GT(one_by_one, 0u) << file;
  }
}

}  // namespace
}  // namespace napiscope::gui
