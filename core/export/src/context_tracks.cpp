#include "context_tracks.h"

#include <fmt/format.h>

namespace napiscope::perfetto_export {

uint64_t TrackLayout::CpuGroup(uint16_t cpu) {
  return tracks_->Track(TrackKind::kCpuGroup, cpu,
                        [&] { return TrackSpec{fmt::format("napiscope CPU {}", cpu)}; });
}

uint64_t TrackLayout::CpuTrack(TrackKind kind, uint16_t cpu) {
  return tracks_->Track(kind, cpu, [&] {
    TrackSpec spec;
    spec.parent_uuid = CpuGroup(cpu);
    switch (kind) {
      case TrackKind::kCpuSoftirqRuns: spec.name = fmt::format("CPU {} softirq runs", cpu); break;
      case TrackKind::kCpuHardirqs: spec.name = fmt::format("CPU {} hard IRQs", cpu); break;
      case TrackKind::kCpuNetRxPending:
        spec.name = fmt::format("CPU {} NET_RX pending", cpu);
        spec.counter = true;
        break;
      case TrackKind::kCpuFindings: spec.name = fmt::format("CPU {} findings", cpu); break;
      case TrackKind::kCpuLostEvents: spec.name = fmt::format("CPU {} lost events", cpu); break;
      case TrackKind::kCpuWakeups: spec.name = fmt::format("CPU {} activations", cpu); break;
      default: spec.name = fmt::format("CPU {}", cpu); break;
    }
    return spec;
  });
}

uint64_t TrackLayout::SoftirqWaits(uint16_t cpu, uint32_t vec) {
  return tracks_->Track(TrackKind::kCpuSoftirqWaits, (uint64_t{cpu} << 8) | (vec & 0xff), [&] {
    return TrackSpec{fmt::format("CPU {} {} waits", cpu, SoftirqVectorName(vec)), CpuGroup(cpu)};
  });
}

uint64_t TrackLayout::NapiInstance(uint64_t napi, StringId dev) {
  return tracks_->Track(TrackKind::kNapiInstance, napi, [&] {
    uint64_t group =
        tracks_->Track(TrackKind::kNapiGroup, 0, [] { return TrackSpec{"napiscope NAPI"}; });
    return TrackSpec{fmt::format("NAPI {} {:#x}", Str(dev), napi), group};
  });
}

uint64_t TrackLayout::NapiPackets(uint64_t napi, StringId dev) {
  return tracks_->Track(TrackKind::kNapiPacketsCounter, napi, [&] {
    uint64_t group =
        tracks_->Track(TrackKind::kNapiGroup, 0, [] { return TrackSpec{"napiscope NAPI"}; });
    return TrackSpec{fmt::format("packets per poll {} {:#x}", Str(dev), napi), group, true};
  });
}

std::string_view TrackLayout::Str(StringId id) const {
  if (copies_ == nullptr) return (*context_)->strings.Get(id);
  auto it = copies_->strings.find(id);
  return it != copies_->strings.end() ? std::string_view(it->second) : std::string_view();
}

std::string_view TrackLayout::Comm(int32_t pid) const {
  if (copies_ == nullptr) return (*context_)->strings.Get((*context_)->tasks.CommOf(pid));
  auto it = copies_->comms.find(pid);
  return it != copies_->comms.end() ? Str(it->second) : std::string_view();
}

uint64_t TrackLayout::Thread(int32_t pid) {
  return tracks_->Track(TrackKind::kThread, static_cast<uint32_t>(pid), [&] {
    uint64_t group = tracks_->Track(TrackKind::kThreadGroup, 0,
                                    [] { return TrackSpec{"napiscope threads"}; });
    return TrackSpec{fmt::format("{} {} wake->run", Comm(pid), pid), group};
  });
}

uint64_t TrackLayout::ThreadActivations(int32_t pid) {
  return tracks_->Track(TrackKind::kThreadActivations, static_cast<uint32_t>(pid), [&] {
    uint64_t group = tracks_->Track(TrackKind::kThreadGroup, 0,
                                    [] { return TrackSpec{"napiscope threads"}; });
    return TrackSpec{fmt::format("{} {} activations", Comm(pid), pid), group};
  });
}

uint64_t TrackLayout::ThreadFindings(int32_t pid) {
  return tracks_->Track(TrackKind::kThreadFindings, static_cast<uint32_t>(pid), [&] {
    uint64_t group = tracks_->Track(TrackKind::kThreadGroup, 0,
                                    [] { return TrackSpec{"napiscope threads"}; });
    return TrackSpec{fmt::format("findings {} {}", Comm(pid), pid), group};
  });
}

uint64_t TrackLayout::TraceFindings() {
  return tracks_->Track(TrackKind::kTraceFindings, 0,
                        [] { return TrackSpec{"napiscope findings"}; });
}

bool InScope(const AnalysisOptions& options, uint16_t cpu, TimestampNs start_ns,
             TimestampNs end_ns) {
  if (end_ns < options.window.from_ns || start_ns > options.window.to_ns) return false;
  if (options.cpus.empty()) return true;
  for (int wanted : options.cpus) {
    if (wanted == cpu) return true;
  }
  return false;
}

ContextTracks::ContextTracks(TrackLayout* layout, const AnalysisOptions& options)
    : layout_(layout), options_(options), cache_(layout->writer()) {
  TrackWriter* w = layout->writer();
  iids_ = {w->Category("softirq"),
           w->Category("hardirq"),
           w->Category("napi"),
           w->Category("lost"),
           w->EventName("poll"),
           w->EventName("poll (budget exhausted)"),
           w->EventName("events lost (not idle: unknown)"),
           w->ArgName("vec"),
           w->ArgName("ran_in"),
           w->ArgName("pid"),
           w->ArgName("irq"),
           w->ArgName("x86_vector"),
           w->ArgName("interrupted_pid"),
           w->ArgName("work"),
           w->ArgName("budget"),
           w->ArgName("exhausted"),
           w->ArgName("cpu"),
           w->ArgName("lost_ns"),
           w->ArgName("start_known"),
           w->ArgName("end_known"),
           w->ArgName("resumed"),
           w->ArgName("suspended")};
}

ContextReads ContextTracks::Reads() const {
  return {.segments = false,
          .interval_kinds = ContextKindBit(ContextKind::kSoftirq) |
                            ContextKindBit(ContextKind::kHardirq) |
                            ContextKindBit(ContextKind::kNapiPoll)};
}

void ContextTracks::OnInterval(const ContextInterval& interval) {
  const ContextFrame& frame = interval.frame;
  if (!InScope(options_, frame.cpu, frame.start_ns, interval.end_ns)) return;
  switch (frame.kind) {
    case ContextKind::kSoftirq: Softirq(interval); break;
    case ContextKind::kHardirq: Hardirq(interval); break;
    case ContextKind::kNapiPoll: NapiPoll(interval); break;
    case ContextKind::kTask:
      break;  // not read (Reads)
  }
}

// Flags are written only when they are not the usual value (smaller files): start_known and
// end_known when false, resumed and suspended when true.
size_t ContextTracks::AddUnusualFlags(const ContextInterval& interval, Arg* args,
                                      size_t count) const {
  if (!interval.frame.start_known) args[count++] = {iids_.start_known, false};
  if (!interval.end_known) args[count++] = {iids_.end_known, false};
  if (interval.frame.resumed) args[count++] = {iids_.resumed, true};
  if (interval.suspended) args[count++] = {iids_.suspended, true};
  return count;
}

void ContextTracks::Softirq(const ContextInterval& interval) {
  const ContextFrame& frame = interval.frame;
  Arg args[7] = {{iids_.vec, int64_t{frame.vec}},
                 {iids_.ran_in, SoftirqSiteName(frame.site)},
                 {iids_.pid, int64_t{frame.pid}}};
  size_t count = AddUnusualFlags(interval, args, 3);
  uint64_t name = cache_.PerVector(&vector_names_, frame.vec,
                                   [](uint32_t vec) { return SoftirqVectorName(vec); });
  layout_->writer()->Slice(layout_->CpuTrack(TrackKind::kCpuSoftirqRuns, frame.cpu),
                           frame.start_ns, interval.end_ns, iids_.softirq, name,
                           std::span<const Arg>(args, count));
}

void ContextTracks::Hardirq(const ContextInterval& interval) {
  const ContextFrame& frame = interval.frame;
  Arg args[7] = {{iids_.irq, int64_t{frame.irq.number}},
                 {iids_.interrupted_pid, int64_t{frame.pid}}};
  size_t count = 2;
  // An x86 vector's number is not a device IRQ's (local_timer is 236, as may be a NIC's IRQ).
  if (frame.irq.x86_vector) args[count++] = {iids_.x86_vector, true};
  count = AddUnusualFlags(interval, args, count);
  uint64_t name = cache_.PerString(frame.name, [this](StringId id) { return layout_->Str(id); });
  layout_->writer()->Slice(layout_->CpuTrack(TrackKind::kCpuHardirqs, frame.cpu), frame.start_ns,
                           interval.end_ns, iids_.hardirq, name,
                           std::span<const Arg>(args, count));
}

void ContextTracks::NapiPoll(const ContextInterval& interval) {
  const ContextFrame& frame = interval.frame;
  bool exhausted = frame.budget > 0 && frame.work >= frame.budget;
  Arg args[10] = {{iids_.work, int64_t{frame.work}},
                  {iids_.budget, int64_t{frame.budget}},
                  {iids_.exhausted, exhausted},
                  {iids_.cpu, int64_t{frame.cpu}},
                  {iids_.ran_in, SoftirqSiteName(frame.site)},
                  {iids_.pid, int64_t{frame.pid}}};
  size_t count = AddUnusualFlags(interval, args, 6);
  layout_->writer()->Slice(layout_->NapiInstance(frame.napi, frame.name), frame.start_ns,
                           interval.end_ns, iids_.napi,
                           exhausted ? iids_.poll_exhausted : iids_.poll,
                           std::span<const Arg>(args, count));
  layout_->writer()->Counter(layout_->NapiPackets(frame.napi, frame.name), interval.end_ns,
                             frame.work);
}

void ContextTracks::OnUnknownTime(uint16_t cpu, TimestampNs start_ns, TimestampNs end_ns) {
  if (!InScope(options_, cpu, start_ns, end_ns)) return;
  layout_->writer()->Slice(layout_->CpuTrack(TrackKind::kCpuLostEvents, cpu), start_ns, end_ns,
                           iids_.lost, iids_.events_lost,
                           {{iids_.lost_ns, int64_t{end_ns - start_ns}}});
}

}  // namespace napiscope::perfetto_export
