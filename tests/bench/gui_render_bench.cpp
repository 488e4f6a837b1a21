// gui_render_bench: builds the timeline model of a trace, then paints full-width frames of the
// timeline at several zoom levels and prints frame times and the model's bytes per event.
// Not a test: numbers depend on the machine. Make a large trace with
//   napiscope-tracegen --synthetic 10000000 --cpus 4 -o /tmp/big.dat
// and run
//   QT_QPA_PLATFORM=offscreen napiscope_gui_render_bench /tmp/big.dat [WIDTH] [FRAMES]
#include <QApplication>
#include <QImage>
#include <QPainter>
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <ctime>
#include <vector>

#include "loaded_trace.h"
#include "napiscope/contexts.h"
#include "napiscope/timeline_builder.h"
#include "timeline_painter.h"

namespace {

using Clock = std::chrono::steady_clock;
using napiscope::TimestampNs;

double Millis(Clock::duration d) { return std::chrono::duration<double, std::milli>(d).count(); }

// CPU time of this thread: unlike wall time, it does not grow when other work shares the cores.
double ThreadCpuMillis() {
  timespec now{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &now);
  return static_cast<double>(now.tv_sec) * 1e3 + static_cast<double>(now.tv_nsec) / 1e6;
}

struct FrameTimes {
  std::vector<double> wall_ms;
  std::vector<double> cpu_ms;
};

// Paints `frames` frames of `span_ns` spread over the trace; returns their times in ms.
FrameTimes PaintFrames(const napiscope::gui::LoadedTrace& trace,
                       napiscope::gui::TimelineViewState state, int width, int frames,
                       TimestampNs span_ns) {
  const napiscope::Timeline& timeline = trace.timeline;
  // A window's timeline: compact rows of all CPUs share 1000 pixels (scrolled when they need
  // more), as the view lays them out.
  napiscope::gui::TimelineLayout layout(timeline.cpus(), state, width, 1000);
  QImage image(width, layout.height(), QImage::Format_ARGB32_Premultiplied);
  FrameTimes times;
  TimestampNs room = std::max<TimestampNs>(timeline.end_ns() - timeline.start_ns() - span_ns, 0);
  for (int f = 0; f < frames; ++f) {
    state.from_ns = timeline.start_ns() + (frames > 1 ? room * f / (frames - 1) : 0);
    state.to_ns = state.from_ns + span_ns;
    Clock::time_point start = Clock::now();
    double cpu_start = ThreadCpuMillis();
    QPainter painter(&image);
    napiscope::gui::TimelinePainter(trace, state, layout).Paint(painter);
    painter.end();
    times.cpu_ms.push_back(ThreadCpuMillis() - cpu_start);
    times.wall_ms.push_back(Millis(Clock::now() - start));
  }
  return times;
}

void Report(const char* label, TimestampNs span_ns, FrameTimes times) {
  std::sort(times.wall_ms.begin(), times.wall_ms.end());
  std::sort(times.cpu_ms.begin(), times.cpu_ms.end());
  std::printf(
      "%-7s span %13.6f ms  frames %3zu  wall median %6.2f max %6.2f ms  "
      "cpu median %6.2f max %6.2f ms\n",
      label, static_cast<double>(span_ns) / 1e6, times.wall_ms.size(),
      times.wall_ms[times.wall_ms.size() / 2], times.wall_ms.back(),
      times.cpu_ms[times.cpu_ms.size() / 2], times.cpu_ms.back());
}

}  // namespace

int main(int argc, char** argv) {
  if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM")) qputenv("QT_QPA_PLATFORM", "offscreen");
  QApplication app(argc, argv);
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s TRACE [WIDTH] [FRAMES]\n", argv[0]);
    return 1;
  }
  int width = argc > 2 ? std::atoi(argv[2]) : 1920;
  int frames = argc > 3 ? std::atoi(argv[3]) : 20;

  napiscope::gui::LoadedTrace trace;
  napiscope::ContextTracker tracker;
  napiscope::TimelineBuilder builder;
  tracker.AddListener(&builder);
  napiscope::FanoutSink fanout;
  fanout.Add(&tracker);
  fanout.Add(&builder);
  Clock::time_point load_start = Clock::now();
  absl::Status status = napiscope::LoadTrace(argv[1], trace.context, fanout);
  if (!status.ok()) {
    std::fprintf(stderr, "%s\n", std::string(status.message()).c_str());
    return 1;
  }
  Clock::time_point built = Clock::now();
  trace.timeline = builder.Finish();
  Clock::time_point finished = Clock::now();
  const napiscope::Timeline& timeline = trace.timeline;
  size_t intervals = 0;
  for (int cpu = 0; cpu < timeline.cpus(); ++cpu) {
    for (int lane = 0; lane < napiscope::kLaneCount; ++lane) {
      intervals += timeline.lane(cpu, static_cast<napiscope::Lane>(lane)).size();
    }
  }
  std::printf("trace %s: %lld events, %d CPUs, span %.3f ms\n", argv[1],
              static_cast<long long>(timeline.events()), timeline.cpus(),
              static_cast<double>(timeline.end_ns() - timeline.start_ns()) / 1e6);
  std::printf("load + model %.0f ms (of which packing and pyramid %.0f ms)\n",
              Millis(finished - load_start), Millis(finished - built));
  std::printf("model: %zu intervals, %zu items, %zu activations, %zu bytes = %.2f bytes/event\n",
              intervals, timeline.items().size(), timeline.activations().size(),
              timeline.BytesUsed(),
              static_cast<double>(timeline.BytesUsed()) / std::max<int64_t>(timeline.events(), 1));

  napiscope::gui::TimelineViewState state;
  state.cpu_visible.assign(timeline.cpus(), true);
  std::printf("frames %d x 1000 px, %d CPUs (%s rows):\n", width, timeline.cpus(),
              timeline.cpus() <= 4 ? "4 lane" : "compact");
  TimestampNs span = timeline.end_ns() - timeline.start_ns();
  PaintFrames(trace, state, width, 1, span);  // warm up fonts and caches
  for (TimestampNs zoom = span; zoom >= 2000; zoom /= 10) {
    Report("all", zoom, PaintFrames(trace, state, width, frames, zoom));
  }
  // A vector filter scans the intervals in view instead of using the pyramid.
  napiscope::TimelineFilter filter;
  filter.vecs = {napiscope::kNetRx};
  state.item_mask = timeline.MatchingItems(filter);
  for (TimestampNs zoom = span; zoom >= span / 1000; zoom /= 10) {
    Report("NET_RX", zoom, PaintFrames(trace, state, width, frames, zoom));
  }
  return 0;
}
