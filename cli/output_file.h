// Output files that appear whole or not at all: a command writes a temporary file beside the
// one asked for and renames it over that file once everything is written, so a full disk, a
// failed load or Ctrl-C leaves the old file (or none), never a truncated one that a viewer or a
// CI job would take for the whole output.
#pragma once

#include <string>

#include <absl/status/status.h>

namespace napiscope::cli {

/// One output of a command, written whole or not at all. A regular file (or a new one) is
/// written through a temporary file in its directory, which Commit renames over it; standard
/// output ("-" or ""), devices, pipes and files in a directory napiscope cannot create files in
/// are written in place. Until Commit, the temporary file is removed when the object goes and
/// when SIGINT, SIGTERM or SIGHUP end the process. One at a time per process.
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
