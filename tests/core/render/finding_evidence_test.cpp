// A finding's evidence in words: each kind of value the analyses put there, as the HTML
// report and the GUI's findings pane show it.
#include "napiscope/finding_evidence.h"

#include <gtest/gtest.h>

namespace napiscope {
namespace {

std::string ValueOf(const nlohmann::json& evidence, const std::string& label) {
  for (const EvidenceLine& line : EvidenceForPeople(evidence)) {
    if (line.label == label) return line.value;
  }
  return "(no line " + label + ")";
}

TEST(FindingEvidence, TimesAndDurationsHaveTheirUnits) {
  nlohmann::json evidence = {{"max_at_ns", 705340040123},
                             {"p99_threshold_ns", 1000000},
                             {"unknown_ns", 0},
                             {"raise_ns", 1553278955000}};
  EXPECT_EQ(ValueOf(evidence, "max at"), "705.340040");
  EXPECT_EQ(ValueOf(evidence, "p99 threshold"), "1.00 ms (1000000 ns)");
  EXPECT_EQ(ValueOf(evidence, "unknown"), "0 ns");
  EXPECT_EQ(ValueOf(evidence, "raise"), "1553.278955");
}

TEST(FindingEvidence, SharesArePercentagesAndOtherFractionsAreShort) {
  nlohmann::json evidence = {{"exhausted_share", 0.4646192156048973},
                             {"ksoftirqd_share", 0.0},
                             {"cpu_changes_per_s", 293.94560184496964}};
  EXPECT_EQ(ValueOf(evidence, "exhausted share"), "46.5%");
  EXPECT_EQ(ValueOf(evidence, "ksoftirqd share"), "0.0%");
  EXPECT_EQ(ValueOf(evidence, "cpu changes per s"), "293.9");
}

TEST(FindingEvidence, SoftirqVectorsAndPendingMasksAreNamed) {
  nlohmann::json evidence = {
      {"vec", 3}, {"worst_vec", 7}, {"pending_mask", 130}, {"pending_mask_end", 0}, {"pid", 7}};
  EXPECT_EQ(ValueOf(evidence, "vec"), "NET_RX (3)");
  EXPECT_EQ(ValueOf(evidence, "worst vec"), "SCHED (7)");
  EXPECT_EQ(ValueOf(evidence, "pending mask"), "0x82 (TIMER|SCHED)");
  EXPECT_EQ(ValueOf(evidence, "pending mask end"), "0x0 (none)");
  EXPECT_EQ(ValueOf(evidence, "pid"), "7");  // only vectors and masks are named
}

// The kernel's priority beside the sentence's "RT 98": 1 is chrt's 98.
TEST(FindingEvidence, KernelPrioritiesSayWhatChrtAndNiceCallThem) {
  nlohmann::json evidence = {{"prio", 1}, {"runner_prio", 120}, {"irq_thread_prio", 125}};
  EXPECT_EQ(ValueOf(evidence, "prio"), "1 (RT 98)");
  EXPECT_EQ(ValueOf(evidence, "runner prio"), "120");
  EXPECT_EQ(ValueOf(evidence, "irq thread prio"), "125 (nice 5)");
}

TEST(FindingEvidence, MinusOneIsNoIrqTaskOrCpuAndAnUnknownTime) {
  nlohmann::json evidence = {{"irq", -1},
                             {"waker_pid", -1},
                             {"suggested_cpu", -1},
                             {"worst_processed_after_ns", -1},
                             {"irq_thread_prio", -1}};
  EXPECT_EQ(ValueOf(evidence, "irq"), "none");
  EXPECT_EQ(ValueOf(evidence, "waker pid"), "none");
  EXPECT_EQ(ValueOf(evidence, "suggested cpu"), "none");
  EXPECT_EQ(ValueOf(evidence, "worst processed after"), "unknown");
  EXPECT_EQ(ValueOf(evidence, "irq thread prio"), "-1");
  EXPECT_EQ(ValueOf({{"napi", 18446612708506931976u}}, "napi"), "18446612708506931976");
}

TEST(FindingEvidence, ListsObjectsAndFlagsAreSpelledOut) {
  nlohmann::json evidence = {{"commands", {"chrt -f -p 62 300", "chrt -f -p 61 301"}},
                             {"polls_by_context", {{"napi_kthread", 4819}, {"ksoftirqd", 12}}},
                             {"blame", {{{"holder", "iperf3 (pid 10780)"}, {"time_ns", 569993}}}},
                             {"blocking_preempted", false},
                             {"dev", "va"}};
  EXPECT_EQ(ValueOf(evidence, "commands"), "chrt -f -p 62 300\nchrt -f -p 61 301");
  EXPECT_EQ(ValueOf(evidence, "polls by context"), "ksoftirqd 12, napi_kthread 4819");
  EXPECT_EQ(ValueOf(evidence, "blame"), "holder iperf3 (pid 10780), time 570 us (569993 ns)");
  EXPECT_EQ(ValueOf(evidence, "blocking preempted"), "no");
  nlohmann::json roles = {{"blame",
                           {{{"holder", "iperf3 (pid 10780)"}, {"role", "lower_prio"}},
                            {{"holder", "softirq HRTIMER"}, {"role", "softirq"}}}}};
  EXPECT_EQ(ValueOf(roles, "blame"),
            "holder iperf3 (pid 10780), role a lower-priority task that could not be preempted\n"
            "holder softirq HRTIMER, role softirq");
  EXPECT_EQ(ValueOf(evidence, "dev"), "va");
}

TEST(FindingEvidence, LongListsAreCutAndNonObjectsGiveNothing) {
  nlohmann::json many = nlohmann::json::array();
  for (int i = 0; i < 200; ++i) many.push_back("event:number_" + std::to_string(i));
  std::string value = ValueOf({{"missing_events", many}}, "missing events");
  EXPECT_LT(value.size(), 700u);
  EXPECT_TRUE(value.ends_with("\n...")) << value;
  // A list that ends where the cut would come is whole: no "..." after its last item.
  nlohmann::json two = {std::string(590, 'a'), std::string(20, 'b')};
  EXPECT_EQ(ValueOf({{"commands", two}}, "commands"),
            two[0].get<std::string>() + "\n" + two[1].get<std::string>());
  EXPECT_TRUE(EvidenceForPeople(nlohmann::json::array({1, 2})).empty());
  EXPECT_TRUE(EvidenceForPeople(nlohmann::json()).empty());
}

}  // namespace
}  // namespace napiscope
