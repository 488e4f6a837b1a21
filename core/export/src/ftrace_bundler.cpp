#include "ftrace_bundler.h"

#include <algorithm>
#include <utility>

#include "ftrace_event_encode.h"
#include "perfetto_fields.h"

namespace napiscope::perfetto_export {
namespace {

namespace f = fields;

// Events per bundle on the analysing thread: Perfetto's own bundles hold one or a few
// ring-buffer pages (the decoded chunks, about as many events, make one bundle each).
constexpr size_t kBundleEvents = 512;

// Room for the bundles of one decoded chunk (about 512 events of 80-100 bytes).
constexpr size_t kChunkBundleBytes = 64 << 10;

// A bundle being written: its packet and FtraceEventBundle are open.
struct OpenBundle {
  ProtoWriter::Nested packet;
  ProtoWriter::Nested bundle;
  bool lost_before = false;
};

// Fields in number order, as the generated classes write them; a bundle of 512 events takes
// some 40 KB, whose length needs 3 bytes.
OpenBundle BeginBundle(uint16_t cpu, bool lost_before, ProtoWriter& out) {
  OpenBundle open;
  open.packet = packet_framing::Begin(out, 3);
  open.bundle = out.BeginNested(f::packet::kFtraceEvents, 3);
  out.Varint(f::bundle::kCpu, cpu);
  open.lost_before = lost_before;
  return open;
}

void AddEvent(const Event& event, const StringTable& strings, ProtoWriter& out) {
  EncodeFtraceEventField(f::bundle::kEvent, event, strings, &out);
}

void EndBundle(const OpenBundle& open, ProtoWriter& out) {
  if (open.lost_before) out.Varint(f::bundle::kLostEvents, 1);
  out.EndNested(open.bundle);
  packet_framing::SequenceId(out);
  packet_framing::End(out, open.packet);
}

// kernel_stack / user_stack records repeat the event before them with a stack: the load keeps
// them out of the stream, and so does the export.
bool IsStackRecord(const Event& event, const StringTable& strings) {
  if (event.kind != EventKind::kOther) return false;
  std::string_view name = strings.Get(event.name);
  return name == "kernel_stack" || name == "user_stack";
}

}  // namespace

EventScope::EventScope(const AnalysisOptions& options, int cpus)
    : window_(options.window), all_cpus_(options.cpus.empty()) {
  cpu_wanted_.assign(static_cast<size_t>(std::max(cpus, 0)), all_cpus_ ? 1 : 0);
  for (int cpu : options.cpus) {
    if (cpu >= 0 && cpu < cpus) cpu_wanted_[static_cast<size_t>(cpu)] = 1;
  }
}

void EncodeBundle(uint16_t cpu, bool lost_before, std::span<const Event> events,
                  const StringTable& strings, ProtoWriter* out) {
  OpenBundle open = BeginBundle(cpu, lost_before, *out);
  for (const Event& event : events) AddEvent(event, strings, *out);
  EndBundle(open, *out);
}

void DecodedBundles::OnDecodingStarts(int cpus) {
  out_->Start();  // the decoding threads put bundles from now on; the header is read
  active_ = true;
  scope_.emplace(options_, cpus);
  cpus_.assign(static_cast<size_t>(std::max(cpus, 0)), CpuState());
}

void DecodedBundles::OnDecoded(uint16_t cpu, std::span<const Event> events,
                               const StringTable& strings) {
  if (cpu >= cpus_.size() || !scope_->CpuWanted(cpu)) return;
  CpuState& state = cpus_[cpu];
  ProtoWriter block;
  bool have_block = false;
  TimestampNs first_ns = 0;  // the block's first event's time: its key's stamp
  OpenBundle open;
  bool bundle_open = false;
  for (const Event& event : events) {
    if (event.kind == EventKind::kMissedEvents) {
      // The gap ends the bundle: the next one starts after the loss and says so.
      if (bundle_open) EndBundle(open, block);
      bundle_open = false;
      state.lost_before = true;
      continue;
    }
    if (event.kind == EventKind::kCount || IsStackRecord(event, strings)) continue;
    // As the merge delivers it: never earlier than the CPU's record before.
    TimestampNs ts_ns = std::max(event.ts_ns, state.last_ns);
    state.last_ns = ts_ns;
    if (!scope_->TimeWanted(ts_ns)) continue;
    if (!have_block) {
      block = out_->Take(kChunkBundleBytes);
      have_block = true;
      first_ns = ts_ns;
    }
    if (!bundle_open) {
      open = BeginBundle(cpu, std::exchange(state.lost_before, false), block);
      bundle_open = true;
      ++state.bundles;
    }
    if (ts_ns != event.ts_ns) {
      Event moved = event;
      moved.ts_ns = ts_ns;
      AddEvent(moved, strings, block);
    } else {
      AddEvent(event, strings, block);
    }
    ++state.events;
  }
  if (bundle_open) EndBundle(open, block);
  if (have_block) {
    out_->Put(std::move(block), BlockKey{first_ns, block_source::kFirstCpu + cpu, state.blocks++});
  }
}

void DecodedBundles::AddStats(PerfettoExportStats* stats) const {
  for (const CpuState& state : cpus_) {
    stats->ftrace_events += state.events;
    stats->ftrace_bundles += state.bundles;
  }
}

FtraceBundler::FtraceBundler(BlockWriter* out, const AnalysisOptions& options,
                             PerfettoExportStats* stats)
    : out_(out), options_(options), stats_(stats) {}

void FtraceBundler::OnBegin(const TraceContext& context) {
  context_ = &context;
  int cpus = std::max(context.meta.cpus, 1);
  cpus_.resize(static_cast<size_t>(cpus));
  scope_.emplace(options_, cpus);
}

void FtraceBundler::OnEvent(const Event& event) {
  if (event.cpu >= cpus_.size()) cpus_.resize(event.cpu + 1);
  CpuBuffer& buffer = cpus_[event.cpu];
  if (event.kind == EventKind::kMissedEvents) {
    // The gap ends the CPU's bundle: the next one starts after the loss and says so.
    Flush(event.cpu);
    buffer.lost_before = true;
    return;
  }
  if (!scope_->CpuWanted(event.cpu) || !scope_->TimeWanted(event.ts_ns)) return;
  buffer.events.push_back(event);
  if (buffer.events.size() >= kBundleEvents) Flush(event.cpu);
}

void FtraceBundler::OnEnd() {
  for (size_t cpu = 0; cpu < cpus_.size(); ++cpu) Flush(static_cast<uint16_t>(cpu));
}

void FtraceBundler::Flush(uint16_t cpu) {
  CpuBuffer& buffer = cpus_[cpu];
  if (buffer.events.empty()) return;
  stats_->ftrace_events += static_cast<int64_t>(buffer.events.size());
  ++stats_->ftrace_bundles;
  EncodeBundle(cpu, buffer.lost_before, buffer.events, context_->strings, &out_->block());
  out_->PacketsDone();
  buffer.events.clear();
  buffer.lost_before = false;
}

}  // namespace napiscope::perfetto_export
