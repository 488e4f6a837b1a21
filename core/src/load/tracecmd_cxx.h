// Includes libtracecmd's and libtracefs's C headers from C++ with any compiler.
#pragma once

// tracefs.h's inline helpers (tracefs_hist_start, ...) pass a plain 0 where the enum
// tracefs_hist_command is expected: C accepts it, C++ does not (g++ only with -fpermissive,
// clang++ never). A C++ overload taking int, declared first, takes those calls.
struct tracefs_instance;
struct tracefs_hist;
static inline int tracefs_hist_command(tracefs_instance* instance, tracefs_hist* hist, int command);

extern "C" {  // tracefs.h has no C++ guards of its own
#include <tracefs.h>
}
#include <trace-cmd/trace-cmd.h>

static inline int tracefs_hist_command(tracefs_instance* instance, tracefs_hist* hist, int command) {
  return tracefs_hist_command(instance, hist, static_cast<enum tracefs_hist_command>(command));
}
