// Where softirqs ran, as the context tracker infers it, against the kernel stacks recorded with
// every event (testdata/real/stack-truth-*.dat, made by scripts/record-stack-truth.sh; the
// truth files by scripts/stack-truth.py from `trace-cmd report`). The stack records themselves
// (ftrace:kernel_stack, one after every event) stay in the files: they must not disturb the
// inference either.
#include <fstream>
#include <map>
#include <sstream>
#include <tuple>

#include <gtest/gtest.h>

#include "napiscope/contexts.h"
#include "napiscope/loader.h"
#include "support/test_support.h"

namespace napiscope {
namespace {

using ::napiscope::testing::TestData;

using EntryKey = std::tuple<TimestampNs, int, uint32_t>;  // ts, cpu, vec

// Reads ts_ns, cpu, vec, site per line.
std::map<EntryKey, std::string> ReadTruth(const std::string& path) {
  std::map<EntryKey, std::string> truth;
  std::ifstream in(path);
  std::string line;
  while (std::getline(in, line)) {
    std::istringstream fields(line);
    TimestampNs ts = 0;
    int cpu = 0;
    uint32_t vec = 0;
    std::string site;
    if (fields >> ts >> cpu >> vec >> site) truth[{ts, cpu, vec}] = site;
  }
  return truth;
}

// Asks the tracker, at every softirq_entry, where that softirq is running.
class SiteProbe : public EventSink {
 public:
  explicit SiteProbe(const ContextTracker* tracker) : tracker_(tracker) {}
  void OnEvent(const Event& event) override {
    if (event.kind != EventKind::kSoftirqEntry) return;
    const ContextFrame& top = tracker_->Top(event.cpu);
    sites[{event.ts_ns, event.cpu, event.softirq.vec}] =
        std::string(SoftirqSiteName(top.kind == ContextKind::kSoftirq ? top.site
                                                                       : SoftirqSite::kUnknown));
  }
  std::map<EntryKey, std::string> sites;

 private:
  const ContextTracker* tracker_;
};

struct Agreement {
  int64_t compared = 0;
  int64_t agreed = 0;
  std::map<std::string, int64_t> by_truth;  // site -> entries whose stack says so
  std::map<std::string, int64_t> inferred;  // site -> entries the tracker placed there
  std::string first_disagreements;
};

Agreement Compare(const std::string& name) {
  TraceContext context;
  ContextTracker tracker;
  SiteProbe probe(&tracker);
  FanoutSink sinks;
  sinks.Add(&tracker);
  sinks.Add(&probe);
  absl::Status status = LoadTrace(TestData("real/" + name + ".dat"), context, sinks);
  EXPECT_TRUE(status.ok()) << status;
  Agreement result;
  for (const auto& [key, truth_site] : ReadTruth(TestData("real/" + name + ".softirq-truth.tsv"))) {
    if (truth_site == "unknown") continue;  // its stack record was lost: no truth to check
    ++result.compared;
    ++result.by_truth[truth_site];
    auto found = probe.sites.find(key);
    std::string inferred = found == probe.sites.end() ? "(no entry)" : found->second;
    ++result.inferred[inferred];
    if (inferred == truth_site) {
      ++result.agreed;
    } else if (result.first_disagreements.size() < 400) {
      result.first_disagreements += "\n  ts " + std::to_string(std::get<0>(key)) + " cpu " +
                                    std::to_string(std::get<1>(key)) + ": stack " + truth_site +
                                    ", inferred " + inferred;
    }
  }
  return result;
}

// Recorded without irq_vectors: the local APIC timer and IPIs are not traced, so softirqs run
// at their exit are found from the hard-IRQ bit of common_flags alone.
TEST(StackTruth, ContextsWithoutIrqVectorsAgreeWithStacks) {
  Agreement result = Compare("stack-truth-novectors");
  ASSERT_EQ(result.compared, 837);
  EXPECT_EQ(result.by_truth["irq_exit"], 106);
  EXPECT_EQ(result.by_truth["task_bh_enable"], 731);
  EXPECT_GE(result.agreed * 100, result.compared * 99) << result.first_disagreements;
  // Before the hard-IRQ bit was used every one of these ran "in task_bh_enable".
  EXPECT_GE(result.inferred["irq_exit"], 105);
}

TEST(StackTruth, ContextsWithIrqVectorsAgreeWithStacks) {
  Agreement result = Compare("stack-truth-vectors");
  ASSERT_EQ(result.compared, 936);
  EXPECT_EQ(result.by_truth["irq_exit"], 110);
  EXPECT_EQ(result.by_truth["ksoftirqd"], 15);
  EXPECT_EQ(result.by_truth["task_bh_enable"], 811);
  EXPECT_GE(result.agreed * 100, result.compared * 99) << result.first_disagreements;
  EXPECT_GE(result.inferred["irq_exit"], 109);
}

}  // namespace
}  // namespace napiscope
