// `napiscope export --format perfetto`: every exported file decodes with protoc and the project's
// .proto, and holds what the input and napiscope's report say: the same ftrace events, a slice
// per softirq run, hard IRQ and NAPI poll, lost time marked, and an instant per finding.
#include <sys/stat.h>

#include <gtest/gtest.h>

#include <absl/strings/str_join.h>

#include <algorithm>
#include <filesystem>
#include <set>

#include "napiscope/perfetto_export.h"
#include "napiscope/phrasing.h"
#include "perfetto_decode.h"
#include "support/test_support.h"

namespace napiscope::testing {
namespace {

struct ExportCase {
  std::string trace;  // under testdata/
  bool parse_text;    // content from protoc's text (small files) or the binary (large ones)
};

class PerfettoExportTest : public ::testing::TestWithParam<ExportCase> {};

// A flag arg of a slice; the export writes flags only when they are not the usual value.
bool Flag(const DecodedEvent& slice, const std::string& name, bool usual) {
  auto it = slice.args.find(name);
  return it == slice.args.end() ? usual : it->second.get<bool>();
}

// Ftrace events per name and CPU are the input's, as `napiscope info` counts them.
void ExpectSameEvents(const DecodedExport& decoded, const nlohmann::json& info) {
  ASSERT_TRUE(info.is_object());
  std::map<std::string, int64_t> expected;
  std::map<std::pair<std::string, uint32_t>, int64_t> expected_per_cpu;
  for (const auto& [name, count] : info["event_counts"].items()) {
    expected[name] = count["total"].get<int64_t>();
    for (const auto& row : count["per_cpu"]) {
      expected_per_cpu[{name, row["cpu"].get<uint32_t>()}] = row["events"].get<int64_t>();
    }
  }
  EXPECT_EQ(decoded.ftrace_counts, expected);
  EXPECT_EQ(decoded.ftrace_counts_per_cpu, expected_per_cpu);
}

// Complete softirq runs per CPU and vector are the report's softirq_runtime counts (traces
// without preempted softirqs, where a run is one slice).
void ExpectSoftirqRuns(const DecodedExport& decoded, const nlohmann::json& report) {
  std::map<std::pair<int64_t, int64_t>, int64_t> slices;
  for (const DecodedEvent& slice : decoded.slices) {
    if (slice.category != "softirq") continue;
    if (Flag(slice, "start_known", true) && Flag(slice, "end_known", true) &&
        !Flag(slice, "resumed", false) && !Flag(slice, "suspended", false)) {
      std::string cpu = slice.track.substr(4, slice.track.find(' ', 4) - 4);
      ++slices[{std::stoll(cpu), slice.args.at("vec").get<int64_t>()}];
    }
  }
  std::map<std::pair<int64_t, int64_t>, int64_t> expected;
  for (const auto& row : report["softirq_runtime"]) {
    ASSERT_EQ(row["preempted_runs"].get<int64_t>(), 0);
    expected[{row["cpu"].get<int64_t>(), row["vec"].get<int64_t>()}] = row["count"].get<int64_t>();
  }
  EXPECT_EQ(slices, expected);
}

// Complete hard IRQ runs per CPU and IRQ (or x86 vector) are the report's hardirq_runtime counts.
void ExpectHardirqRuns(const DecodedExport& decoded, const nlohmann::json& report) {
  std::map<std::tuple<int64_t, int64_t, bool, std::string>, int64_t> slices, expected;
  for (const DecodedEvent& slice : decoded.slices) {
    if (slice.category != "hardirq" || !Flag(slice, "start_known", true) ||
        !Flag(slice, "end_known", true)) {
      continue;
    }
    std::string cpu = slice.track.substr(4, slice.track.find(' ', 4) - 4);
    ++slices[{std::stoll(cpu), slice.args.at("irq").get<int64_t>(),
              Flag(slice, "x86_vector", false), slice.name}];
  }
  for (const auto& row : report["hardirq_runtime"]) {
    expected[{row["cpu"].get<int64_t>(), row["irq"].get<int64_t>(), row["x86_vector"].get<bool>(),
              row["name"].get<std::string>()}] = row["count"].get<int64_t>();
  }
  EXPECT_EQ(slices, expected);
}

// A slice per NAPI poll on its instance's track, and the packets-per-poll counter has the work.
void ExpectNapiPolls(const DecodedExport& decoded, const nlohmann::json& report) {
  std::map<std::string, int64_t> polls, expected_polls, work, expected_work;
  for (const DecodedEvent& slice : decoded.slices) {
    if (slice.category != "napi") continue;
    std::string napi = slice.track.substr(slice.track.rfind(' ') + 1);
    ++polls[napi];
  }
  for (const auto& [track, values] : decoded.counters) {
    if (track.rfind("packets per poll ", 0) != 0) continue;
    std::string napi = track.substr(track.rfind(' ') + 1);
    for (int64_t value : values) work[napi] += value;
  }
  for (const auto& row : report["napi"]) {
    std::string napi = row["napi"].get<std::string>();
    expected_polls[napi] += row["polls"].get<int64_t>();
    expected_work[napi] += row["work"].get<int64_t>();
  }
  EXPECT_EQ(polls, expected_polls);
  EXPECT_EQ(work, expected_work);
}

// A slice per paired softirq wait, raise to entry, on its CPU's vector track: the report's
// softirq_latency counts, each slice as long as its delay.
void ExpectSoftirqWaits(const DecodedExport& decoded, const nlohmann::json& report) {
  std::map<std::pair<int64_t, int64_t>, int64_t> slices, expected;
  for (const DecodedEvent& slice : decoded.slices) {
    if (slice.category != "softirq_wait") continue;
    std::string cpu = slice.track.substr(4, slice.track.find(' ', 4) - 4);
    ++slices[{std::stoll(cpu), slice.args.at("vec").get<int64_t>()}];
    EXPECT_EQ(static_cast<int64_t>(slice.end_ns - slice.ts_ns),
              slice.args.at("delay_ns").get<int64_t>());
  }
  for (const auto& row : report["softirq_latency"]) {
    if (row["count"].get<int64_t>() == 0) continue;
    expected[{row["cpu"].get<int64_t>(), row["vec"].get<int64_t>()}] = row["count"].get<int64_t>();
  }
  EXPECT_EQ(slices, expected);
}

// A slice per service-thread activation (the report's counts per thread), each with one flow
// in, from an instant at the same time on the activating CPU's track.
void ExpectActivations(const DecodedExport& decoded, const nlohmann::json& report) {
  std::map<uint64_t, const DecodedEvent*> flow_sources;
  for (const DecodedEvent& instant : decoded.instants) {
    for (uint64_t flow : instant.flows_out) flow_sources[flow] = &instant;
  }
  std::map<int64_t, int64_t> slices, expected;
  for (const DecodedEvent& slice : decoded.slices) {
    if (slice.category != "activation") continue;
    int64_t pid = slice.args.at("pid").get<int64_t>();
    ++slices[pid];
    ASSERT_EQ(slice.flows_in.size(), 1u) << slice.track;
    auto source = flow_sources.find(slice.flows_in[0]);
    ASSERT_NE(source, flow_sources.end()) << "flow into " << slice.track << " from nowhere";
    EXPECT_EQ(source->second->ts_ns, slice.ts_ns);
    EXPECT_EQ(source->second->args.at("pid").get<int64_t>(), pid);
    EXPECT_EQ(source->second->track,
              "CPU " + std::to_string(slice.args.at("from_cpu").get<int64_t>()) + " activations");
  }
  for (const char* section : {"irq_threads", "napi_threads", "ksoftirqd"}) {
    for (const auto& row : report[section]) {
      int64_t activations = row["activations"].get<int64_t>();
      if (activations > 0) expected[row["pid"].get<int64_t>()] += activations;
    }
  }
  EXPECT_EQ(slices, expected);
}

// A slice per wake -> run wait of the threads the report's rt_wake_latency lists.
void ExpectWakeWaits(const DecodedExport& decoded, const nlohmann::json& report) {
  std::map<int64_t, int64_t> slices, expected;
  for (const DecodedEvent& slice : decoded.slices) {
    if (slice.category != "wake") continue;
    ++slices[slice.args.at("pid").get<int64_t>()];
    EXPECT_EQ(static_cast<int64_t>(slice.end_ns - slice.ts_ns),
              slice.args.at("wait_ns").get<int64_t>());
  }
  for (const auto& row : report["rt_wake_latency"]) {
    if (row["count"].get<int64_t>() > 0) {
      expected[row["pid"].get<int64_t>()] += row["count"].get<int64_t>();
    }
  }
  EXPECT_EQ(slices, expected);
}

// NET_RX pending per CPU goes to 1 at a first raise and back to 0 at the entry (or a loss).
void ExpectNetRxPending(const DecodedExport& decoded, const nlohmann::json& report) {
  int64_t net_rx_waits = 0;
  for (const auto& row : report["softirq_latency"]) {
    if (row["vec"].get<int64_t>() == 3) net_rx_waits += row["count"].get<int64_t>();
  }
  int64_t rises = 0;
  for (const auto& [track, values] : decoded.counters) {
    if (track.find(" NET_RX pending") == std::string::npos) continue;
    for (size_t i = 0; i < values.size(); ++i) {
      EXPECT_EQ(values[i], i % 2 == 0 ? 1 : 0) << track << " value " << i;
      rises += values[i];
    }
  }
  EXPECT_GE(rises, net_rx_waits);
}

// An instant per finding, at its start, with its sentence.
void ExpectFindings(const DecodedExport& decoded, const nlohmann::json& report) {
  std::multiset<std::tuple<std::string, int64_t, std::string>> instants, expected;
  for (const DecodedEvent& instant : decoded.instants) {
    if (instant.category != "finding") continue;
    EXPECT_EQ(instant.ts_ns, instant.args.at("start_ns").get<uint64_t>());
    instants.insert({instant.name, static_cast<int64_t>(instant.ts_ns),
                     instant.args.at("summary").get<std::string>()});
  }
  for (const auto& finding : report["findings"]) {
    expected.insert({finding["rule"].get<std::string>(), finding["start_ns"].get<int64_t>(),
                     finding["summary"].get<std::string>()});
  }
  EXPECT_EQ(instants, expected);
}

TEST_P(PerfettoExportTest, HoldsTheInputEventsAndTheReportsCounts) {
  std::string trace = TestData(GetParam().trace);
  std::string dir = MakeTempDir();
  DecodedExport decoded = Decode(ExportWithCli(trace, "", dir), GetParam().parse_text);
  nlohmann::json info = CliJson("info --json " + trace);
  nlohmann::json report = CliJson("report --format json " + trace);
  ASSERT_TRUE(report.is_object());
  // Names, categories and annotation names are interned; Decode checked that each is defined
  // on the sequence before (or in) the packet that uses it, and resolved them: the comparisons
  // below see the strings.
  EXPECT_GT(decoded.interned_references, 0);
  EXPECT_TRUE(decoded.interning_errors.empty());
  ExpectSameEvents(decoded, info);
  ExpectSoftirqRuns(decoded, report);
  ExpectHardirqRuns(decoded, report);
  ExpectNapiPolls(decoded, report);
  ExpectSoftirqWaits(decoded, report);
  ExpectActivations(decoded, report);
  ExpectWakeWaits(decoded, report);
  ExpectNetRxPending(decoded, report);
  ExpectFindings(decoded, report);
}

INSTANTIATE_TEST_SUITE_P(
    Traces, PerfettoExportTest,
    ::testing::Values(ExportCase{"scenarios/softirq_contexts.dat", true},
                      ExportCase{"scenarios/napi_budget.dat", true},
                      ExportCase{"scenarios/missed_events_gap.dat", true},
                      ExportCase{"scenarios/irq_threads_bouncing.dat", true},
                      ExportCase{"scenarios/rt_wake_latency.dat", true},
                      ExportCase{"real/short-v6.dat", true},
                      ExportCase{"real/veth-softirq-napi.dat", false}),
    [](const auto& param_info) {
      std::string name = param_info.param.trace.substr(param_info.param.trace.find('/') + 1);
      name = name.substr(0, name.find('.'));
      std::replace(name.begin(), name.end(), '-', '_');
      return name;
    });

// A text trace has no decoding threads: its events are bundled from the merged stream, and the
// file holds them all, per CPU, as `napiscope info` counts them.
TEST(PerfettoExport, TextTraceHoldsTheInputEvents) {
  std::string trace = TestData("text/short-v6.per-cpu.txt.xz");
  DecodedExport decoded = Decode(ExportWithCli(trace, "", MakeTempDir()), false);
  ASSERT_GT(decoded.ftrace_timestamps.size(), 1000u);
  ExpectSameEvents(decoded, CliJson("info --json " + trace));
}

// The real recording exercises every kind of track, so the comparisons above are not vacuous.
TEST(PerfettoExport, RealTraceHasEveryKindOfTrack) {
  DecodedExport decoded =
      Decode(ExportWithCli(TestData("real/short-v6.dat"), "", MakeTempDir()), false);
  std::map<std::string, int64_t> per_category;
  for (const DecodedEvent& slice : decoded.slices) ++per_category[slice.category];
  for (const char* category :
       {"softirq", "hardirq", "napi", "lost", "softirq_wait", "activation"}) {
    EXPECT_GT(per_category[category], 0) << category;
  }
  EXPECT_FALSE(decoded.instants.empty());
  EXPECT_FALSE(decoded.counters.empty());
  EXPECT_GT(decoded.bundles_with_lost_events, 0);
}

TEST(PerfettoExport, LostEventsAreMarkedNotIdle) {
  std::string trace = TestData("scenarios/missed_events_gap.dat");
  DecodedExport decoded = Decode(ExportWithCli(trace, "", MakeTempDir()), true);
  nlohmann::json info = CliJson("info --json " + trace);
  int64_t gaps = 0;
  for (const auto& row : info["missed_events_per_cpu"]) gaps += row["gaps"].get<int64_t>();
  ASSERT_GT(gaps, 0);
  int64_t lost_slices = 0;
  for (const DecodedEvent& slice : decoded.slices) {
    if (slice.category != "lost") continue;
    ++lost_slices;
    EXPECT_LT(slice.ts_ns, slice.end_ns);
    EXPECT_NE(slice.track.find("lost events"), std::string::npos);
  }
  EXPECT_GE(lost_slices, gaps);
  EXPECT_EQ(decoded.bundles_with_lost_events, gaps);
}

TEST(PerfettoExport, WindowAndCpusLimitTheEvents) {
  std::string trace = TestData("real/short-v6.dat");
  DecodedExport all = Decode(ExportWithCli(trace, "", MakeTempDir()), false);
  ASSERT_GT(all.ftrace_timestamps.size(), 1000u);
  std::vector<uint64_t> sorted = all.ftrace_timestamps;
  std::sort(sorted.begin(), sorted.end());
  uint64_t from = sorted[sorted.size() / 4], to = sorted[sorted.size() / 2];
  DecodedExport part = Decode(
      ExportWithCli(trace, "--cpu 1 --from " + std::to_string(from) + "ns --to " +
                               std::to_string(to) + "ns", MakeTempDir()),
      false);
  int64_t expected = 0;
  for (const auto& packet : all.trace.packet()) {
    if (!packet.has_ftrace_events() || packet.ftrace_events().cpu() != 1) continue;
    for (const auto& event : packet.ftrace_events().event()) {
      expected += event.timestamp() >= from && event.timestamp() <= to;
    }
  }
  ASSERT_GT(expected, 0);
  EXPECT_EQ(static_cast<int64_t>(part.ftrace_timestamps.size()), expected);
  for (const auto& packet : part.trace.packet()) {
    if (packet.has_ftrace_events()) {
      EXPECT_EQ(packet.ftrace_events().cpu(), 1u);
    }
  }
  for (const DecodedEvent& slice : part.slices) {
    EXPECT_LE(slice.ts_ns, to);
    EXPECT_GE(slice.end_ns, from);
  }
}

// The file is the same bytes whichever threads made it and however they were scheduled: the
// tracks are written on a thread of their own from copies of the intervals, facts and names,
// and the decoding threads', the track thread's and the analysing thread's blocks go out in the
// order of their keys, as the one-thread export writes them.
TEST(PerfettoExport, FileIsTheSameBytesWhateverTheThreads) {
  for (const char* name : {"real/server16-softirq-napi.dat", "real/short-v6.dat",
                           "scenarios/irq_threads_bouncing.dat", "scenarios/rt_wake_latency.dat",
                           "scenarios/missed_events_gap.dat", "text/short-v6.per-cpu.txt.xz"}) {
    std::string trace = TestData(name);
    std::string one = ReadFile(ExportWithCli(trace, "--threads 1", MakeTempDir()));
    ASSERT_GT(one.size(), 1000u) << name;
    for (const char* threads : {"--threads 2", "--threads 3", "", ""}) {
      std::string other = ReadFile(ExportWithCli(trace, threads, MakeTempDir()));
      EXPECT_EQ(other.size(), one.size()) << name << " " << threads;
      EXPECT_TRUE(other == one) << name << " " << threads << ": not the one-thread bytes";
    }
  }
}

// Perfetto is the only format, so it is the default: `export -o F TRACE` writes what
// `--format perfetto` writes; another format is refused in one line.
TEST(PerfettoExport, PerfettoIsTheDefaultFormat) {
  std::string trace = TestData("real/short-v6.dat");
  std::string out = MakeTempDir() + "/default.pftrace";
  CommandResult result = RunCommand(CliPath() + " export -q -o " + out + " " + trace);
  ASSERT_EQ(result.exit_code, 0) << result.err;
  std::string asked = ReadFile(ExportWithCli(trace, "", MakeTempDir()));
  ASSERT_GT(asked.size(), 1000u);
  EXPECT_TRUE(ReadFile(out) == asked) << "not the bytes of --format perfetto";
  CommandResult other =
      RunCommand(CliPath() + " export --format json -o " + out + ".json " + trace);
  EXPECT_EQ(other.exit_code, 1);
  EXPECT_EQ(other.err.rfind("napiscope export: --format: ", 0), 0u) << other.err;
  EXPECT_EQ(std::count(other.err.begin(), other.err.end(), '\n'), 1) << other.err;
}

TEST(PerfettoExport, BrokenInputIsOneLineNamingTheFileAndLeavesNoOutput) {
  std::string dir = MakeTempDir();
  WriteFile(dir + "/broken.dat", "not a trace at all\n\x01\x02");
  CommandResult result = RunCommand(CliPath() + " export --format perfetto -q -o " + dir +
                                    "/out.pftrace " + dir + "/broken.dat");
  EXPECT_EQ(result.exit_code, 1);
  EXPECT_NE(result.err.find("broken.dat"), std::string::npos) << result.err;
  EXPECT_EQ(std::count(result.err.begin(), result.err.end(), '\n'), 1) << result.err;
  EXPECT_TRUE(ReadFile(dir + "/out.pftrace").empty());
}

// `-o -` on a terminal (script(1) gives the command one) is refused, as gzip and zstd refuse
// to write binary there; into a pipe it writes the trace.
TEST(PerfettoExport, StandardOutputOnATerminalIsRefused) {
  std::string trace = TestData("real/idle.dat");
  CommandResult tty = RunCommand("script -qec '" + CliPath() + " export --format perfetto -o - " +
                                 trace + "' /dev/null");
  EXPECT_EQ(tty.exit_code, 1);
  EXPECT_THAT(tty.out, ::testing::HasSubstr("napiscope export: -o -: standard output is a "
                                            "terminal, and a Perfetto trace is binary"));
  CommandResult piped =
      RunCommand(CliPath() + " export --format perfetto -o - " + trace + " | wc -c");
  EXPECT_EQ(piped.exit_code, 0);
  EXPECT_GT(std::stol(piped.out), 10000);
}

// An output that is not a regular file (a pipe here; /dev/null as root) is written in place and
// left alone when the export fails: removing it deleted /dev/null.
TEST(PerfettoExport, BrokenInputLeavesAPipeOutputInPlace) {
  std::string dir = MakeTempDir();
  WriteFile(dir + "/broken.dat", "not a trace at all\n\x01\x02");
  std::string pipe = dir + "/pipe";
  ASSERT_EQ(mkfifo(pipe.c_str(), 0600), 0);
  CommandResult result = RunCommand("cat " + pipe + " > /dev/null & " + CliPath() +
                                    " export --format perfetto -q -o " + pipe + " " + dir +
                                    "/broken.dat; status=$?; wait; exit $status");
  EXPECT_EQ(result.exit_code, 1) << result.err;
  EXPECT_NE(result.err.find("broken.dat"), std::string::npos) << result.err;
  EXPECT_EQ(std::filesystem::status(pipe).type(), std::filesystem::file_type::fifo)
      << "the pipe was removed or replaced";
}

// A window outside the trace or a CPU it lacks gave an empty export and exit 0: it is the
// report's one-line error, and no file is written (an older export stays as it was).
TEST(PerfettoExport, WindowOutsideOrMissingCpuIsTheReportsErrorAndNoFile) {
  for (const char* name : {"real/short-v6.dat", "text/trace-cmd-stacktrace.txt"}) {
    std::string trace = TestData(name);
    for (const char* flags : {"--cpu 7", "--from 1 --to 2", "--from +10s"}) {
      CommandResult report = RunCommand(CliPath() + " report " + flags + " " + trace);
      ASSERT_EQ(report.exit_code, 1) << name << " " << flags;
      std::string dir = MakeTempDir();
      WriteFile(dir + "/out.pftrace", "an older export");
      CommandResult exported = RunCommand(CliPath() + " export --format perfetto " + flags +
                                          " -o " + dir + "/out.pftrace " + trace);
      EXPECT_EQ(exported.exit_code, 1) << name << " " << flags;
      EXPECT_EQ(exported.err, report.err) << name << " " << flags;
      EXPECT_EQ(ReadFile(dir + "/out.pftrace"), "an older export") << name << " " << flags;
      EXPECT_EQ(std::distance(std::filesystem::directory_iterator(dir),
                              std::filesystem::directory_iterator()),
                1)
          << name << " " << flags << ": a temporary file was left";
    }
  }
}

// The summary line counts findings as the report does, not every instant (the wakeups and hard
// IRQs that flows start at are instants too): a trace with flows and no finding says 0.
TEST(PerfettoExport, SummaryLineCountsTheReportsFindings) {
  for (const char* name : {"real/server16-softirq-napi.dat", "scenarios/irq_threads_bouncing.dat",
                           "scenarios/rt_wake_latency.dat"}) {
    std::string trace = TestData(name);
    CommandResult report = RunCommand(CliPath() + " report --format json " + trace);
    ASSERT_NE(report.out.find("\"findings\""), std::string::npos) << name;
    size_t findings = nlohmann::json::parse(report.out)["findings"].size();
    std::string out = MakeTempDir() + "/out.pftrace";
    CommandResult exported =
        RunCommand(CliPath() + " export --format perfetto -o " + out + " " + trace);
    ASSERT_EQ(exported.exit_code, 0) << exported.err;
    // "... 1 flow, 5 findings, ...": the counts in words, one singular.
    std::string counted = ", " + Counted(static_cast<int64_t>(findings), "finding") + ", ";
    EXPECT_TRUE(exported.err.find(" flows" + counted) != std::string::npos ||
                exported.err.find(" flow" + counted) != std::string::npos)
        << name << ": " << exported.err;
  }
}

// The analyses the trace lacks the events of add nothing to the export: one line names them
// with what they need (the report's analyses[]), where the export used to say nothing.
TEST(PerfettoExport, SaysWhichAnalysesTheTraceLacksTheEventsOf) {
  for (const char* name : {"scenarios/irq_threads_bouncing.dat", "real/veth-softirq-napi.dat",
                           "scenarios/softirq_contexts.dat"}) {
    SCOPED_TRACE(name);
    std::string trace = TestData(name);
    nlohmann::json report =
        nlohmann::json::parse(RunCommand(CliPath() + " report --format json " + trace).out);
    std::string not_run;
    for (const nlohmann::json& analysis : report["analyses"]) {
      if (analysis["available"]) continue;
      std::vector<std::string> needs = analysis["missing_required"];
      not_run += (not_run.empty() ? "" : "; ") + analysis["title"].get<std::string>() + " (needs " +
                 absl::StrJoin(needs, ", ") + ")";
    }
    CommandResult exported = RunCommand(CliPath() + " export --format perfetto -o " +
                                        MakeTempDir() + "/out.pftrace " + trace);
    ASSERT_EQ(exported.exit_code, 0) << exported.err;
    const std::string line = "napiscope: " + trace + ": not analysed, for want of events: ";
    if (not_run.empty()) {
      EXPECT_EQ(exported.err.find(line), std::string::npos) << exported.err;
    } else {
      EXPECT_NE(exported.err.find(line + not_run + "\n"), std::string::npos) << exported.err;
    }
    // Written to standard output, the file is not named, but the trace's caveats still are.
    CommandResult piped =
        RunCommand(CliPath() + " export --format perfetto -o - " + trace + " > /dev/null");
    ASSERT_EQ(piped.exit_code, 0) << piped.err;
    EXPECT_EQ(piped.err.find("napiscope: wrote"), std::string::npos) << piped.err;
    EXPECT_EQ(piped.err.find(line) != std::string::npos, !not_run.empty()) << piped.err;
    CommandResult quiet = RunCommand(CliPath() + " export --format perfetto -q -o " +
                                     MakeTempDir() + "/out.pftrace " + trace);
    EXPECT_EQ(quiet.err, "");
  }
}

// A file a browser tab cannot hold gets a line on how to open it; others none.
TEST(PerfettoExport, AdviceForFilesTooLargeForTheBrowser) {
  EXPECT_EQ(PerfettoOpeningAdvice("small.pftrace", kPerfettoBrowserBytes), "");
  std::string advice = PerfettoOpeningAdvice("big.pftrace", int64_t{1256158765});
  EXPECT_EQ(advice.find('\n'), std::string::npos);
  EXPECT_TRUE(advice.starts_with("big.pftrace is 1197 MiB,")) << advice;
  EXPECT_NE(advice.find("trace_processor_shell --httpd big.pftrace"), std::string::npos) << advice;
  EXPECT_NE(advice.find("--from/--to/--cpu"), std::string::npos) << advice;
}

// The .proto keeps Perfetto's field numbers (protos/perfetto/trace/...): a changed number would
// still decode with protoc but Perfetto would read another field.
TEST(PerfettoExport, ProtoUsesPerfettosFieldNumbers) {
  struct Expected {
    const google::protobuf::Descriptor* message;
    const char* field;
    int number;
  };
  using namespace perfetto::protos;
  const Expected expected[] = {
      {Trace::descriptor(), "packet", 1},
      {TracePacket::descriptor(), "timestamp", 8},
      {TracePacket::descriptor(), "ftrace_events", 1},
      {TracePacket::descriptor(), "track_event", 11},
      {TracePacket::descriptor(), "track_descriptor", 60},
      {TracePacket::descriptor(), "trusted_packet_sequence_id", 10},
      {TracePacket::descriptor(), "sequence_flags", 13},
      {TracePacket::descriptor(), "interned_data", 12},
      {InternedData::descriptor(), "event_categories", 1},
      {InternedData::descriptor(), "event_names", 2},
      {InternedData::descriptor(), "debug_annotation_names", 3},
      {EventCategory::descriptor(), "iid", 1},
      {EventCategory::descriptor(), "name", 2},
      {EventName::descriptor(), "iid", 1},
      {EventName::descriptor(), "name", 2},
      {DebugAnnotationName::descriptor(), "iid", 1},
      {DebugAnnotationName::descriptor(), "name", 2},
      {FtraceEventBundle::descriptor(), "cpu", 1},
      {FtraceEventBundle::descriptor(), "event", 2},
      {FtraceEventBundle::descriptor(), "lost_events", 3},
      {FtraceEvent::descriptor(), "timestamp", 1},
      {FtraceEvent::descriptor(), "pid", 2},
      {FtraceEvent::descriptor(), "common_flags", 5},
      {FtraceEvent::descriptor(), "sched_switch", 4},
      {FtraceEvent::descriptor(), "sched_wakeup", 17},
      {FtraceEvent::descriptor(), "sched_waking", 20},
      {FtraceEvent::descriptor(), "softirq_entry", 24},
      {FtraceEvent::descriptor(), "softirq_exit", 25},
      {FtraceEvent::descriptor(), "softirq_raise", 26},
      {FtraceEvent::descriptor(), "irq_handler_entry", 36},
      {FtraceEvent::descriptor(), "irq_handler_exit", 37},
      {FtraceEvent::descriptor(), "sched_wakeup_new", 114},
      {FtraceEvent::descriptor(), "sched_process_exit", 238},
      {FtraceEvent::descriptor(), "sched_process_fork", 239},
      {FtraceEvent::descriptor(), "generic", 327},
      {FtraceEvent::descriptor(), "sched_pi_setprio", 353},
      {FtraceEvent::descriptor(), "netif_receive_skb", 360},
      {FtraceEvent::descriptor(), "net_dev_xmit", 361},
      {FtraceEvent::descriptor(), "sched_migrate_task", 491},
      {FtraceEvent::descriptor(), "local_timer_entry", 559},
      {FtraceEvent::descriptor(), "local_timer_exit", 560},
      {SchedSwitchFtraceEvent::descriptor(), "prev_state", 4},
      {SchedSwitchFtraceEvent::descriptor(), "next_pid", 6},
      {SchedPiSetprioFtraceEvent::descriptor(), "newprio", 2},
      {SchedPiSetprioFtraceEvent::descriptor(), "pid", 4},
      {IrqHandlerEntryFtraceEvent::descriptor(), "name", 2},
      {GenericFtraceEvent::Field::descriptor(), "int_value", 4},
      {GenericFtraceEvent::Field::descriptor(), "uint_value", 5},
      {TrackDescriptor::descriptor(), "parent_uuid", 5},
      {TrackDescriptor::descriptor(), "counter", 8},
      {TrackEvent::descriptor(), "name", 23},
      {TrackEvent::descriptor(), "name_iid", 10},
      {TrackEvent::descriptor(), "category_iids", 3},
      {TrackEvent::descriptor(), "categories", 22},
      {TrackEvent::descriptor(), "type", 9},
      {TrackEvent::descriptor(), "track_uuid", 11},
      {TrackEvent::descriptor(), "counter_value", 30},
      {TrackEvent::descriptor(), "flow_ids", 47},
      {TrackEvent::descriptor(), "terminating_flow_ids", 48},
      {TrackEvent::descriptor(), "debug_annotations", 4},
      {DebugAnnotation::descriptor(), "name", 10},
      {DebugAnnotation::descriptor(), "name_iid", 1},
      {DebugAnnotation::descriptor(), "int_value", 4},
      {DebugAnnotation::descriptor(), "string_value", 6},
  };
  for (const Expected& e : expected) {
    const google::protobuf::FieldDescriptor* field = e.message->FindFieldByName(e.field);
    ASSERT_NE(field, nullptr) << e.message->name() << "." << e.field;
    EXPECT_EQ(field->number(), e.number) << e.message->name() << "." << e.field;
  }
}

}  // namespace
}  // namespace napiscope::testing
