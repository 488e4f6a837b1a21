#include "ftrace_bundler.h"

#include <algorithm>

#include "perfetto_trace.pb.h"

namespace napiscope::perfetto_export {
namespace {

// Events per bundle: Perfetto's own bundles hold one or a few ring-buffer pages.
constexpr size_t kBundleEvents = 512;

}  // namespace

FtraceBundler::FtraceBundler(PacketWriter* out, const AnalysisOptions& options,
                             PerfettoExportStats* stats)
    : out_(out), options_(options), stats_(stats) {}

void FtraceBundler::OnBegin(const TraceContext& context) {
  context_ = &context;
  size_t cpus = static_cast<size_t>(std::max(context.meta.cpus, 1));
  cpus_.resize(cpus);
  cpu_wanted_.assign(cpus, options_.cpus.empty());
  for (int cpu : options_.cpus) {
    if (cpu >= 0 && static_cast<size_t>(cpu) < cpus) cpu_wanted_[cpu] = true;
  }
}

bool FtraceBundler::Wanted(const Event& event) const {
  return options_.window.Contains(event.ts_ns) &&
         (event.cpu < cpu_wanted_.size() ? cpu_wanted_[event.cpu] : options_.cpus.empty());
}

void FtraceBundler::OnEvent(const Event& event) {
  if (event.cpu >= cpus_.size()) {
    cpus_.resize(event.cpu + 1);
    cpu_wanted_.resize(event.cpu + 1, options_.cpus.empty());
  }
  CpuBuffer& buffer = cpus_[event.cpu];
  if (event.kind == EventKind::kMissedEvents) {
    // The gap ends the CPU's bundle: the next one starts after the loss and says so.
    Flush(event.cpu);
    buffer.lost_before = true;
    return;
  }
  if (!Wanted(event)) return;
  buffer.events.push_back(event);
  if (buffer.events.size() >= kBundleEvents) Flush(event.cpu);
}

void FtraceBundler::OnEnd() {
  for (size_t cpu = 0; cpu < cpus_.size(); ++cpu) Flush(static_cast<uint16_t>(cpu));
}

void FtraceBundler::Flush(uint16_t cpu) {
  CpuBuffer& buffer = cpus_[cpu];
  if (buffer.events.empty()) return;
  using perfetto::protos::FtraceEventBundle;
  using perfetto::protos::TracePacket;
  // Encoded directly (fields in number order, as the generated classes write them): building
  // a message object per event would cost more than the rest of the export.
  bundle_.Clear();
  bundle_.Varint(FtraceEventBundle::kCpuFieldNumber, cpu);
  for (const Event& event : buffer.events) {
    EncodeFtraceEvent(event, context_->strings, &scratch_);
    bundle_.Message(FtraceEventBundle::kEventFieldNumber, scratch_.event);
  }
  if (buffer.lost_before) bundle_.Varint(FtraceEventBundle::kLostEventsFieldNumber, 1);
  packet_.Clear();
  packet_.Message(TracePacket::kFtraceEventsFieldNumber, bundle_);
  packet_.Varint(TracePacket::kTrustedPacketSequenceIdFieldNumber, PacketWriter::kSequenceId);
  if (out_->ClaimFirstPacket()) packet_.Varint(TracePacket::kSequenceFlagsFieldNumber, 1);
  out_->WriteEncoded(packet_.bytes());
  stats_->ftrace_events += static_cast<int64_t>(buffer.events.size());
  ++stats_->ftrace_bundles;
  buffer.events.clear();
  buffer.lost_before = false;
}

}  // namespace napiscope::perfetto_export
