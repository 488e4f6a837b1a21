// The ftrace events of a trace.dat are encoded on the threads that decode each CPU, from the
// decoded records, before the merge. They must be the events the merge delivers: the bundles
// written from the decoded records hold, CPU by CPU and in order, the same FtraceEvents (byte
// for byte) as bundles written from the merged events, with the same losses marked.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <string>
#include <vector>

#include "block_queue.h"
#include "ftrace_bundler.h"
#include "napiscope/loader.h"
#include "packet_writer.h"
#include "perfetto_trace.pb.h"
#include "support/hostile_files.h"
#include "support/test_support.h"

namespace napiscope::perfetto_export {
namespace {

// What the bundles of a file hold per CPU: the events' bytes in order, bundles after a loss.
struct Bundled {
  std::map<uint32_t, std::vector<std::string>> events;
  std::map<uint32_t, int64_t> lost_marks;
  int64_t total = 0;
};

Bundled ReadBundles(const std::string& path) {
  perfetto::protos::Trace trace;
  EXPECT_TRUE(trace.ParseFromString(testing::ReadFile(path))) << path;
  Bundled out;
  for (const auto& packet : trace.packet()) {
    if (!packet.has_ftrace_events()) continue;
    const auto& bundle = packet.ftrace_events();
    if (bundle.lost_events()) ++out.lost_marks[bundle.cpu()];
    for (const auto& event : bundle.event()) {
      out.events[bundle.cpu()].push_back(event.SerializeAsString());
      ++out.total;
    }
  }
  return out;
}

// Bundles from the decoded records and from the merged events of one load of `trace`.
struct BothWays {
  Bundled decoded, merged;
  PerfettoExportStats decoded_stats, merged_stats;
};

void ExportBothWays(const std::string& trace, const AnalysisOptions& options, int threads,
                    BothWays* both) {
  std::string dir = testing::MakeTempDir();
  std::string from_decoded = dir + "/decoded.pftrace", from_merged = dir + "/merged.pftrace";
  {
    PacketWriter decoded_file, merged_file;
    ASSERT_TRUE(decoded_file.Open(from_decoded).ok());
    ASSERT_TRUE(merged_file.Open(from_merged).ok());
    BlockQueue decoded_queue(&decoded_file, threads != 1);
    BlockQueue merged_queue(&merged_file, false);
    BlockWriter merged_packets(&merged_queue, block_source::kAnalysing);
    DecodedBundles decoded(&decoded_queue, options);
    FtraceBundler bundler(&merged_packets, options, &both->merged_stats);
    LoadOptions load;
    load.threads = threads;
    load.decoded_records = &decoded;
    TraceContext context;
    absl::Status status = LoadTrace(trace, context, bundler, load);
    ASSERT_TRUE(status.ok()) << status;
    ASSERT_TRUE(decoded.active());
    decoded.AddStats(&both->decoded_stats);
    merged_packets.Flush();
    decoded_queue.Finish();
    merged_queue.Finish();
    ASSERT_TRUE(decoded_file.Close().ok());
    ASSERT_TRUE(merged_file.Close().ok());
  }
  both->decoded = ReadBundles(from_decoded);
  both->merged = ReadBundles(from_merged);
}

// The CPUs' events, in order, equal; `what` names the case in failures.
void ExpectSameEvents(const Bundled& decoded, const Bundled& merged, const std::string& what) {
  EXPECT_EQ(decoded.total, merged.total) << what;
  for (const auto& [cpu, events] : merged.events) {
    auto it = decoded.events.find(cpu);
    ASSERT_NE(it, decoded.events.end()) << what << ": CPU " << cpu;
    EXPECT_EQ(it->second.size(), events.size()) << what << ": CPU " << cpu;
    for (size_t i = 0; i < std::min(it->second.size(), events.size()); ++i) {
      if (it->second[i] != events[i]) {
        ADD_FAILURE() << what << ": CPU " << cpu << " event " << i << " differs";
        break;
      }
    }
  }
  EXPECT_EQ(decoded.events.size(), merged.events.size()) << what;
}

struct Case {
  std::string trace;
  int threads;
  bool window;  // only the middle of the trace
};

class DecodedBundlesTest : public ::testing::TestWithParam<Case> {};

TEST_P(DecodedBundlesTest, HoldTheEventsTheMergeDelivers) {
  std::string trace = testing::TestData(GetParam().trace);
  AnalysisOptions options;
  if (GetParam().window) {
    // The middle third of the trace, by the times of its events.
    BothWays all;
    ExportBothWays(trace, options, 1, &all);
    std::vector<uint64_t> times;
    for (const auto& [cpu, events] : all.merged.events) {
      for (const std::string& bytes : events) {
        perfetto::protos::FtraceEvent event;
        ASSERT_TRUE(event.ParseFromString(bytes));
        times.push_back(event.timestamp());
      }
    }
    ASSERT_GT(times.size(), 100u);
    std::sort(times.begin(), times.end());
    options.window.from_ns = static_cast<TimestampNs>(times[times.size() / 3]);
    options.window.to_ns = static_cast<TimestampNs>(times[times.size() * 2 / 3]);
  }
  BothWays both;
  ExportBothWays(trace, options, GetParam().threads, &both);
  ASSERT_GT(both.merged.total, 0);
  ExpectSameEvents(both.decoded, both.merged, GetParam().trace);
  EXPECT_EQ(both.decoded_stats.ftrace_events, both.merged_stats.ftrace_events);
  EXPECT_EQ(both.decoded_stats.ftrace_events, both.decoded.total);
  EXPECT_EQ(both.decoded.lost_marks, both.merged.lost_marks);
  if (GetParam().window) {
    for (const auto& [cpu, events] : both.decoded.events) {
      for (const std::string& bytes : events) {
        perfetto::protos::FtraceEvent event;
        ASSERT_TRUE(event.ParseFromString(bytes));
        EXPECT_GE(event.timestamp(), static_cast<uint64_t>(options.window.from_ns));
        EXPECT_LE(event.timestamp(), static_cast<uint64_t>(options.window.to_ns));
      }
    }
  }
}

// Damaged files that still load: records of unknown event ids are left out both ways and the
// same records are written. Where time goes backwards the decoding side keeps each CPU's time
// from going back (the merge: the time of any CPU's record before), and a jump in time is not
// marked as a loss in the bundles: those cases compare without timestamps.
TEST(DecodedBundles, DamagedFilesHoldTheSameRecords) {
  int compared = 0;
  for (const testing::HostileFile& file : testing::MakeHostileFiles(testing::MakeTempDir())) {
    if (!file.usable || file.path.size() < 4 || file.path.substr(file.path.size() - 4) != ".dat") {
      continue;
    }
    BothWays both;
    ExportBothWays(file.path, AnalysisOptions(), 2, &both);
    auto without_time = [](Bundled bundled) {
      for (auto& [cpu, events] : bundled.events) {
        for (std::string& bytes : events) {
          perfetto::protos::FtraceEvent event;
          EXPECT_TRUE(event.ParseFromString(bytes));
          event.clear_timestamp();
          bytes = event.SerializeAsString();
        }
      }
      return bundled;
    };
    ExpectSameEvents(without_time(both.decoded), without_time(both.merged), file.name);
    ++compared;
  }
  EXPECT_GE(compared, 3);
}

INSTANTIATE_TEST_SUITE_P(
    Traces, DecodedBundlesTest,
    ::testing::Values(Case{"scenarios/missed_events_gap.dat", 1, false},
                      Case{"scenarios/missed_events_gap.dat", 3, false},
                      Case{"real/short-v6.dat", 1, false},
                      Case{"real/short-v6.dat", 3, false},
                      Case{"real/short-v6.dat", 3, true},
                      Case{"real/stack-truth-vectors.dat", 2, false},
                      Case{"real/veth-softirq-napi.dat", 2, false}),
    [](const auto& param_info) {
      std::string name = param_info.param.trace.substr(param_info.param.trace.find('/') + 1);
      name = name.substr(0, name.find('.'));
      std::replace(name.begin(), name.end(), '-', '_');
      return name + "_threads" + std::to_string(param_info.param.threads) +
             (param_info.param.window ? "_window" : "");
    });

}  // namespace
}  // namespace napiscope::perfetto_export
