// A tracefs instance of our own with the events enabled and a reader per CPU; removed on
// destruction. The only file that touches libtracefs's instance and per-CPU reading calls.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include <absl/status/status.h>
#include <absl/status/statusor.h>

#include "napiscope/tracedat_writer.h"
#include "record/owner_lock.h"

struct tracefs_instance;
struct tracefs_cpu;
struct tep_handle;

namespace napiscope::internal {

/// How to set up the instance.
struct TracefsSessionOptions {
  std::string instance_name;        ///< instances/NAME; must not exist yet
  std::vector<std::string> events;  ///< "system:event"; "system:*" for a whole system
  std::vector<int> cpus;            ///< CPUs to record; empty: all
  int64_t buffer_kb = 0;            ///< per-CPU ring buffer; 0 keeps the kernel's default
  bool monotonic_clock = false;     ///< trace_clock "mono", so user space can tell "now"
};

/// One running tracefs instance; the destructor stops tracing and removes the instance.
class TracefsSession {
 public:
  /// Checks root, mounts tracefs if needed, creates the instance, enables the events that
  /// exist and opens the readers; tracing starts with StartTracing.
  static absl::StatusOr<std::unique_ptr<TracefsSession>> Start(const TracefsSessionOptions& options);
  ~TracefsSession();
  TracefsSession(const TracefsSession&) = delete;
  TracefsSession& operator=(const TracefsSession&) = delete;

  /// "system:event" of every enabled event, sorted.
  const std::vector<std::string>& enabled_events() const { return enabled_; }
  /// Requested events the running kernel does not have.
  const std::vector<std::string>& missing_events() const { return missing_; }
  /// CPUs being read, increasing.
  const std::vector<int>& cpus() const { return cpus_; }
  /// CPU slots of the machine (highest possible CPU + 1).
  int cpu_slots() const { return cpu_slots_; }
  /// Size of one ring-buffer page as trace_pipe_raw returns it.
  int page_size() const { return page_size_; }
  /// The tracefs mount point.
  const std::string& tracing_dir() const { return tracing_dir_; }

  /// Most pages ReadPages reads in one call: a caller whose reader cannot keep up with the
  /// kernel still gets control back to check its stop conditions.
  static constexpr int kMaxPagesPerRead = 256;

  /// Reads the pages the kernel has for the `index`-th CPU of cpus() now (non-blocking), at
  /// most kMaxPagesPerRead, and passes each, padded to page_size(), to `on_page`. True when
  /// the CPU had no more pages; false when the cap stopped the read (more may be waiting).
  absl::StatusOr<bool> ReadPages(size_t index,
                                 const std::function<absl::Status(std::string_view)>& on_page);

  /// Starts writing events into the ring buffer: once the caller is ready to read them, so
  /// its own setup (parsing the formats, opening files) does not fill the buffer unread.
  absl::Status StartTracing();

  /// Stops writing events into the ring buffer (pages already there can still be read).
  void StopTracing();

  /// Events the ring buffer of `cpu` overwrote or dropped (its per_cpu stats).
  int64_t LostEvents(int cpu) const;

  /// The file header for what this session records: formats of the enabled events,
  /// header_page/header_event, printk formats, saved cmdlines plus /proc comms, uname.
  absl::StatusOr<TraceDatHeader> BuildHeader() const;

  /// An event parser for the enabled events' systems with the saved cmdlines loaded; the
  /// caller frees it with tep_free.
  absl::StatusOr<tep_handle*> LoadEventParser() const;

 private:
  TracefsSession() = default;
  absl::Status Setup(const TracefsSessionOptions& options);
  // The (system, event) pairs a requested `spec` names on this kernel, none when it has none:
  // "system:event" with shell globs in either part ("irq:*", "sched:sched_wak*"), or as
  // trace-cmd's -e takes them, a system ("irq") or an event of any system ("sched_switch").
  std::vector<std::pair<std::string, std::string>> EventsOf(const std::string& spec) const;

  // Held while the instance is ours, released after it is destroyed (the members go after
  // the destructor's body): a napiscope killed with SIGKILL leaves it free, so the next one
  // knows the instance was a dead one's whatever its name.
  OwnerLock instance_lock_;
  tracefs_instance* instance_ = nullptr;
  std::string name_;
  std::string tracing_dir_;
  std::vector<std::string> enabled_;
  std::vector<std::string> missing_;
  std::vector<int> cpus_;
  int cpu_slots_ = 0;
  int page_size_ = 4096;
  std::vector<tracefs_cpu*> readers_;
  std::string page_buffer_;
};

}  // namespace napiscope::internal
