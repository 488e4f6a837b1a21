#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "cli_common.h"
#include "commands.h"

namespace napiscope::cli {
namespace {

namespace fs = std::filesystem;

// The folder holding the napiscope package beside this binary: the build tree's python/
// (build/cli/napiscope -> build/python), else the install's dist-packages (bin/napiscope ->
// lib/python3.X/dist-packages); "" when neither has it (then python3's own path must).
std::string ModuleDir(const fs::path& binary) {
  for (const fs::path& dir : {binary.parent_path() / ".." / "python",
                              binary.parent_path() / ".." / NAPISCOPE_PYTHON_INSTALL_DIR}) {
    std::error_code error;
    if (fs::exists(dir / "napiscope" / "fleet" / "__main__.py", error)) {
      return fs::weakly_canonical(dir, error).string();
    }
  }
  return "";
}

// Replaces this process with `python3 -m napiscope.fleet ARGS`: the module's folder first on
// PYTHONPATH, NAPISCOPE_CLI naming this binary (the fleet makes its report pages with it).
int RunFleet(const std::vector<std::string>& args) {
  std::error_code error;
  fs::path binary = fs::read_symlink("/proc/self/exe", error);
  const char* chosen = std::getenv("NAPISCOPE_PYTHON");
  std::string python = chosen != nullptr && *chosen != '\0' ? chosen : NAPISCOPE_PYTHON3;
  std::string dir = binary.empty() ? "" : ModuleDir(binary);
  if (!dir.empty()) {
    const char* old = std::getenv("PYTHONPATH");
    std::string path = dir + (old != nullptr && *old != '\0' ? ":" + std::string(old) : "");
    setenv("PYTHONPATH", path.c_str(), 1);
  }
  if (!binary.empty()) setenv("NAPISCOPE_CLI", binary.c_str(), 1);
  std::vector<std::string> words = {python, "-m", "napiscope.fleet"};
  words.insert(words.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (std::string& word : words) argv.push_back(word.data());
  argv.push_back(nullptr);
  execv(python.c_str(), argv.data());
  return Fail("fleet", "cannot run " + python + ": " + std::strerror(errno) +
                           " (NAPISCOPE_PYTHON names the python3 with napiscope, NumPy, pandas "
                           "and Dask)");
}

}  // namespace

void AddFleetCommand(CLI::App& app, std::function<int()>* run) {
  CLI::App* fleet = app.add_subcommand(
      "fleet", "Many traces on a Dask cluster, one task per trace: the fleet's worst traces, "
               "tables (CSV, JSON lines, SQLite), an HTML page and groups compared (python3 "
               "-m napiscope.fleet; napiscope fleet --help lists its options)");
  // Everything after `fleet`, --help included, is the Python command's.
  fleet->set_help_flag();
  fleet->allow_extras();
  fleet->prefix_command();
  fleet->callback([fleet, run] {
    std::vector<std::string> args = fleet->remaining();
    *run = [args] { return RunFleet(args); };
  });
}

}  // namespace napiscope::cli
