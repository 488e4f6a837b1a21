// Unnamed temporary files: where a trace that must be read from a file (a stream, a trace.dat
// compressed whole) is put for reading; and writing a buffer whole to a descriptor (into those
// files, and the recorder's spools and trace.dat).
#pragma once

#include <cstddef>
#include <string>

namespace napiscope {

/// Opens an unnamed file for reading and writing in $TMPDIR (else /tmp), gone when its
/// descriptor closes (at exit at the latest, even on SIGKILL where the file system has
/// O_TMPFILE). Returns the descriptor, or -1 with errno set; `*dir` is the directory used.
int OpenUnnamedTemporaryFile(std::string* dir);

/// Writes all `size` bytes of `data` to `fd`, again after a short write or EINTR; 0 when
/// written, else the errno of the failure (EIO when write(2) wrote nothing).
int WriteAll(int fd, const char* data, size_t size);

/// The path that reads the open descriptor `fd` ("/proc/self/fd/N").
std::string DescriptorPath(int fd);

}  // namespace napiscope
