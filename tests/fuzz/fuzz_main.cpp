// One libFuzzer binary per target: NAPISCOPE_FUZZ_TARGET names the entry (fuzz_entries.h).
#include "fuzz/fuzz_entries.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const napiscope::fuzz::Entry entry = napiscope::fuzz::EntryNamed(NAPISCOPE_FUZZ_TARGET);
  entry(data, size);
  return 0;
}
