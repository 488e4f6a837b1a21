// The floor for any reader built on libtracecmd: open the file and iterate every record of
// every CPU in time order with an empty callback. Prints the number of records.
#include <cstdio>

#include "load/tracecmd_cxx.h"

namespace {

int CountRecord(tracecmd_input* /*handle*/, tep_record* /*record*/, int /*cpu*/, void* data) {
  ++*static_cast<long long*>(data);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s TRACE.dat\n", argv[0]);
    return 1;
  }
  tracecmd_set_loglevel(TEP_LOG_NONE);
  tracecmd_input* handle =
      tracecmd_open(argv[1], TRACECMD_FL_LOAD_NO_PLUGINS | TRACECMD_FL_LOAD_NO_SYSTEM_PLUGINS);
  if (handle == nullptr) {
    std::fprintf(stderr, "%s: libtracecmd could not open it\n", argv[1]);
    return 1;
  }
  long long records = 0;
  tracecmd_iterate_events(handle, nullptr, 0, CountRecord, &records);
  tracecmd_close(handle);
  std::printf("%lld\n", records);
  return 0;
}
