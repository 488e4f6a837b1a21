#include "analysis/cpu_time.h"

#include <algorithm>

namespace napiscope::internal {
namespace {

constexpr uint32_t kMaxSoftirqVectors = 32;  // the kernel's pending mask has 32 bits

// A CPU's row before any time is added: every vector at zero.
CpuTimeRow EmptyRow(size_t cpu) {
  CpuTimeRow row;
  row.cpu = static_cast<int>(cpu);
  row.softirq_ns.assign(kSoftirqVectorCount, 0);
  return row;
}

}  // namespace

CpuTimeRow& CpuTime::Grow(uint16_t cpu) {
  for (size_t i = cpus_.size(); i <= cpu; ++i) cpus_.push_back(EmptyRow(i));
  return cpus_[cpu];
}

int64_t CpuTime::Clipped(TimestampNs start_ns, TimestampNs end_ns) const {
  return std::max<int64_t>(0,
                           std::min(end_ns, window_.to_ns) - std::max(start_ns, window_.from_ns));
}

void CpuTime::OnSegment(const CpuSegment& segment) {
  int64_t ns = Clipped(segment.start_ns, segment.end_ns);
  if (ns == 0) return;
  const ContextFrame& frame = segment.frame;
  CpuTimeRow& row = Cpu(frame.cpu);
  switch (frame.kind) {
    case ContextKind::kHardirq:
      row.hardirq_ns += ns;
      return;
    case ContextKind::kSoftirq:
      if (frame.vec >= kMaxSoftirqVectors) {  // corrupt data: the kernel has no such vector
        row.unknown_ns += ns;
        return;
      }
      if (frame.vec >= row.softirq_ns.size()) row.softirq_ns.resize(frame.vec + 1, 0);
      row.softirq_ns[frame.vec] += ns;
      return;
    case ContextKind::kTask:
    case ContextKind::kNapiPoll:  // never a segment: polls are nested in a softirq or task
      break;
  }
  switch (frame.task_class) {
    case TaskClass::kIdle:
      row.idle_ns += ns;
      break;
    case TaskClass::kIrqThread:
      row.irq_thread_ns += ns;
      break;
    case TaskClass::kKsoftirqd:
    case TaskClass::kSoftirqThread:  // RT softirq threads do ksoftirqd's work, per vector
      row.ksoftirqd_ns += ns;
      break;
    case TaskClass::kNapiKthread:
      row.napi_kthread_ns += ns;
      break;
    case TaskClass::kRtTask:
      row.rt_task_ns += ns;
      break;
    case TaskClass::kOther:
      row.other_task_ns += ns;
      break;
  }
}

void CpuTime::OnUnknownTime(uint16_t cpu, TimestampNs start_ns, TimestampNs end_ns) {
  Cpu(cpu).unknown_ns += Clipped(start_ns, end_ns);
}

std::vector<CpuTimeRow> CpuTime::Rows(const std::vector<CpuEventSpan>& spans) const {
  std::vector<CpuTimeRow> rows;
  for (size_t cpu = 0; cpu < spans.size(); ++cpu) {
    const CpuEventSpan& span = spans[cpu];
    if (span.events == 0) continue;
    CpuTimeRow row = cpu < cpus_.size() ? cpus_[cpu] : EmptyRow(cpu);
    row.first_ts_ns = std::max(span.first_ns, window_.from_ns);
    row.last_ts_ns = std::min(span.last_ns, window_.to_ns);
    if (row.last_ts_ns < row.first_ts_ns) continue;  // no time of this CPU inside the window
    row.span_ns = row.last_ts_ns - row.first_ts_ns;
    rows.push_back(std::move(row));
  }
  return rows;
}

}  // namespace napiscope::internal
