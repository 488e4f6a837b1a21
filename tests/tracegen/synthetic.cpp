#include "tracegen/synthetic.h"

#include <absl/strings/str_cat.h>

#include "napiscope/string_table.h"
#include "tracegen/record_encoder.h"

namespace napiscope::tracegen {
namespace {

constexpr TimestampNs kStartNs = 1'000'000'000;
constexpr TimestampNs kCycleNs = 20'000;
constexpr TimestampNs kIdleGapNs = 200'000'000;
constexpr int32_t kWorkerPidBase = 1000;

// Fills `event` with the `step`-th event of a cycle on `cpu`.
void CycleEvent(int step, int cpu, int64_t cycle, const StringTable& strings, StringId eth0,
                StringId worker_comm, StringId idle_comm, StringId irq_name, Event* event) {
  int32_t worker = kWorkerPidBase + cpu;
  static constexpr EventKind kKinds[kSyntheticCycleEvents] = {
      EventKind::kIrqHandlerEntry, EventKind::kSoftirqRaise,    EventKind::kIrqHandlerExit,
      EventKind::kSoftirqEntry,    EventKind::kNetifReceiveSkb, EventKind::kNapiPoll,
      EventKind::kSchedWaking,     EventKind::kSoftirqExit,     EventKind::kSchedWakeup,
      EventKind::kSchedSwitch,     EventKind::kSchedSwitch};
  static constexpr uint8_t kFlags[kSyntheticCycleEvents] = {0x09, 0x09, 0x09, 0x10, 0x10, 0x10,
                                                            0x10, 0x10, 0x01, 0x01, 0x01};
  event->kind = kKinds[step];
  StringId name = 0;
  strings.Find(EventKindName(event->kind), &name);
  event->name = name;
  event->flags = kFlags[step];
  event->pid = step == 10 ? worker : 0;
  event->napi = NapiPollFields{};
  switch (step) {
    case 0:
      event->irq = IrqFields{40 + cpu, 0, irq_name};
      break;
    case 2:
      event->irq = IrqFields{40 + cpu, 1, 0};
      break;
    case 1:
    case 3:
    case 7:
      event->softirq = SoftirqFields{3};
      break;
    case 4:
      event->net = NetFields{eth0, 1500, 0};
      break;
    case 5:
      event->napi = NapiPollFields{0xffff888100a00000ull + cpu * 0x1000, eth0,
                                   static_cast<int32_t>(cycle % 64) + 1, 64};
      break;
    case 6:
    case 8:
      event->wake = WakeFields{worker, 120, static_cast<int16_t>(cpu), worker_comm};
      break;
    case 9:
      event->sched_switch = SchedSwitchFields{0, worker, 120, 120, 0, idle_comm, worker_comm};
      break;
    default:
      event->sched_switch =
          SchedSwitchFields{worker, 0, 120, 120, kStateInterruptible, worker_comm, idle_comm};
      break;
  }
}

}  // namespace

absl::Status WriteSyntheticTrace(const std::string& path, const SyntheticOptions& options,
                                 TraceDatWriterStats* stats) {
  if (options.cpus < 1 || options.events < 0 || options.idle_gap_every < 1) {
    return absl::InvalidArgumentError("synthetic trace needs cpus >= 1 and events >= 0");
  }
  StringTable strings;
  for (int k = 1; k < static_cast<int>(EventKind::kMissedEvents); ++k) {
    strings.Intern(EventKindName(static_cast<EventKind>(k)));
  }
  StringId eth0 = strings.Intern("eth0");
  TraceDatWriterOptions writer_options;
  writer_options.cpus = options.cpus;
  for (int cpu = 0; cpu < options.cpus; ++cpu) {
    writer_options.cmdlines.emplace_back(kWorkerPidBase + cpu, absl::StrCat("worker/", cpu));
  }
  RecordEncoder encoder(FormatCatalog::Embedded(), strings,
                        [](int32_t pid) { return pid == 0 ? "swapper" : "worker"; });
  TraceDatWriter writer;
  absl::Status status = writer.Open(path, writer_options);
  if (!status.ok()) return status;
  std::string payload;
  Event event;
  for (int cpu = 0; cpu < options.cpus && status.ok(); ++cpu) {
    int64_t count = options.events / options.cpus + (cpu < options.events % options.cpus ? 1 : 0);
    if (count == 0) continue;
    StringId worker_comm = strings.Intern(absl::StrCat("worker/", cpu));
    StringId idle_comm = strings.Intern(absl::StrCat("swapper/", cpu));
    StringId irq_name = strings.Intern(absl::StrCat("eth0-rx-", cpu));
    status = writer.BeginCpu(cpu);
    TimestampNs gaps = 0;
    for (int64_t n = 0; n < count && status.ok(); ++n) {
      int64_t cycle = n / kSyntheticCycleEvents;
      int step = static_cast<int>(n % kSyntheticCycleEvents);
      if (step == 0 && cycle > 0 && cycle % options.idle_gap_every == 0) gaps += kIdleGapNs;
      if (n == count / 2 && n > 0) writer.MarkMissed(1000);
      CycleEvent(step, cpu, cycle, strings, eth0, worker_comm, idle_comm, irq_name, &event);
      event.cpu = static_cast<uint16_t>(cpu);
      event.ts_ns = kStartNs + gaps + cycle * kCycleNs + step * 1000 + cpu * 100;
      status = encoder.Encode(event, &payload);
      if (status.ok()) status = writer.Append(event.ts_ns, payload);
    }
    if (status.ok()) status = writer.EndCpu();
  }
  absl::Status closed = writer.Close();
  if (stats != nullptr) *stats = writer.stats();
  return status.ok() ? closed : status;
}

}  // namespace napiscope::tracegen
