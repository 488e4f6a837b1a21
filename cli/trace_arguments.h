// Trace arguments that are streams: "-" (standard input), the shell's pipes (/dev/stdin,
// `<(ssh board cat trace)`) and files whose size reads 0 though they hold text (tracefs's
// `trace`, files under /proc) are copied once into an unnamed temporary file, which every load
// of the command then reads (a window's start, the analysis, the export); a stream whose first
// bytes start no trace is refused before it is copied. Messages and the report still name the
// argument ("stdin" for "-"). Named pipes and devices are not streams here: the load refuses
// them (a named pipe may never get a writer, /dev/zero never ends).
#pragma once

#include <string>

namespace napiscope::cli {

/// Replaces `*argument` with the path to read: itself for a regular file with a size, else a
/// copy of its stream ("/proc/self/fd/N", gone when the process ends; in $TMPDIR, else /tmp).
/// False with "NAME: reason" in `*error` when the stream cannot be read or copied.
bool ResolveTraceArgument(std::string* argument, std::string* error);

/// How messages name `path`: the argument a copy was made of ("stdin" for "-"), else `path`
/// ("stdin" for "-" too, when it could not be read).
std::string ShownPath(const std::string& path);

}  // namespace napiscope::cli
