// One libFuzzer binary per target: NAPISCOPE_FUZZ_TARGET names the entry (fuzz_entries.h).
#include "fuzz/fuzz_entries.h"

#include <cstring>
#include <string>

#include "fuzz/tracedat_mutator.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const napiscope::fuzz::Entry entry = napiscope::fuzz::EntryNamed(NAPISCOPE_FUZZ_TARGET);
  entry(data, size);
  return 0;
}

#ifdef NAPISCOPE_FUZZ_TRACEDAT_MUTATOR
extern "C" size_t LLVMFuzzerMutate(uint8_t* data, size_t size, size_t max_size);

// Half the mutations are libFuzzer's own (bytes), half set one field of the trace.dat to a
// hostile value (a CPU count, an extent, a page header, a format number, ...), so mutations
// get past the header checks that random bytes rarely pass.
extern "C" size_t LLVMFuzzerCustomMutator(uint8_t* data, size_t size, size_t max_size,
                                          unsigned int seed) {
  if (seed % 2 == 0) return LLVMFuzzerMutate(data, size, max_size);
  std::string file(reinterpret_cast<const char*>(data), size);
  if (!napiscope::fuzz::MutateTraceDatField(&file, seed) || file.size() > max_size) {
    return LLVMFuzzerMutate(data, size, max_size);
  }
  std::memcpy(data, file.data(), file.size());
  return file.size();
}
#endif
