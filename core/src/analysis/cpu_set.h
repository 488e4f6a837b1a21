// A set of CPU numbers as a sorted vector: a task or an IRQ touches a few CPUs, so an insert on
// every switch or softirq is a short scan of one cache line, not a tree walk.
#pragma once

#include <algorithm>
#include <vector>

namespace napiscope::internal {

/// CPU numbers, each once, in ascending order.
class CpuSet {
 public:
  /// Adds `cpu`; false when it was in already.
  bool Insert(int cpu) {
    for (int known : cpus_) {  // a few CPUs: a short scan, inlined where it is called
      if (known == cpu) return false;
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
  std::vector<int> cpus_;
};

}  // namespace napiscope::internal
