#include <algorithm>
#include <csignal>
#include <functional>
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include "commands.h"
#include "help_formatter.h"
#include "napiscope/suggest.h"

namespace {

// One line explaining a parse error, with a suggestion when a subcommand or option looks
// mistyped: "napiscope: unknown command 'repor'; did you mean 'report'?".
std::string ParseErrorLine(CLI::App& app, int argc, char** argv, const CLI::ParseError& error) {
  std::vector<std::string> commands;
  for (const CLI::App* sub : app.get_subcommands([](CLI::App*) { return true; })) {
    commands.push_back(sub->get_name());
  }
  if (argc > 1 && argv[1][0] != '-' &&
      std::find(commands.begin(), commands.end(), argv[1]) == commands.end()) {
    return "napiscope: unknown command '" + std::string(argv[1]) + "'" +
           napiscope::DidYouMean(argv[1], commands) + " (napiscope --help lists the commands)";
  }
  bool known = argc > 1 && std::find(commands.begin(), commands.end(), argv[1]) != commands.end();
  CLI::App* command = known ? app.get_subcommand(argv[1]) : nullptr;
  std::string prefix =
      command != nullptr ? "napiscope " + command->get_name() + ": " : "napiscope: ";
  if (command != nullptr) {
    std::vector<std::string> options;
    for (const CLI::Option* option : command->get_options()) {
      for (const std::string& name : option->get_lnames()) options.push_back("--" + name);
    }
    for (int i = 2; i < argc; ++i) {
      std::string arg = argv[i];
      if (arg == "--") break;
      if (arg.rfind("--", 0) != 0) continue;
      arg = arg.substr(0, arg.find('='));
      if (std::find(options.begin(), options.end(), arg) != options.end()) continue;
      std::string suggestion = napiscope::ClosestName(arg, options);
      return prefix + "unknown option " + arg +
             (suggestion.empty() ? "" : "; did you mean " + suggestion + "?") + " (napiscope " +
             command->get_name() + " --help lists the options)";
    }
  }
  std::string message = error.what();
  if (!message.empty() && message.back() == '\n') message.pop_back();
  return prefix + message;
}

}  // namespace

int main(int argc, char** argv) {
  using namespace napiscope::cli;
  // Past `ulimit -f` a write fails with EFBIG, an error each command reports as it does a full
  // disk (one line, exit 1, its temporary files removed), instead of SIGXFSZ killing it.
  signal(SIGXFSZ, SIG_IGN);
  CLI::App app{"napiscope: what interrupts, softirqs and NAPI polling did to your CPUs",
               "napiscope"};
  app.require_subcommand(1);
  // Set before the commands are added: each takes its parent's formatter.
  app.formatter(std::make_shared<HelpFormatter>(HelpWidth()));
  app.set_version_flag("--version", "napiscope " NAPISCOPE_VERSION);
  app.footer(
      "Examples:\n  napiscope info trace.dat\n  napiscope report trace.dat\n"
      "  napiscope check --config napiscope.toml -f junit -o napiscope.xml *.dat\n"
      "  napiscope diff before.dat after.dat\n"
      "  napiscope export --format perfetto -o trace.pftrace trace.dat\n"
      "  napiscope record -o trace.dat -- COMMAND\n  napiscope live --fail-on warning\n"
      "  napiscope fleet --scheduler tcp://host:8786 'traces/**/*.dat'\n\n"
      "napiscope COMMAND --help shows a command's options; man napiscope (put in place by "
      "cmake --install; man cli/data/napiscope.1 in the source tree) has them all.\n" +
      std::string(kExitCodesHelp));
  std::function<int()> run;
  AddInfoCommand(app, &run);
  AddReportCommand(app, &run);
  AddCheckCommand(app, &run);
  AddDiffCommand(app, &run);
  AddRecordCommand(app, &run);
  AddLiveCommand(app, &run);
  AddExportCommand(app, &run);
  AddFleetCommand(app, &run);
  // No command: what the commands are, as --help shows them (CLI11 only said that one is
  // required). `napiscope help [COMMAND]` is --help too.
  if (argc == 1) {
    std::cerr << app.help();
    return kExitError;
  }
  if (std::string(argv[1]) == "help") {
    CLI::App* command = nullptr;
    if (argc > 2) {
      for (CLI::App* sub : app.get_subcommands([](CLI::App*) { return true; })) {
        if (sub->get_name() == argv[2]) command = sub;
      }
      if (command == nullptr) {  // judged as `napiscope WORD` is: unknown, did you mean ...
        std::cerr << ParseErrorLine(app, argc - 1, argv + 1, CLI::ParseError("", 0)) << "\n";
        return kExitError;
      }
    }
    std::cout << (command != nullptr ? command->help("napiscope") : app.help());
    return kExitClean;
  }
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    // One line, with the napiscope prefix every other error has (CLI11's own printing lacks it).
    std::cerr << ParseErrorLine(app, argc, argv, e) << "\n";
    return kExitError;
  }
  return run ? run() : kExitError;
}
