// The JSON outputs validate against docs/report-schema.json (python3-jsonschema), and the schema
// is strict enough to reject a missing or mistyped field.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "support/test_support.h"

namespace napiscope {
namespace {

using ::napiscope::testing::CliPath;
using ::napiscope::testing::MakeTempDir;
using ::napiscope::testing::RunCommand;
using ::napiscope::testing::TestData;
using ::napiscope::testing::WriteFile;
using nlohmann::json;
using ::testing::HasSubstr;

std::string SourcePath(const std::string& relative) { return TestData("../" + relative); }

// validate_output.py's verdict on `document` against $defs/`definition`: "ok" or the error.
std::string Validate(const std::string& definition, const json& document) {
  std::string path = MakeTempDir() + "/out.json";
  WriteFile(path, document.dump());
  auto result = RunCommand("python3 " + SourcePath("tests/cli/validate_output.py") + " schema " +
                           SourcePath("docs/report-schema.json") + " " + definition + " " + path);
  EXPECT_EQ(result.err, "");
  std::string out = result.out;
  if (!out.empty() && out.back() == '\n') out.pop_back();
  EXPECT_EQ(result.exit_code, out == "ok" ? 0 : 1);
  return out.substr(out.find(": ") == std::string::npos ? 0 : out.find(": ") + 2);
}

json RunJson(const std::string& arguments) {
  auto result = RunCommand(CliPath() + " " + arguments);
  EXPECT_LE(result.exit_code, 2) << result.err;
  return json::parse(result.out);
}

TEST(JsonSchema, ReportsOfEveryBundledTraceValidate) {
  for (const char* trace :
       {"real/veth-threaded-napi.dat", "real/veth-softirq-napi.dat", "real/idle.dat",
        "scenarios/ksoftirqd_blocked.dat", "scenarios/irq_threads_bouncing.dat",
        "scenarios/missed_events_gap.dat", "scenarios/napi_budget.dat"}) {
    EXPECT_EQ(Validate("report", RunJson("report --format json " + TestData(trace))), "ok")
        << trace;
  }
  EXPECT_EQ(Validate("report", RunJson("report --format json --cpu 1 --from 664.1 --to 664.15 " +
                                       TestData("real/veth-softirq-napi.dat"))),
            "ok");
}

TEST(JsonSchema, CheckAndDiffValidate) {
  std::string bouncing = TestData("scenarios/irq_threads_bouncing.dat");
  std::string blocked = TestData("scenarios/ksoftirqd_blocked.dat");
  EXPECT_EQ(Validate("check", RunJson("check -f json " + bouncing + " " + blocked +
                                      " /nonexistent/trace.dat")),
            "ok");
  EXPECT_EQ(Validate("diff", RunJson("diff -f json " + bouncing + " " + blocked)), "ok");
}

TEST(JsonSchema, RejectsAMissingOrMistypedField) {
  json report = RunJson("report --format json " + TestData("scenarios/ksoftirqd_blocked.dat"));
  ASSERT_EQ(Validate("report", report), "ok");
  json broken = report;
  broken.erase("cpu_time");
  EXPECT_THAT(Validate("report", broken), HasSubstr("'cpu_time' is a required property"));
  broken = report;
  broken["softirq_latency"][0]["p99_ns"] = "1 ms";
  EXPECT_THAT(Validate("report", broken), HasSubstr("'1 ms' is not of type 'integer'"));
  broken = report;
  broken["findings"][0]["severity"] = "fatal";
  EXPECT_THAT(Validate("report", broken), HasSubstr("'fatal' is not one of"));
  broken = report;
  broken["ksoftirqd_blocked"][0].erase("chain");
  EXPECT_THAT(Validate("report", broken), HasSubstr("'chain' is a required property"));
  broken = report;
  broken["schema"] = "napiscope.report/2";
  EXPECT_THAT(Validate("report", broken), HasSubstr("was expected"));
}

}  // namespace
}  // namespace napiscope
