#include <sys/stat.h>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "napiscope/check_config.h"
#include "napiscope/format.h"
#include "support/test_support.h"

namespace napiscope {
namespace {

using ::napiscope::testing::MakeTempDir;
using ::napiscope::testing::WriteFile;
using ::testing::HasSubstr;

TEST(ParseDuration, IntegerNanosecondsOrANumberWithAUnit) {
  int64_t ns = -1;
  EXPECT_TRUE(ParseDuration("850", &ns));
  EXPECT_EQ(ns, 850);
  EXPECT_TRUE(ParseDuration("850ns", &ns));
  EXPECT_EQ(ns, 850);
  EXPECT_TRUE(ParseDuration("12.5us", &ns));
  EXPECT_EQ(ns, 12500);
  EXPECT_TRUE(ParseDuration("3ms", &ns));
  EXPECT_EQ(ns, 3000000);
  EXPECT_TRUE(ParseDuration("1.5s", &ns));
  EXPECT_EQ(ns, 1500000000);
  EXPECT_TRUE(ParseDuration("0", &ns));
  EXPECT_EQ(ns, 0);
  for (const char* bad : {"", "ms", "1.5", "1.5ns", "1.0001us", "-1ms", "1 ms", "1.ms", "x",
                          "9999999999999s", "1h"}) {
    EXPECT_FALSE(ParseDuration(bad, &ns)) << bad;
  }
}

TEST(SetThreshold, SetsTheFieldOfItsKey) {
  Thresholds t;
  ASSERT_TRUE(SetThreshold("ksoftirqd_blocked_warning_ns", "2ms", &t).ok());
  EXPECT_EQ(t.ksoftirqd_blocked_warning_ns, 2000000);
  ASSERT_TRUE(SetThreshold("pingpong_cross_share_warning", "0.1", &t).ok());
  EXPECT_DOUBLE_EQ(t.pingpong_cross_share_warning, 0.1);
  ASSERT_TRUE(SetThreshold("pingpong_min_cross_activations", "5", &t).ok());
  EXPECT_EQ(t.pingpong_min_cross_activations, 5);
  ASSERT_TRUE(SetThreshold("NET_RX.softirq_latency_max_error_ns", "250us", &t).ok());
  EXPECT_EQ(t.SoftirqLatencyMaxErrorNs(kNetRx), 250000);
  EXPECT_EQ(t.SoftirqLatencyMaxErrorNs(kTimer), 5000000);  // the default for the others
  EXPECT_EQ(t.SoftirqLatencyP99WarningNs(kNetRx), 1000000);
}

TEST(SetThreshold, RejectsUnknownKeysAndBadValuesNamingTheKey) {
  Thresholds t;
  EXPECT_EQ(SetThreshold("no_such_ns", "1ms", &t).message(), "unknown key 'no_such_ns'");
  EXPECT_EQ(SetThreshold("NET_RX.ordering_stall_ns", "1ms", &t).message(),
            "unknown key 'NET_RX.ordering_stall_ns'; ordering_stall_ns has no per-vector form");
  EXPECT_EQ(SetThreshold("BOGUS.softirq_latency_max_error_ns", "1ms", &t).message(),
            "unknown key 'BOGUS.softirq_latency_max_error_ns'");
  EXPECT_EQ(SetThreshold("NET_RX.softirq_latency_max_eror_ns", "1ms", &t).message(),
            "unknown key 'NET_RX.softirq_latency_max_eror_ns'; did you mean "
            "'NET_RX.softirq_latency_max_error_ns'?");
  EXPECT_EQ(SetThreshold("ordering_stal_ns", "1ms", &t).message(),
            "unknown key 'ordering_stal_ns'; did you mean 'ordering_stall_ns'?");
  EXPECT_EQ(SetThreshold("ordering_stall_ns", "soon", &t).message(),
            "'ordering_stall_ns' wants a duration like 500us or 1ms, not 'soon'");
  EXPECT_EQ(SetThreshold("pingpong_cross_share_error", "half", &t).message(),
            "'pingpong_cross_share_error' wants a number like 0.25, not 'half'");
  EXPECT_EQ(SetThreshold("pingpong_min_cross_activations", "2.5", &t).message(),
            "'pingpong_min_cross_activations' wants an integer, not '2.5'");
}

TEST(ThresholdKeys, DefaultsPrintAsTheyParse) {
  Thresholds defaults, parsed;
  parsed.ksoftirqd_blocked_error_ns = 7;  // changed, so the round trip must restore it
  parsed.pingpong_cross_share_error = 0.9;
  for (const ThresholdKey& key : ThresholdKeys()) {
    std::string text = ThresholdValueText(key, defaults);
    ASSERT_TRUE(SetThreshold(key.key, text, &parsed).ok()) << key.key << "=" << text;
  }
  EXPECT_EQ(parsed.ksoftirqd_blocked_error_ns, defaults.ksoftirqd_blocked_error_ns);
  EXPECT_EQ(parsed.pingpong_cross_share_error, defaults.pingpong_cross_share_error);
  EXPECT_EQ(ThresholdValueText(ThresholdKeys()[0], defaults), "1ms");
}

class CheckConfigFile : public ::testing::Test {
 protected:
  std::string Write(const std::string& name, const std::string& content) {
    std::string path = dir_ + "/" + name;
    WriteFile(path, content);
    return path;
  }
  std::string dir_ = MakeTempDir();
};

TEST_F(CheckConfigFile, TomlSetsThresholdsAndFailOn) {
  std::string path = Write("napiscope.toml",
                           "# CI limits\nfail_on = \"error\"\n[thresholds]\n"
                           "softirq_latency_p99_warning_ns = \"500us\"\n"
                           "ksoftirqd_blocked_error_ns = 2000000\n"
                           "pingpong_cross_share_warning = 0.2\n"
                           "[thresholds.NET_RX]\nsoftirq_latency_max_error_ns = \"2ms\"\n");
  CheckConfig config;
  ASSERT_TRUE(LoadCheckConfig(path, &config).ok());
  EXPECT_EQ(config.fail_on, Severity::kError);
  EXPECT_EQ(config.thresholds.softirq_latency_p99_warning_ns, 500000);
  EXPECT_EQ(config.thresholds.ksoftirqd_blocked_error_ns, 2000000);
  EXPECT_DOUBLE_EQ(config.thresholds.pingpong_cross_share_warning, 0.2);
  EXPECT_EQ(config.thresholds.SoftirqLatencyMaxErrorNs(kNetRx), 2000000);
  EXPECT_EQ(config.thresholds.ordering_stall_ns, Thresholds().ordering_stall_ns);
}

TEST_F(CheckConfigFile, JsonIsTheSameStructure) {
  std::string path = Write("napiscope.json",
                           R"({"fail_on": "warning", "thresholds": {"ordering_stall_ns": "3ms",
                               "TIMER": {"softirq_latency_p99_warning_ns": 100000}}})");
  CheckConfig config;
  config.fail_on = Severity::kError;
  ASSERT_TRUE(LoadCheckConfig(path, &config).ok());
  EXPECT_EQ(config.fail_on, Severity::kWarning);
  EXPECT_EQ(config.thresholds.ordering_stall_ns, 3000000);
  EXPECT_EQ(config.thresholds.SoftirqLatencyP99WarningNs(kTimer), 100000);
}

TEST_F(CheckConfigFile, ErrorsNameTheFileAndTheKey) {
  auto message = [](const std::string& file) {
    CheckConfig config;
    return std::string(LoadCheckConfig(file, &config).message());
  };
  std::string path = Write("a.toml", "[thresholds]\nsoftirq_latncy_p99_warning_ns = 1\n");
  EXPECT_EQ(message(path), path +
                               ": unknown key 'thresholds.softirq_latncy_p99_warning_ns'; did you "
                               "mean 'thresholds.softirq_latency_p99_warning_ns'?");
  path = Write("b.toml", "failon = \"error\"\n");
  EXPECT_EQ(message(path), path + ": unknown key 'failon'; did you mean 'fail_on'?");
  path = Write("f.toml", "ksoftirqd_blocked_warning_ns = \"1ms\"\n");  // outside [thresholds]
  EXPECT_EQ(message(path), path +
                               ": unknown key 'ksoftirqd_blocked_warning_ns'; thresholds go in a "
                               "[thresholds] table");
  path = Write("g.toml", "[thresholds.NETRX]\nsoftirq_latency_max_error_ns = \"1ms\"\n");
  EXPECT_EQ(message(path), path +
                               ": unknown key 'thresholds.NETRX.softirq_latency_max_error_ns'; did "
                               "you mean 'thresholds.NET_RX.softirq_latency_max_error_ns'?");
  path = Write("c.toml", "[thresholds.NET_RX]\nordering_stall_ns = 1\n");
  EXPECT_EQ(message(path), path +
                               ": unknown key 'thresholds.NET_RX.ordering_stall_ns'; "
                               "ordering_stall_ns has no per-vector form");
  path = Write("d.toml", "[thresholds]\nordering_stall_ns = true\n");
  EXPECT_EQ(message(path),
            path + ": 'thresholds.ordering_stall_ns' wants a duration like 500us or 1ms, not 'true'");
  path = Write("e.toml", "fail_on = \"fatal\"\n");
  EXPECT_EQ(message(path), path + ": 'fail_on' wants \"warning\" or \"error\", not '\"fatal\"'");
  path = Write("f.toml", "[thresholds\n");
  EXPECT_THAT(message(path), HasSubstr(path + ":1: "));
  path = Write("g.json", "{\"thresholds\": ");
  EXPECT_EQ(message(path), path + ": not a JSON object");
  EXPECT_EQ(message(dir_ + "/missing.toml"), dir_ + "/missing.toml: cannot open the config file");
}

// Hostile configs (docs/robustness.md): each an error naming the file, quickly, in bounded
// memory, without blocking and without running out of stack.
TEST_F(CheckConfigFile, HostileConfigsAreErrorsNamingTheFile) {
  auto message = [](const std::string& file) {
    CheckConfig config;
    absl::Status status = LoadCheckConfig(file, &config);
    EXPECT_FALSE(status.ok()) << file;
    return std::string(status.message());
  };
  std::string fifo = dir_ + "/fifo.toml";
  ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
  EXPECT_EQ(message(fifo), fifo + ": is not a regular file");  // never blocks on the FIFO
  EXPECT_EQ(message("/dev/zero"), "/dev/zero: is not a regular file");
  EXPECT_EQ(message(dir_), dir_ + ": is a directory, not a config file");
  std::string big = Write("big.toml", "# " + std::string(2 << 20, 'x') + "\n");
  EXPECT_EQ(message(big), big + ": config file of 2097155 bytes (at most 1048576 bytes)");
  std::string deep_json = Write("deep.json", std::string(100000, '[') + std::string(100000, ']'));
  EXPECT_EQ(message(deep_json),
            deep_json + ": nested 100000 deep (a config nests at most 32 tables, arrays or "
                        "dotted keys)");
  std::string dotted = "[a";
  for (int i = 0; i < 50000; ++i) dotted += ".a";
  std::string deep_toml = Write("deep.toml", dotted + "]\n");
  EXPECT_THAT(message(deep_toml), HasSubstr(deep_toml + ": nested 50001 deep"));
  std::string dotted_key = Write("dotted-key.toml", "thresholds" + dotted.substr(2) + " = 1\n");
  EXPECT_THAT(message(dotted_key), HasSubstr(dotted_key + ": nested 50000 deep"));
}

// An unknown key of 950 KB took 15-30 s and 300 MB in the "did you mean" search and made a
// 950 KB error line (issue 64): the search skips names whose length alone is too far, and the
// message quotes the start of what was written and its length.
TEST_F(CheckConfigFile, AHugeKeyOrValueIsQuotedShortInTheError) {
  auto message = [](const std::string& file) {
    CheckConfig config;
    absl::Status status = LoadCheckConfig(file, &config);
    EXPECT_FALSE(status.ok()) << file;
    return std::string(status.message());
  };
  const std::string huge(950000, 'a');
  std::string path = Write("key.toml", "[thresholds]\n" + huge + " = 1\n");
  EXPECT_EQ(message(path), path + ": unknown key 'thresholds." + std::string(53, 'a') +
                               "...' (950011 characters)");
  path = Write("top.toml", huge + " = 1\n");
  EXPECT_EQ(message(path),
            path + ": unknown key '" + std::string(64, 'a') + "...' (950000 characters)");
  path = Write("vector.toml", "[thresholds." + huge + "]\nsoftirq_latency_max_error_ns = 1\n");
  EXPECT_EQ(message(path), path + ": unknown key 'thresholds." + std::string(53, 'a') +
                               "...' (950040 characters)");
  path = Write("value.toml", "[thresholds]\nordering_stall_ns = \"" + huge + "\"\n");
  EXPECT_EQ(message(path), path + ": 'thresholds.ordering_stall_ns' wants a duration like 500us "
                                  "or 1ms, not '" + std::string(64, 'a') + "...' (950000 characters)");
  // A long typo of a long key is still a typo.
  path = Write("typo.toml", "[thresholds]\nsoftirq_latency_p99_warnng_ns = 1\n");
  EXPECT_THAT(message(path), HasSubstr("did you mean 'thresholds.softirq_latency_p99_warning_ns'?"));
}

TEST_F(CheckConfigFile, ValuesOutsideTheirRangeAreRefused) {
  auto message = [&](const std::string& line) {
    std::string path = Write("range.toml", "[thresholds]\n" + line + "\n");
    CheckConfig config;
    absl::Status status = LoadCheckConfig(path, &config);
    return status.ok() ? std::string("ok") : std::string(status.message()).substr(path.size() + 2);
  };
  EXPECT_EQ(message("napi_min_polls = -5"),
            "'thresholds.napi_min_polls' wants a count of at least 0, not '-5'");
  EXPECT_EQ(message("ordering_stall_ns = -1000"),
            "'thresholds.ordering_stall_ns' wants a duration like 500us or 1ms, not '-1000'");
  EXPECT_EQ(message("pingpong_cross_share_error = -0.5"),
            "'thresholds.pingpong_cross_share_error' wants a share from 0 to 1, not '-0.5'");
  EXPECT_EQ(message("napi_exhausted_share = 1.5"),
            "'thresholds.napi_exhausted_share' wants a share from 0 to 1, not '1.5'");
  EXPECT_EQ(message("pingpong_cpu_changes_per_s_warning = -3.0"),
            "'thresholds.pingpong_cpu_changes_per_s_warning' wants a number of at least 0, not "
            "'-3'");
  EXPECT_EQ(message("napi_exhausted_share = 1.0"), "ok");
  EXPECT_EQ(message("napi_min_polls = 0"), "ok");
}

}  // namespace
}  // namespace napiscope
