// Locks that end with their process: an flock on a file in /run/napiscope. A napiscope killed
// with SIGKILL cannot clean up, but its locks are free at once, so the next run can tell which
// tracefs instances and outputs belonged to a dead napiscope, whatever their names.
#pragma once

#include <cstdint>
#include <functional>
#include <string>

namespace napiscope::internal {

/// An exclusive lock named `name` (a file of the lock directory), held until Release, the
/// object's end or the process's end.
class OwnerLock {
 public:
  /// Whether Take got the lock.
  enum class Outcome {
    kTaken,        ///< this process holds it
    kHeld,         ///< a live process holds it (its pid in Take's `holder`, 0 if unknown)
    kUnavailable,  ///< no lock directory could be made (not root): nothing is locked
  };

  OwnerLock() = default;
  ~OwnerLock() { Release(); }
  OwnerLock(const OwnerLock&) = delete;
  OwnerLock& operator=(const OwnerLock&) = delete;

  /// Takes the lock `name`, writing this process's pid into its file.
  Outcome Take(const std::string& name, int64_t* holder);

  /// Removes the lock's file and frees it.
  void Release();

 private:
  int fd_ = -1;
  std::string path_;
};

/// For each lock whose name starts with `prefix` and that no process holds (its holder died
/// without releasing it), calls `abandoned` with the rest of its name while holding it, then
/// removes it.
void ForEachAbandonedLock(const std::string& prefix,
                          const std::function<void(const std::string&)>& abandoned);

/// The lock name of an output file: `prefix` and a hash of its absolute path.
std::string OutputLockName(const std::string& prefix, const std::string& path);

}  // namespace napiscope::internal
