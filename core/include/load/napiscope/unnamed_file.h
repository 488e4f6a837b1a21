// Unnamed temporary files: where a trace that must be read from a file (a stream, a trace.dat
// compressed whole) is put for reading.
#pragma once

#include <string>

namespace napiscope {

/// Opens an unnamed file for reading and writing in $TMPDIR (else /tmp), gone when its
/// descriptor closes (at exit at the latest, even on SIGKILL where the file system has
/// O_TMPFILE). Returns the descriptor, or -1 with errno set; `*dir` is the directory used.
int OpenUnnamedTemporaryFile(std::string* dir);

/// The path that reads the open descriptor `fd` ("/proc/self/fd/N").
std::string DescriptorPath(int fd);

}  // namespace napiscope
