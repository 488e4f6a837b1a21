// The summary `live` prints each interval and once stopped.
#include "live_summary.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cctype>
#include <sstream>

namespace napiscope::cli {
namespace {

using ::testing::EndsWith;
using ::testing::HasSubstr;
using ::testing::Not;

// An interval's summary of `report` 1 s into tracing, 10 events, unwrapped.
LiveSummaryInput Summary(const Report& report, const std::vector<LiveNapiCounts>& napi) {
  return {.report = &report,
          .napi = &napi,
          .elapsed_s = 1.0,
          .events = 10,
          .instance = "napiscope-1",
          .final = false,
          .width = 0};
}

// Without a finding, "none yet" while tracing and "none" once stopped: the stopped summary
// said "none yet" just above the final report's "findings: none".
TEST(LiveSummary, NoFindingIsNoneOnceStopped) {
  Report report;
  std::vector<LiveNapiCounts> napi(2);
  LiveSummaryInput input = Summary(report, napi);
  input.width = 80;
  EXPECT_THAT(LiveSummaryText(input), EndsWith("\nFindings:\n  none yet\n"));
  input.final = true;
  std::string stopped = LiveSummaryText(input);
  EXPECT_THAT(stopped, HasSubstr("napiscope live (stopped): 1.0 s, 10 events"));
  EXPECT_THAT(stopped, EndsWith("\nFindings:\n  none\n"));
}

// A gap whose count the ring buffer did not give is not "0 lost" (the final report below it
// listed the gap).
TEST(LiveSummary, LostEventsOfUnknownCountAreNotZero) {
  Report report;
  std::vector<LiveNapiCounts> napi(2);
  LiveSummaryInput input = Summary(report, napi);
  EXPECT_THAT(LiveSummaryText(input), HasSubstr("(10/s), 0 lost; instance"));
  report.trace.missed_per_cpu.push_back({.cpu = 1, .gaps = 1, .events = 0, .some_unknown = true});
  EXPECT_THAT(LiveSummaryText(input), HasSubstr("(10/s), events lost in 1 gap; instance"));
  report.trace.missed_per_cpu.push_back({.cpu = 0, .gaps = 2, .events = 120});
  EXPECT_THAT(LiveSummaryText(input), HasSubstr("(10/s), at least 120 lost in 3 gaps; instance"));
  nlohmann::json json = LiveSummaryJson(input);
  EXPECT_EQ(json["lost_events"], 120);
  EXPECT_EQ(json["lost_gaps"], 3);
  report.trace.missed_per_cpu = {{.cpu = 0, .gaps = 2, .events = 120}};
  EXPECT_THAT(LiveSummaryText(input), HasSubstr("(10/s), 120 lost; instance"));
}

// While tracing, the rate of the last interval: an average since the start kept falling for
// minutes after a burst; once stopped, the run's average.
TEST(LiveSummary, TheRateIsTheIntervalsWhileTracingAndTheAverageOnceStopped) {
  Report report;
  std::vector<LiveNapiCounts> napi(2);
  LiveSummaryInput input = Summary(report, napi);
  input.elapsed_s = 4.0;
  input.events = 400'000;
  input.previous_elapsed_s = 3.0;
  input.previous_events = 399'000;
  EXPECT_THAT(LiveSummaryText(input), HasSubstr(": 4.0 s, 400000 events (1000/s), 0 lost;"));
  input.final = true;
  EXPECT_THAT(LiveSummaryText(input),
              HasSubstr(" (stopped): 4.0 s, 400000 events (100000/s on average), 0 lost;"));
}

// The rows of the CPU table: lines starting with the CPU number right-aligned in 4 columns.
std::vector<int> CpuRows(const std::string& text) {
  std::vector<int> cpus;
  std::istringstream lines(text);
  for (std::string line; std::getline(lines, line);) {
    if (line.size() > 6 && line[3] != ' ' && line.substr(4, 2) == "  " &&
        line.find_first_not_of(' ') < 4 && std::isdigit(static_cast<unsigned char>(line[3]))) {
      cpus.push_back(std::stoi(line.substr(0, 4)));
    }
  }
  return cpus;
}

// On a 64-CPU server every CPU was a row each second (more than a screen, which live clears
// on a terminal); now the 16 worst: blocked ksoftirqd first, then the longest p99.
TEST(LiveSummary, AServerShowsItsWorstCpusAndOneLineForTheOthers) {
  Report report;
  std::vector<LiveNapiCounts> napi(64, LiveNapiCounts{10, 0});
  for (int cpu = 0; cpu < 64; ++cpu) {
    SoftirqLatencyRow row;
    row.cpu = cpu;
    row.vec = 3;  // NET_RX
    row.delay.count = 100;
    row.delay.p99_ns = 1000 + cpu;  // the higher the CPU, the longer
    row.delay.max_ns = 2000 + cpu;
    report.softirq_latency.push_back(row);
  }
  KsoftirqdBlockedRow blocked;
  blocked.cpu = 5;
  blocked.duration_ns = 3'000'000;
  report.ksoftirqd_blocked.push_back(blocked);
  LiveSummaryInput input = Summary(report, napi);
  input.width = 100;
  input.shown_cpus = 16;
  std::string text = LiveSummaryText(input);
  EXPECT_THAT(text, HasSubstr("\nthe 16 of 64 CPUs with the most blocked ksoftirqd and the "
                              "longest raise-to-entry p99, worst first:\n"));
  std::vector<int> expected = {5};
  for (int cpu = 63; expected.size() < 16; --cpu) expected.push_back(cpu);
  EXPECT_EQ(CpuRows(text), expected) << text;
  EXPECT_THAT(text, HasSubstr("\n  the other 48 CPUs: 480 NAPI polls, no ksoftirqd blocked, "
                              "raise-to-entry p99 at most 1.0 us\n"));
  // So many IRQ threads: as many as CPUs shown, the most cross-CPU first.
  for (int i = 0; i < 20; ++i) {
    ThreadActivityRow thread;
    thread.comm = "irq/" + std::to_string(100 + i) + "-eth0";
    thread.pid = 1000 + i;
    thread.activations = 100;
    thread.cross_cpu_activations = i;
    report.irq_threads.push_back(thread);
  }
  text = LiveSummaryText(input);
  EXPECT_THAT(text, HasSubstr("\n  irq/119-eth0             pid 1019         19/100      19.0%\n"));
  EXPECT_THAT(text, HasSubstr("\n  irq/104-eth0             pid 1004          4/100       4.0%\n"
                              "  4 more, at most 3.0% on another CPU\n"));
  EXPECT_THAT(text, Not(HasSubstr("irq/103-eth0")));
  // As many CPUs as shown, or no limit: every CPU in CPU order, no line for others.
  input.shown_cpus = 0;
  std::vector<int> all(64);
  for (int cpu = 0; cpu < 64; ++cpu) all[static_cast<size_t>(cpu)] = cpu;
  EXPECT_EQ(CpuRows(LiveSummaryText(input)), all);
  EXPECT_THAT(LiveSummaryText(input), Not(HasSubstr("the other")));
  EXPECT_THAT(LiveSummaryText(input), Not(HasSubstr(" more, at most")));
  EXPECT_THAT(LiveSummaryText(input), HasSubstr("irq/103-eth0"));
}

// `record`'s running line on a terminal (issue 66): time, events with their rate, lost, size.
TEST(RecordProgressLine, SaysTimeEventsLostAndSize) {
  RecordProgress progress{.elapsed_ns = 2'500'000'000, .events = 1'000'000, .lost_events = 12,
                          .bytes = 48 << 20};
  EXPECT_EQ(RecordProgressLine(progress),
            "recording 2.5 s: 1000000 events (400000/s), 12 lost, 48.0 MiB; Ctrl-C stops");
  EXPECT_EQ(RecordProgressLine({}), "recording 0.0 s: 0 events (0/s), 0 lost, 0.0 MiB; Ctrl-C stops");
}

}  // namespace
}  // namespace napiscope::cli
