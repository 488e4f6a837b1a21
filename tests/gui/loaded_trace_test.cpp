// The GUI's one load pass (one context tracker and one set of fact producers, shared by the
// analyses and the timeline) gives the same timeline as a TimelineBuilder fed by a tracker and
// producers of its own, and the same report as `napiscope report`.
#include "loaded_trace.h"

#include <gtest/gtest.h>

#include "napiscope/analysis_session.h"
#include "napiscope/report_render.h"
#include "support/test_support.h"

namespace napiscope::gui {
namespace {

void ExpectSameTimeline(const Timeline& got, const Timeline& want) {
  ASSERT_EQ(got.cpus(), want.cpus());
  EXPECT_EQ(got.start_ns(), want.start_ns());
  EXPECT_EQ(got.end_ns(), want.end_ns());
  EXPECT_EQ(got.events(), want.events());
  EXPECT_EQ(got.items(), want.items());
  size_t intervals = 0;
  for (int cpu = 0; cpu < want.cpus(); ++cpu) {
    for (int l = 0; l < kLaneCount; ++l) {
      Lane lane = static_cast<Lane>(l);
      const TimelineLane& g = got.lane(cpu, lane);
      const TimelineLane& w = want.lane(cpu, lane);
      ASSERT_EQ(g.size(), w.size()) << "cpu " << cpu << " " << LaneName(lane);
      for (size_t i = 0; i < w.size(); ++i) {
        ASSERT_EQ(g.At(i), w.At(i)) << "cpu " << cpu << " " << LaneName(lane) << " #" << i;
      }
      intervals += w.size();
    }
    ASSERT_EQ(got.gaps(cpu).size(), want.gaps(cpu).size()) << "cpu " << cpu;
    for (size_t i = 0; i < want.gaps(cpu).size(); ++i) {
      EXPECT_EQ(got.gaps(cpu)[i].start_ns, want.gaps(cpu)[i].start_ns);
      EXPECT_EQ(got.gaps(cpu)[i].end_ns, want.gaps(cpu)[i].end_ns);
      EXPECT_EQ(got.gaps(cpu)[i].lost_events, want.gaps(cpu)[i].lost_events);
    }
  }
  EXPECT_GT(intervals, 5u);
  ASSERT_EQ(got.activations().size(), want.activations().size());
  for (size_t i = 0; i < want.activations().size(); ++i) {
    const Activation& g = got.activations()[i];
    const Activation& w = want.activations()[i];
    EXPECT_EQ(g.from_ns, w.from_ns);
    EXPECT_EQ(g.to_ns, w.to_ns);
    EXPECT_EQ(g.pid, w.pid);
    EXPECT_EQ(g.from_cpu, w.from_cpu);
    EXPECT_EQ(g.to_cpu, w.to_cpu);
    EXPECT_EQ(g.kind, w.kind);
    EXPECT_EQ(g.exact, w.exact);
  }
}

class OneLoadPass : public ::testing::TestWithParam<const char*> {};

TEST_P(OneLoadPass, TimelineAndReportAreTheStandaloneOnes) {
  std::string path = napiscope::testing::TestData(GetParam());
  LoadedTrace trace;
  ASSERT_TRUE(LoadTraceForView(path, LoadOptions{}, &trace).ok());
  Timeline standalone;
  ASSERT_TRUE(napiscope::testing::LoadStandaloneTimeline(path, &standalone).ok());
  ExpectSameTimeline(trace.timeline, standalone);
  Report report;
  ASSERT_TRUE(AnalyzeTrace(path, AnalysisOptions{}, &report).ok());
  EXPECT_EQ(ReportToJson(trace.report).dump(), ReportToJson(report).dump());
  // Every event is in the event index (missed-events markers too).
  EXPECT_GE(trace.events.size(), static_cast<uint64_t>(trace.timeline.events()));
  EXPECT_GT(trace.events.size(), 0u);
}

INSTANTIATE_TEST_SUITE_P(Traces, OneLoadPass,
                         ::testing::Values("real/server16-softirq-napi.dat",
                                           "real/veth-threaded-napi.dat",
                                           "scenarios/softirq_contexts.dat",
                                           "scenarios/missed_events_gap.dat",
                                           "scenarios/irq_threads_bouncing.dat",
                                           "scenarios/rt_current_threaded_napi.dat"));

// The trace with NET_RX waits fills the softirq wait lane through the pipeline's producers.
TEST(OneLoadPass, SoftirqWaitsReachTheTimeline) {
  LoadedTrace trace;
  ASSERT_TRUE(LoadTraceForView(napiscope::testing::TestData("scenarios/softirq_contexts.dat"),
                               LoadOptions{}, &trace)
                  .ok());
  size_t waits = 0;
  for (int cpu = 0; cpu < trace.timeline.cpus(); ++cpu) {
    waits += trace.timeline.lane(cpu, Lane::kSoftirqWait).size();
  }
  EXPECT_GT(waits, 0u);
}

}  // namespace
}  // namespace napiscope::gui
