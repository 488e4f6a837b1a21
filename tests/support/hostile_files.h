// Hostile inputs for the loaders: files made to break them, each with what napiscope must do.
// docs/robustness.md lists the cases; tests/core and tests/cli run them.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace napiscope::testing {

/// One hostile input and the promise napiscope keeps about it.
struct HostileFile {
  std::string name;     ///< the case as docs/robustness.md names it
  std::string path;
  bool usable = false;  ///< true: it loads and the report header says what was skipped
  std::string expect;   ///< part of the one-line error, or of the report header when usable
};

/// Writes every named hostile case into `dir` (the 10 GB case is a sparse file).
std::vector<HostileFile> MakeHostileFiles(const std::string& dir);

/// A small trace.dat v6 (generated scenario, 4 KiB pages) whose CPU 0 has several pages.
std::string SmallTraceDat();

/// Where one CPU's ring-buffer pages sit in a trace.dat v6 file (the flyrecord table).
struct CpuPages {
  uint64_t offset = 0;
  uint64_t size = 0;
};

/// The flyrecord table of a v6 trace.dat held in `bytes`; empty when it has none.
std::vector<CpuPages> FlyrecordTable(const std::string& bytes);

/// Offset of the CPU-count field of a v6 trace.dat, or std::string::npos.
size_t CpuCountOffset(const std::string& bytes);

}  // namespace napiscope::testing
