// Replays every fuzz input kept in the repo (tests/fuzz/corpus and tests/fuzz/regressions)
// through the fuzz targets' bodies, so each crash ever found stays a test in every build.
#include <filesystem>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "fuzz/fuzz_entries.h"
#include "support/hostile_files.h"
#include "support/test_support.h"

namespace napiscope {
namespace {

class FuzzReplayTest : public ::testing::TestWithParam<std::string> {};

TEST_P(FuzzReplayTest, EveryKeptInputPasses) {
  const std::string target = GetParam();
  fuzz::Entry entry = fuzz::EntryNamed(target);
  ASSERT_NE(entry, nullptr);
  int inputs = 0;
  for (const char* kind : {"corpus", "regressions"}) {
    std::filesystem::path dir = std::filesystem::path(NAPISCOPE_FUZZ_DIR) / kind / target;
    if (!std::filesystem::is_directory(dir)) continue;
    for (const auto& file : std::filesystem::directory_iterator(dir)) {
      if (!file.is_regular_file()) continue;
      SCOPED_TRACE(file.path().string());
      std::string bytes = testing::ReadFile(file.path().string());
      entry(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size());  // aborts on a finding
      ++inputs;
    }
  }
  EXPECT_GT(inputs, 0) << "no corpus for " << target;
}

// The hostile trace.dat files of the suite (tests/support/hostile_files.cpp: made by the
// tests, not kept as binaries) through the trace_dat target's body too, so its account of the
// events a file holds (fewer events without a warning is a finding) checks each of them.
TEST(FuzzReplay, EveryHostileTraceDatPassesTheTraceDatTarget) {
  fuzz::Entry entry = fuzz::EntryNamed("trace_dat");
  ASSERT_NE(entry, nullptr);
  const std::string dir = testing::MakeTempDir();
  int inputs = 0;
  for (const testing::HostileFile& file : testing::MakeHostileFiles(dir)) {
    if (file.path.size() < 4 || file.path.compare(file.path.size() - 4, 4, ".dat") != 0 ||
        !std::filesystem::is_regular_file(file.path) ||
        std::filesystem::file_size(file.path) > (64u << 20)) {
      continue;
    }
    SCOPED_TRACE(file.name);
    std::string bytes = testing::ReadFile(file.path);
    entry(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size());  // aborts on a finding
    ++inputs;
  }
  std::filesystem::remove_all(dir);
  EXPECT_GT(inputs, 30);
}

INSTANTIATE_TEST_SUITE_P(Targets, FuzzReplayTest,
                         ::testing::Values("trace_text", "trace_dat", "event_sequence",
                                           "check_config", "record_writer"));

}  // namespace
}  // namespace napiscope
