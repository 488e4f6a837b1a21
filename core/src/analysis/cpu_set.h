// A set of CPU numbers as a sorted vector, with a bit per CPU below 64 so that the common
// insert (a CPU already in, on every switch or IRQ) is one bit test, not a scan.
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

namespace napiscope::internal {

/// CPU numbers, each once, in ascending order.
class CpuSet {
 public:
  /// Adds `cpu`; false when it was in already.
  bool Insert(int cpu) {
    if (cpu >= 0 && cpu < kMaskedCpus) {
      uint64_t bit = uint64_t{1} << cpu;
      if (low_cpus_ & bit) return false;
      low_cpus_ |= bit;
    } else if (std::find(cpus_.begin(), cpus_.end(), cpu) != cpus_.end()) {
      return false;
    }
    cpus_.insert(std::lower_bound(cpus_.begin(), cpus_.end(), cpu), cpu);
    return true;
  }

  /// Adds every CPU of `cpus`.
  template <typename Range>
  void InsertAll(const Range& cpus) {
    for (int cpu : cpus) Insert(cpu);
  }

  /// The CPUs, ascending.
  const std::vector<int>& values() const { return cpus_; }
  auto begin() const { return cpus_.begin(); }
  auto end() const { return cpus_.end(); }

 private:
  static constexpr int kMaskedCpus = 64;
  std::vector<int> cpus_;
  uint64_t low_cpus_ = 0;  // bit c set when CPU c (< kMaskedCpus) is in cpus_
};

}  // namespace napiscope::internal
