// napiscope's derived data as Perfetto TrackEvent tracks: descriptors written on first use,
// slices, instants, counters and flows. Event names, categories and annotation names are
// interned (Perfetto's InternedData): written once on the packet sequence, referred to by iid.
#pragma once

#include <array>
#include <cstdint>
#include <initializer_list>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

#include <absl/container/flat_hash_map.h>

#include "block_queue.h"
#include "napiscope/event.h"
#include "napiscope/perfetto_export.h"

namespace napiscope::perfetto_export {

/// The kinds of tracks the export makes; with an id (CPU, vector, NAPI pointer, pid) they name
/// one track.
enum class TrackKind : uint8_t {
  kCpuGroup,            ///< "napiscope CPU N": parent of the CPU's tracks
  kCpuSoftirqRuns,      ///< softirq entry -> exit on the CPU
  kCpuHardirqs,         ///< hard IRQ handlers on the CPU (traced or inferred)
  kCpuSoftirqWaits,     ///< raise -> entry waits of one vector (id: cpu << 8 | vec)
  kCpuNetRxPending,     ///< counter: NET_RX raised and not yet entered on the CPU
  kCpuFindings,         ///< findings about the CPU
  kCpuLostEvents,       ///< time the CPU's events were lost
  kCpuWakeups,          ///< hard IRQs and wakeups on the CPU that activated a service thread
  kNapiGroup,           ///< "napiscope NAPI": parent of the instances
  kNapiInstance,        ///< polls of one napi_struct (id: the pointer)
  kNapiPacketsCounter,  ///< counter: packets of each poll of one instance
  kThreadGroup,         ///< "napiscope threads": parent of the threads
  kThread,              ///< wake -> run waits of one thread (id: pid)
  kThreadActivations,   ///< activations of one service thread (id: pid)
  kThreadFindings,      ///< findings about one thread (id: pid)
  kTraceFindings,       ///< findings about no single CPU
};

/// How a new track is shown.
struct TrackSpec {
  std::string name;
  uint64_t parent_uuid = 0;  ///< 0: top level
  bool counter = false;
};

/// A value attached to a slice or instant: a Perfetto debug annotation (args "debug.NAME"),
/// its name interned (TrackWriter::ArgName).
struct Arg {
  uint64_t name_iid = 0;
  std::variant<int64_t, double, bool, std::string_view> value;
};

/// Perfetto's interning tables the export uses, in InternedData's field order.
enum class InternTable : uint8_t {
  kCategory,   ///< InternedData.event_categories
  kEventName,  ///< InternedData.event_names
  kArgName,    ///< InternedData.debug_annotation_names
};

/// Flow ids leaving (`out`) and ending at (`in`) a slice or instant.
struct Flows {
  std::span<const uint64_t> out;
  std::span<const uint64_t> in;
};

/// Writes TrackEvents (encoded on the calling thread into its blocks); remembers only the
/// tracks it described.
class TrackWriter {
 public:
  TrackWriter(BlockWriter* out, PerfettoExportStats* stats) : out_(out), stats_(stats) {}

  /// The uuid of track (kind, id); `describe()` gives its TrackSpec the first time.
  template <typename Describe>
  uint64_t Track(TrackKind kind, uint64_t id, Describe&& describe) {
    CacheSlot& cached = cache_[CacheIndex(kind, id)];
    if (cached.uuid != 0 && cached.kind == kind && cached.id == id) return cached.uuid;
    auto key = std::make_pair(kind, id);
    uint64_t uuid;
    if (auto it = tracks_.find(key); it != tracks_.end()) {
      uuid = it->second;
    } else {
      // describe() may ask for its parent track first: no iterator is held across it.
      uuid = Describe_(std::forward<Describe>(describe)());
      tracks_.emplace(key, uuid);
    }
    cache_[CacheIndex(kind, id)] = {kind, id, uuid};
    return uuid;
  }

  /// The iid of `name` in `table`. A new one is defined (InternedData) in the next packet that
  /// begins a slice or holds an instant: the one that first uses it, or one before.
  uint64_t Intern(InternTable table, std::string_view name);
  /// The iid of the category `name`.
  uint64_t Category(std::string_view name) { return Intern(InternTable::kCategory, name); }
  /// The iid of the event name `name`.
  uint64_t EventName(std::string_view name) { return Intern(InternTable::kEventName, name); }
  /// The iid of the debug annotation name `name`.
  uint64_t ArgName(std::string_view name) { return Intern(InternTable::kArgName, name); }

  /// A slice [begin_ns, end_ns] on `track`; category and name are iids (Category, EventName).
  void Slice(uint64_t track, TimestampNs begin_ns, TimestampNs end_ns, uint64_t category,
             uint64_t name, std::span<const Arg> args, Flows flows = {});
  /// The same with args written in place.
  void Slice(uint64_t track, TimestampNs begin_ns, TimestampNs end_ns, uint64_t category,
             uint64_t name, std::initializer_list<Arg> args, Flows flows = {}) {
    Slice(track, begin_ns, end_ns, category, name, std::span<const Arg>(args.begin(), args.size()),
          flows);
  }

  /// An instant at `ts_ns` on `track`; category and name are iids.
  void Instant(uint64_t track, TimestampNs ts_ns, uint64_t category, uint64_t name,
               std::span<const Arg> args, Flows flows = {});

  /// A counter value at `ts_ns` on the counter track `track`.
  void Counter(uint64_t track, TimestampNs ts_ns, int64_t value);

  /// A new flow id, unique in the trace.
  uint64_t NewFlow() {
    ++stats_->flows;
    return next_flow_++;
  }

 private:
  uint64_t Describe_(const TrackSpec& spec);
  // Starts a packet holding a TrackEvent of `type` on `track` (with a category, a name and
  // args when `category` is not 0); returns the TrackEvent's writer, its fields to follow
  // from number 12 on, then EndEvent.
  ProtoWriter& BeginEvent(uint64_t track, TimestampNs ts_ns, uint32_t type, uint64_t category,
                          uint64_t name, std::span<const Arg> args);
  // Ends the packet; `named`: it refers to interned strings (new ones are defined in it).
  void EndEvent(bool named);
  // The flows of the TrackEvent being written.
  void WriteFlows(Flows flows);
  // InternedData with the strings interned since the last packet that had them.
  void WriteNewInterned(ProtoWriter& packet);

  // One interning table: iids by string, and those not yet written to the file.
  struct Table {
    absl::flat_hash_map<std::string, uint64_t> iids;
    std::vector<std::pair<uint64_t, std::string>> unwritten;
  };

  // The tracks looked up last, before the map (a slice's track is found per slice).
  struct CacheSlot {
    TrackKind kind = TrackKind::kCpuGroup;
    uint64_t id = 0;
    uint64_t uuid = 0;  // 0: empty
  };
  static constexpr int kCacheBits = 10;
  static size_t CacheIndex(TrackKind kind, uint64_t id) {
    return static_cast<size_t>(((id ^ (static_cast<uint64_t>(kind) << 56)) * 0x9e3779b97f4a7c15) >>
                               (64 - kCacheBits));
  }

  BlockWriter* out_;
  PerfettoExportStats* stats_;
  std::array<CacheSlot, size_t{1} << kCacheBits> cache_{};
  absl::flat_hash_map<std::pair<TrackKind, uint64_t>, uint64_t> tracks_;
  std::array<Table, 3> tables_;   // by InternTable
  bool unwritten_ = false;        // a table has strings not yet written
  // The file's only track descriptors are the export's: small uuids take a byte or two.
  uint64_t next_uuid_ = 1;
  uint64_t next_flow_ = 1;
  ProtoWriter::Nested event_;  // the TrackEvent being written
};

}  // namespace napiscope::perfetto_export
