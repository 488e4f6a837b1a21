#include <functional>
#include <iostream>

#include "commands.h"

int main(int argc, char** argv) {
  using namespace napiscope::cli;
  CLI::App app{"napiscope: what interrupts, softirqs and NAPI polling did to your CPUs"};
  app.require_subcommand(1);
  app.set_version_flag("--version", "napiscope 0.1.0");
  std::function<int()> run;
  AddInfoCommand(app, &run);
  AddReportCommand(app, &run);
  AddCheckCommand(app, &run);
  AddDiffCommand(app, &run);
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
