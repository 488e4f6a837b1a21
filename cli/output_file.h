// Output files that appear whole or not at all: a command writes a temporary file beside the
// one asked for and renames it over that file once everything is written, so a full disk, a
// failed load or Ctrl-C leaves the old file (or none), never a truncated one that a viewer or a
// CI job would take for the whole output.
#pragma once

#include <sys/types.h>

#include <string>
#include <vector>

#include <absl/status/status.h>

namespace napiscope::cli {

/// The signals whose default action ends the process, which every command handles as SIGTERM
/// (record and live stop and remove their tracefs instance, the others remove their temporary
/// output): SIGHUP, SIGINT, SIGQUIT, SIGPIPE, SIGALRM, SIGTERM, SIGUSR1, SIGUSR2, SIGVTALRM,
/// SIGPROF, SIGXCPU, SIGSTKFLT, SIGIO, SIGPWR and the real-time signals. SIGXFSZ is not one:
/// main ignores it, so a write past `ulimit -f` fails with EFBIG, an error like a full disk.
std::vector<int> TerminatingSignals();

/// Where an output named `path` goes and with which permissions: the one policy of every
/// command that writes a file (report, check, diff and export -o, record -o).
struct OutputTarget {
  /// The file replaced: `path`, or the file a symlink `path` names (the link stays a link).
  std::string destination;
  /// Permissions of the written file: an existing file's own, else 0666 less the umask.
  mode_t mode = 0;
  /// False for an existing device, pipe or directory, which cannot be replaced by a file.
  bool regular = true;
};

/// The OutputTarget of `path` ("" and "-", stdout, are not resolved).
OutputTarget ResolveOutputTarget(const std::string& path);

/// One output of a command, written whole or not at all. A regular file (or a new one) is
/// written through a temporary file in its directory, which Commit renames over it; standard
/// output ("-" or ""), devices, pipes and files in a directory napiscope cannot create files in
/// are written in place. Until Commit, the temporary file is removed when the object goes and
/// when a TerminatingSignals() signal (or a crash) ends the process. One at a time per process.
class OutputFile {
 public:
  OutputFile() = default;
  ~OutputFile();
  OutputFile(const OutputFile&) = delete;
  OutputFile& operator=(const OutputFile&) = delete;

  /// Prepares writing `path`; an error names `path`.
  absl::Status Open(const std::string& path);

  /// Where the content goes: the temporary file, or the output itself when written in place.
  const std::string& write_path() const { return temp_.empty() ? path_ : temp_; }

  /// `message` (an error of whatever wrote write_path) naming the output instead of the
  /// temporary file.
  std::string Named(std::string message) const;

  /// Puts the written file in place of the output; an error names the output.
  absl::Status Commit();

 private:
  void Discard();  // removes the temporary file, if any

  std::string path_;         // as asked for
  std::string destination_;  // what the temporary file replaces: path_, or its symlink's target
  std::string temp_;         // the temporary file; empty: written in place
};

}  // namespace napiscope::cli
