// napiscope-tracegen: writes trace.dat v6 files from a scenario JSON, a built-in scenario of
// testdata/scenarios, or a large synthetic workload for benchmarks.
#include <chrono>
#include <fstream>
#include <iostream>
#include <sstream>

#include <CLI/CLI.hpp>

#include "tracegen/ftrace_text_writer.h"
#include "tracegen/scenario_json.h"
#include "tracegen/scenarios/builtin.h"
#include "tracegen/synthetic.h"

namespace {

using namespace napiscope::tracegen;

int Fail(const absl::Status& status) {
  std::cerr << "napiscope-tracegen: " << status.message() << "\n";
  return 1;
}

int RunJson(const std::string& input, const std::string& output, const std::string& text,
            const std::string& buffer) {
  std::ifstream in(input);
  if (!in) return Fail(absl::NotFoundError(input + ": cannot open"));
  nlohmann::json json = nlohmann::json::parse(in, nullptr, /*allow_exceptions=*/false);
  if (json.is_discarded()) return Fail(absl::InvalidArgumentError(input + ": not valid JSON"));
  std::unique_ptr<Scenario> scenario;
  absl::Status status = ScenarioFromJson(json, &scenario);
  if (!status.ok())
    return Fail(absl::InvalidArgumentError(input + ": " + std::string(status.message())));
  if (buffer.empty()) {
    TraceDatWriterStats stats;
    status = scenario->WriteTraceDat(output, &stats);
    if (!status.ok()) return Fail(status);
    std::cout << "wrote " << output << ": " << stats.records << " events, " << stats.pages
              << " pages\n";
  } else {
    status = WriteTraceDatBuffers(output, scenario->cpus(), nullptr, {{buffer, scenario.get()}});
    if (!status.ok()) return Fail(status);
    std::cout << "wrote " << output << ": the events in buffer instance '" << buffer << "'\n";
  }
  if (!text.empty()) {
    std::vector<napiscope::Event> events;
    status = scenario->Resolve(&events);
    if (!status.ok()) return Fail(status);
    std::ofstream(text, std::ios::binary) << FtraceText(
        events, scenario->strings(), [&](int32_t pid) { return scenario->CommOf(pid); },
        scenario->cpus());
    std::cout << "wrote " << text << "\n";
  }
  return 0;
}

int RunBuiltin(const std::vector<std::string>& names, const std::string& dir) {
  for (const std::string& name : names) {
    const BuiltinScenario* builtin = FindBuiltinScenario(name);
    if (builtin == nullptr) {
      return Fail(absl::NotFoundError("no scenario '" + name + "' (see --list)"));
    }
    absl::Status status = WriteBuiltinScenario(*builtin, dir);
    if (!status.ok()) return Fail(status);
    std::cout << "wrote " << dir << "/" << name << ".dat and .expected.json\n";
  }
  return 0;
}

int RunSynthetic(const SyntheticOptions& options, const std::string& output) {
  auto start = std::chrono::steady_clock::now();
  TraceDatWriterStats stats;
  absl::Status status = WriteSyntheticTrace(output, options, &stats);
  if (!status.ok()) return Fail(status);
  double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::cout << "wrote " << output << ": " << stats.records << " events on " << options.cpus
            << " CPUs, " << stats.pages << " pages, " << stats.time_extends << " time extends, "
            << stats.missed_marks << " lost-event marks in " << seconds << " s\n";
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"napiscope-tracegen: write trace.dat v6 files from scenarios"};
  std::string input, output, text, scenario, buffer;
  bool all = false, list = false;
  SyntheticOptions synthetic;
  synthetic.events = 0;
  app.add_option("SCENARIO_JSON", input, "scenario JSON (see testdata/scenarios/README.md)");
  app.add_option("-o,--output", output,
                 "trace.dat to write (JSON, --synthetic) or directory (--scenario, --all)");
  app.add_option("--text", text, "also write the events as kernel ftrace text (JSON mode)");
  app.add_option("--buffer", buffer,
                 "write the events into a buffer instance of this name, the top buffer empty, "
                 "as trace-cmd record -B NAME does (JSON mode)");
  app.add_option("--scenario", scenario, "write the built-in scenario NAME and its expected JSON");
  app.add_flag("--all", all, "write every built-in scenario");
  app.add_flag("--list", list, "list the built-in scenarios");
  app.add_option("--synthetic", synthetic.events, "write a synthetic trace of N events")
      ->check(CLI::Range(int64_t{1}, int64_t{1} << 40));
  app.add_option("--cpus", synthetic.cpus, "CPUs of the synthetic trace")
      ->capture_default_str()
      ->check(CLI::Range(1, 4096));
  app.footer(
      "Examples:\n"
      "  napiscope-tracegen my-case.json -o my-case.dat --text my-case.txt\n"
      "  napiscope-tracegen --all -o testdata/scenarios\n"
      "  napiscope-tracegen --synthetic 20000000 --cpus 16 -o /tmp/big.dat");
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    std::cerr << "napiscope-tracegen: " << e.what() << "\n";
    return 1;
  }

  if (list) {
    for (const BuiltinScenario& builtin : BuiltinScenarios()) {
      std::cout << builtin.name << "\n    " << builtin.summary << "\n";
    }
    return 0;
  }
  if (output.empty()) return Fail(absl::InvalidArgumentError("-o is required"));
  if (all) {
    std::vector<std::string> names;
    for (const BuiltinScenario& builtin : BuiltinScenarios()) names.emplace_back(builtin.name);
    return RunBuiltin(names, output);
  }
  if (!scenario.empty()) return RunBuiltin({scenario}, output);
  if (synthetic.events > 0) return RunSynthetic(synthetic, output);
  if (!input.empty()) return RunJson(input, output, text, buffer);
  std::cerr << app.help();
  return 1;
}
