#include "fuzz/fuzz_entries.h"

#include <sys/mman.h>
#include <unistd.h>

#include <array>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "napiscope/analysis_session.h"
#include "napiscope/check_config.h"
#include "napiscope/contexts.h"
#include "napiscope/json_text.h"
#include "napiscope/report_render.h"
#include "napiscope/timeline_builder.h"
#include "napiscope/tracedat_writer.h"
#include "tracegen/format_catalog.h"

namespace napiscope::fuzz {
namespace {

// A broken promise is a finding: say which and abort, so libFuzzer keeps the input.
void Check(bool ok, const char* promise, const std::string& detail = "") {
  if (ok) return;
  std::fprintf(stderr, "napiscope fuzz: %s %s\n", promise, detail.c_str());
  std::abort();
}

// Every CPU's time adds up (docs/report-schema.md, cpu_time), and the report renders.
void CheckReport(const Report& report) {
  for (const CpuTimeRow& row : report.cpu_time) {
    Check(row.AccountedNs() == row.span_ns - row.unknown_ns,
          "cpu_time parts do not sum to span_ns - unknown_ns on cpu",
          std::to_string(row.cpu) + ": span " + std::to_string(row.span_ns) + ", unknown " +
              std::to_string(row.unknown_ns) + ", accounted " + std::to_string(row.AccountedNs()));
  }
  Check(!ReportToText(report).empty(), "empty text report");
  Check(!JsonText(ReportToJson(report)).empty(), "empty JSON report");
}

// A one-line error that starts with the path (and maybe a line number: "path:3: ...").
void CheckError(const std::string& path, const absl::Status& status) {
  std::string message(status.message());
  Check(message.rfind(path + ":", 0) == 0, "error does not start with the path:", message);
  Check(message.find('\n') == std::string::npos, "error is not one line:", message);
}

// The bytes as a file LoadTrace can open by path (an anonymous memory file).
void LoadBytes(const uint8_t* data, size_t size) {
  int fd = memfd_create("napiscope-fuzz", MFD_CLOEXEC);
  Check(fd >= 0, "memfd_create failed");
  for (size_t done = 0; done < size;) {
    ssize_t n = write(fd, data + done, size - done);
    Check(n > 0, "write to memfd failed");
    done += static_cast<size_t>(n);
  }
  std::string path = "/proc/self/fd/" + std::to_string(fd);
  TraceContext context;
  AnalysisSession pipeline(AnalysisOptions{});
  absl::Status status = LoadTrace(path, context, pipeline);
  if (status.ok()) {
    CheckReport(pipeline.Finish(context));
  } else {
    CheckError(path, status);
  }
  close(fd);
}

// Reads the fuzz input as little fields; zeros once it runs out.
class ByteSource {
 public:
  ByteSource(const uint8_t* data, size_t size) : data_(data), size_(size) {}
  bool empty() const { return pos_ >= size_; }
  uint8_t U8() { return pos_ < size_ ? data_[pos_++] : 0; }
  uint16_t U16() { return static_cast<uint16_t>(U8() | U8() << 8); }

 private:
  const uint8_t* data_;
  size_t size_;
  size_t pos_ = 0;
};

struct FuzzTask {
  int32_t pid;
  const char* comm;
  int16_t prio;
};

// Tasks of every class the analyses treat apart (idle, ksoftirqd, IRQ and NAPI threads, RT).
constexpr std::array<FuzzTask, 8> kTasks = {{{0, "swapper/0", 120},
                                             {10, "ksoftirqd/0", 120},
                                             {11, "ksoftirqd/1", 120},
                                             {30, "irq/30-eth0", 49},
                                             {40, "napi/eth0-8193", 49},
                                             {1500, "iperf3", 120},
                                             {1501, "cyclictest", 1},
                                             {16, "rcuc/0", 89}}};

constexpr size_t kMaxEvents = 4096;

// One event from the bytes: any kind, CPU (some past the trace's CPU count), pid, time step
// and fields, with comms that may change under a pid. Time only moves forward, or stays: the
// EventSink contract, which every loader keeps even for corrupt files.
Event NextEvent(ByteSource& in, int cpus, TimestampNs* ts_ns, const std::vector<StringId>& comms) {
  Event event;
  event.kind = static_cast<EventKind>(in.U8() % static_cast<uint8_t>(EventKind::kCount));
  uint8_t cpu = in.U8();
  event.cpu = cpu < 240 ? cpu % (cpus + 1) : cpu;
  auto pid_of = [&](uint8_t b) { return b < 248 ? kTasks[b % kTasks.size()].pid : b * 1000; };
  event.pid = pid_of(in.U8());
  *ts_ns += in.U16();
  event.ts_ns = *ts_ns;
  event.flags = in.U8();
  int32_t other = pid_of(in.U8());
  uint8_t number = in.U8();
  int16_t prio = static_cast<int16_t>(static_cast<int>(in.U8()) - 1);
  StringId comm = comms[in.U8() % comms.size()];
  uint8_t extra = in.U8();
  switch (event.kind) {
    case EventKind::kSchedSwitch:
      event.sched_switch = {event.pid, other, prio, static_cast<int16_t>(extra % 140),
                            static_cast<uint16_t>(number % 3 == 0 ? 0 : 1u << (number % 10)),
                            comm, comms[extra % comms.size()]};
      break;
    case EventKind::kSchedWaking:
    case EventKind::kSchedWakeup:
    case EventKind::kSchedWakeupNew:
      event.wake = {other, prio, static_cast<int16_t>(number % (cpus + 1)), comm};
      break;
    case EventKind::kSchedMigrateTask:
      event.migrate = {other, prio, static_cast<int16_t>(number % (cpus + 1)),
                       static_cast<int16_t>(extra % (cpus + 1)), comm};
      break;
    case EventKind::kSchedPiSetprio:
      event.pi = {other, prio, static_cast<int16_t>(extra % 140), comm};
      break;
    case EventKind::kSchedProcessFork:
      event.fork = {event.pid, other, comm};
      break;
    case EventKind::kSchedProcessExit:
      event.exit = {other, prio, comm};
      break;
    case EventKind::kIrqHandlerEntry:
    case EventKind::kIrqHandlerExit:
    case EventKind::kIrqVectorEntry:
    case EventKind::kIrqVectorExit:
      event.irq = {28 + number % 4, extra % 2, comm};
      break;
    case EventKind::kSoftirqRaise:
    case EventKind::kSoftirqEntry:
    case EventKind::kSoftirqExit:
      // 10 and up are not kernel vectors; 32 and up do not fit the pending mask.
      event.softirq = {number < 200 ? number % 12u : (1u << (number % 32)) | number};
      break;
    case EventKind::kNapiPoll:
      event.napi = {0xffff0000u + extra % 3, comm, number % 70, 64};
      break;
    case EventKind::kNetifReceiveSkb:
    case EventKind::kNetifRx:
    case EventKind::kNetDevXmit:
      event.net = {comm, number, 0};
      break;
    case EventKind::kMissedEvents:
      event.missed = {number == 0 ? -1 : number};
      event.pid = -1;
      break;
    default:
      break;
  }
  return event;
}

}  // namespace

void FuzzTraceText(const uint8_t* data, size_t size) { LoadBytes(data, size); }

void FuzzTraceDat(const uint8_t* data, size_t size) { LoadBytes(data, size); }

void FuzzEventSequence(const uint8_t* data, size_t size) {
  ByteSource in(data, size);
  TraceContext context;
  context.meta.path = "fuzz";
  int cpus = 1 + in.U8() % 8;
  context.meta.cpus = cpus;
  std::vector<StringId> comms;
  for (const FuzzTask& task : kTasks) {
    comms.push_back(context.strings.Intern(task.comm));
    if (in.U8() % 2 == 0) {
      context.tasks.SetInitialComm(task.pid, comms.back());
      context.tasks.ObservePrio(task.pid, task.prio);
    }
  }
  comms.push_back(context.strings.Intern("eth0"));
  comms.push_back(context.strings.Intern("(no_device)"));
  comms.push_back(0);

  AnalysisSession pipeline(AnalysisOptions{});
  ContextTracker tracker;
  TimelineBuilder timeline;
  tracker.AddListener(&timeline);
  FanoutSink sinks;
  sinks.Add(&pipeline);
  sinks.Add(&tracker);
  sinks.Add(&timeline);
  sinks.OnBegin(context);
  std::vector<TimestampNs> last_ts_ns(256, -1);
  TimestampNs ts_ns = 1'000'000'000;
  for (size_t i = 0; i < kMaxEvents && !in.empty(); ++i) {
    Event event = NextEvent(in, cpus, &ts_ns, comms);
    if (event.kind == EventKind::kMissedEvents) {
      context.missed.push_back(
          {event.cpu, event.ts_ns, last_ts_ns[event.cpu % 256], event.missed.count});
    } else {
      last_ts_ns[event.cpu % 256] = event.ts_ns;
    }
    context.tasks.ObserveEvent(event);
    sinks.OnEvent(event);
    (void)tracker.Top(event.cpu);
    (void)tracker.CurrentPid(event.cpu);
    (void)tracker.OpenSoftirqFrames(event.cpu);
  }
  sinks.OnEnd();
  CheckReport(pipeline.Finish(context));
  (void)timeline.Finish();
}

void FuzzCheckConfig(const uint8_t* data, size_t size) {
  // The format goes by the file name, so write a named file (one per process, reused).
  static const std::string dir = [] {
    char pattern[] = "/tmp/napiscope-fuzz-XXXXXX";
    Check(mkdtemp(pattern) != nullptr, "mkdtemp failed");
    return std::string(pattern);
  }();
  bool json = size > 0 && (data[0] & 1);
  std::string path = dir + (json ? "/napiscope.json" : "/napiscope.toml");
  FILE* file = std::fopen(path.c_str(), "wb");
  Check(file != nullptr, "cannot write", path);
  if (size > 1) std::fwrite(data + 1, 1, size - 1, file);
  std::fclose(file);
  CheckConfig config;
  absl::Status status = LoadCheckConfig(path, &config);
  if (!status.ok()) CheckError(path, status);
}

void FuzzRecordWriter(const uint8_t* data, size_t size) {
  static const std::string dir = [] {
    char pattern[] = "/tmp/napiscope-fuzz-XXXXXX";
    Check(mkdtemp(pattern) != nullptr, "mkdtemp failed");
    return std::string(pattern);
  }();
  constexpr size_t kPage = 4096;
  const uint8_t shape = size > 0 ? data[0] : 0;
  const uint8_t formats = size > 1 ? data[1] : 0xff;
  const tracegen::FormatCatalog& catalog = tracegen::FormatCatalog::Embedded();
  TraceDatHeader header;
  header.cpus = 1 + shape % 4;
  header.header_page = catalog.header_page();
  header.header_event = catalog.header_event();
  header.reserve_pages_not_kept = true;
  for (size_t i = 0; i < catalog.events().size(); ++i) {
    const tracegen::EventLayout& event = catalog.events()[i];
    if (((formats >> (i % 8)) & 1) == 0) continue;
    if (header.systems.empty() || header.systems.back().name != event.system) {
      header.systems.push_back({event.system, {}});
    }
    header.systems.back().formats.emplace_back(event.format_text);
  }
  std::string pages;
  if (size > 2) pages.assign(reinterpret_cast<const char*>(data) + 2, size - 2);
  pages.resize((pages.size() + kPage - 1) / kPage * kPage, '\0');
  const size_t page_count = pages.size() / kPage;
  const std::string path = dir + "/record.dat";
  TraceDatFileWriter writer;
  absl::Status status = writer.Open(path, header);
  Check(status.ok(), "the writer refused a valid header:", std::string(status.message()));
  for (int cpu = 0; cpu < header.cpus; ++cpu) {
    Check(writer.BeginCpu(cpu).ok(), "BeginCpu failed");
    for (size_t page = cpu; page < page_count; page += header.cpus) {
      status = writer.WritePages(std::string_view(pages).substr(page * kPage, kPage));
      Check(status.ok(), "WritePages failed:", std::string(status.message()));
    }
    Check(writer.EndCpu().ok(), "EndCpu failed");
  }
  if ((shape & 0x80) != 0) writer.SetPagesNotKept(page_count + 1);
  status = writer.Close();
  Check(status.ok(), "Close failed:", std::string(status.message()));
  TraceContext context;
  AnalysisSession pipeline(AnalysisOptions{});
  status = LoadTrace(path, context, pipeline);
  if (status.ok()) {
    CheckReport(pipeline.Finish(context));
    bool marked = (shape & 0x80) != 0;
    bool warned = false;
    for (const std::string& warning : context.meta.warnings) {
      warned = warned || warning.find("the recording was cut short") != std::string::npos;
    }
    Check(warned == marked, "the cut-short mark and the warning disagree");
  } else {
    CheckError(path, status);
  }
}

Entry EntryNamed(std::string_view name) {
  if (name == "trace_text") return FuzzTraceText;
  if (name == "trace_dat") return FuzzTraceDat;
  if (name == "event_sequence") return FuzzEventSequence;
  if (name == "check_config") return FuzzCheckConfig;
  if (name == "record_writer") return FuzzRecordWriter;
  return nullptr;
}

}  // namespace napiscope::fuzz
