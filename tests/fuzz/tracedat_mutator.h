// A structure-aware mutator for trace.dat files: it finds the fields a reader trusts (page
// size, CPU counts, CPU extents, options links, page headers, record headers, compressed chunk
// headers, the numbers of format text) and sets one to a value that breaks naive arithmetic,
// so mutations reach past the first check. Used as libFuzzer's custom mutator for
// fuzz_trace_dat and, with fixed seeds, by the hostile-input tests.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace napiscope::fuzz {

/// One integer field of a trace.dat file, little-endian (as trace-cmd writes on x86).
struct TraceDatField {
  size_t offset = 0;  ///< where it starts in the file
  int width = 0;      ///< bytes: 2, 4 or 8; 0 for the digits of a format text number
  size_t digits = 0;  ///< width 0: how many decimal digits
};

/// The fields of `file` the mutator may change (empty when it is no trace.dat).
std::vector<TraceDatField> FindTraceDatFields(const std::string& file);

/// Sets one field of `file`, chosen by `seed`, to a hostile value; false when the file has
/// no field to change. One seed in eight instead inserts a TIME_SHIFT option (when the file
/// is v6 without one), so its parser is fuzzed from files that lack it, and one in eight
/// edits the CPU table's options (MutateCpuTableOptions).
bool MutateTraceDatField(std::string* file, uint64_t seed);

/// Edits what says where the CPU data is and how to read it, chosen by `seed`: a CPU count
/// (the v6 header's, a CPUCOUNT option's, the v7 top BUFFER option's) made 0, one less, one
/// more or twice; a v7 CPU listed twice or a second BUFFER option of the top buffer appended;
/// the CPU table zeroed (a killed writer); the header's page size doubled or halved; a
/// TSC2NSEC option (v6) with a clock's scaling or one no clock has. False when the file has
/// nothing of the kind. The fuzzer's harness then holds napiscope to the file's own account.
bool MutateCpuTableOptions(std::string* file, uint64_t seed);

/// Inserts a TIME_SHIFT option (trace-cmd's guest clock samples) into the options of the v6
/// trace.dat `file`, with counts, times, offsets, scalings and fractions chosen by `seed`
/// (plausible or hostile: counts past the option's bytes, arrays cut short, zero scaling);
/// the CPU data stays where it was. False when the file is no v6 trace.dat with options.
bool InsertTimeShiftOption(std::string* file, uint64_t seed);

}  // namespace napiscope::fuzz
