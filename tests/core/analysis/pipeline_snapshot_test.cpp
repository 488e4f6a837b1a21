// AnalysisPipeline::Finish changes nothing, so live mode can take a report between events.
#include <gtest/gtest.h>

#include "napiscope/analysis_session.h"
#include "napiscope/loader.h"
#include "napiscope/report_render.h"
#include "support/test_support.h"

namespace napiscope {
namespace {

// Feeds every event to `all`, and the first `prefix` events to `first_part`; snapshots `all`
// right after event number `prefix`.
class SplitSink : public EventSink {
 public:
  SplitSink(AnalysisPipeline* all, AnalysisPipeline* first_part, int64_t prefix)
      : all_(all), first_part_(first_part), prefix_(prefix) {}
  void OnBegin(const TraceContext& context) override {
    context_ = &context;
    all_->OnBegin(context);
    first_part_->OnBegin(context);
  }
  void OnEvent(const Event& event) override {
    all_->OnEvent(event);
    if (++seen_ <= prefix_) first_part_->OnEvent(event);
    if (seen_ == prefix_) snapshot_ = ReportToJson(all_->Finish(*context_)).dump();
  }
  void OnEnd() override { all_->OnEnd(); }
  const std::string& snapshot() const { return snapshot_; }

 private:
  AnalysisPipeline* all_;
  AnalysisPipeline* first_part_;
  int64_t prefix_;
  int64_t seen_ = 0;
  const TraceContext* context_ = nullptr;
  std::string snapshot_;
};

TEST(PipelineSnapshot, FinishMidStreamEqualsAPipelineThatSawOnlyThoseEvents) {
  const std::string path = testing::TestData("real/short-v6.dat");
  AnalysisOptions options;
  AnalysisPipeline all(options), first_part(options);
  SplitSink sink(&all, &first_part, 20000);  // the file has 34936 events
  TraceContext context;
  ASSERT_TRUE(LoadTrace(path, context, sink).ok());
  ASSERT_FALSE(sink.snapshot().empty());

  // The snapshot's trace summary counts the context's tasks and missed marks, which the load
  // kept filling after event 20000; compare the analyses, which only the events feed.
  nlohmann::json snapshot = nlohmann::json::parse(sink.snapshot());
  nlohmann::json expected = ReportToJson(first_part.Finish(context));
  for (const char* key : {"softirq_latency", "cpu_time", "irq_threads", "napi_threads",
                          "ksoftirqd", "ksoftirqd_blocked"}) {
    EXPECT_EQ(snapshot[key], expected[key]) << key;
  }
  EXPECT_GT(snapshot["softirq_latency"].size(), 0u);

  // Taking snapshots changed nothing: the end result equals a plain one-pass analysis.
  Report plain;
  ASSERT_TRUE(AnalyzeTrace(path, options, &plain).ok());
  std::string final_json = ReportToJson(all.Finish(context)).dump();
  EXPECT_EQ(final_json, ReportToJson(plain).dump());
  EXPECT_EQ(final_json, ReportToJson(all.Finish(context)).dump());
  EXPECT_NE(final_json, sink.snapshot());
}

}  // namespace
}  // namespace napiscope
