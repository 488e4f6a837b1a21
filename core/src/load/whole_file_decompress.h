// A trace.dat compressed whole (trace.dat.gz, .zst, .xz, as traces are attached to bug
// reports): libtracecmd reads a trace.dat by seeking in a file, so it is decompressed once
// into an unnamed temporary file first.
#pragma once

#include <string>

#include <absl/status/status.h>

#include "load/text_input.h"
#include "napiscope/loader.h"

namespace napiscope::internal {

/// A compressed file decompressed into an unnamed temporary file, which lives as long as this.
class DecompressedFile {
 public:
  DecompressedFile() = default;
  ~DecompressedFile();
  DecompressedFile(const DecompressedFile&) = delete;
  DecompressedFile& operator=(const DecompressedFile&) = delete;

  /// Decompresses `path` (compressed with `compression`) into a new unnamed file in $TMPDIR,
  /// reporting the share of `path` read through `options.progress` scaled to [0, `share`]
  /// and stopping on `options.cancel`. Errors say what is wrong: a corrupt or cut-off stream,
  /// or the temporary directory full.
  absl::Status Open(const std::string& path, TextCompression compression,
                    const LoadOptions& options, double share);

  /// The path that reads the decompressed file.
  std::string path() const;

 private:
  int fd_ = -1;
};

}  // namespace napiscope::internal
