#include <functional>
#include <iostream>

#include "commands.h"

int main(int argc, char** argv) {
  using namespace napiscope::cli;
  CLI::App app{"napiscope: what interrupts, softirqs and NAPI polling did to your CPUs"};
  app.require_subcommand(1);
  app.set_version_flag("--version", "napiscope 0.1.0");
  app.footer(
      "Examples:\n  napiscope info trace.dat\n  napiscope report trace.dat\n"
      "  napiscope check --config napiscope.toml -f junit -o napiscope.xml *.dat\n"
      "  napiscope diff before.dat after.dat\n"
      "  napiscope export --format perfetto -o trace.pftrace trace.dat\n"
      "  napiscope record -o trace.dat -- COMMAND\n  napiscope live --fail-on warning\n\n"
      "napiscope COMMAND --help shows a command's options; man napiscope has them all.\n"
      "Exit codes: 0 clean, 2 findings (or regressions), 1 error.");
  std::function<int()> run;
  AddInfoCommand(app, &run);
  AddReportCommand(app, &run);
  AddCheckCommand(app, &run);
  AddDiffCommand(app, &run);
  AddRecordCommand(app, &run);
  AddLiveCommand(app, &run);
  AddExportCommand(app, &run);
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    app.exit(e);
    return kExitError;
  }
  return run ? run() : kExitError;
}
