#include "ftrace_bundler.h"

#include <algorithm>

namespace napiscope::perfetto_export {
namespace {

// Events per bundle: Perfetto's own bundles hold one or a few ring-buffer pages.
constexpr size_t kBundleEvents = 512;

}  // namespace

FtraceBundler::FtraceBundler(BatchQueue* out, const AnalysisOptions& options,
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
  stats_->ftrace_events += static_cast<int64_t>(buffer.events.size());
  ++stats_->ftrace_bundles;
  out_->SendBundle(cpu, buffer.lost_before, &buffer.events, context_->strings);
  buffer.lost_before = false;
}

}  // namespace napiscope::perfetto_export
