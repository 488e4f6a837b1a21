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
#include "load/ring_buffer_page.h"
#include "load/tracedat_header.h"
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

// The file's little-endian `width`-byte number at `offset` (in the file).
uint64_t FileNumber(const std::string& bytes, size_t offset, int width) {
  return internal::ReadFileInt(reinterpret_cast<const uint8_t*>(bytes.data()) + offset, width,
                               false);
}

// The number after `key` in the kernel's header_page text ("char data;\toffset:" -> 16).
int64_t HeaderPageNumber(const std::string& file, const std::string& field, const char* key) {
  size_t at = file.find(field);
  if (at == std::string::npos || at > 1 << 20) return -1;
  at = file.find(key, at);
  if (at == std::string::npos) return -1;
  int64_t value = 0;
  for (size_t i = at + std::strlen(key); i < file.size() && i < at + 20 && file[i] >= '0' &&
                                         file[i] <= '9';
       ++i) {
    value = value * 10 + (file[i] - '0');
  }
  return value;
}

// The file's own account of its events, whatever its CPU table says: the data records of
// every ring-buffer page where CPU data lies (a v6 file after its "flyrecord" label, a v7 one
// in its top buffer's flyrecord section), pages of the size the kernel's header_page gives.
// -1 when it cannot tell (compressed or little-endian-only facts missing, a page that does
// not walk).
int64_t RecordsTheFileHolds(const std::string& file) {
  static const std::string kTraceDatMagic("\x17\x08\x44tracing", 10);
  if (file.size() < 24 || file.compare(0, kTraceDatMagic.size(), kTraceDatMagic) != 0 || file[12] != 0) return -1;
  const bool v6 = file[10] == '6';
  if (!v6 && file.compare(18, 5, std::string("none\0", 5)) != 0) return -1;
  const int64_t data_offset = HeaderPageNumber(file, "char data;", "offset:");
  const int64_t data_size = HeaderPageNumber(file, "char data;", "size:");
  const int64_t long_size = HeaderPageNumber(file, "local_t commit;", "size:");
  const int64_t page_size = data_offset + data_size;
  if (data_offset <= 0 || data_size <= 0 || (long_size != 4 && long_size != 8) ||
      page_size < 256 || page_size > (1 << 20) || (page_size & (page_size - 1)) != 0) {
    return -1;
  }
  uint64_t start = 0, end = file.size();
  if (v6) {
    const size_t fly = file.find(std::string("flyrecord\0", 10));
    if (fly == std::string::npos) return -1;
    start = fly + 10;
  } else {
    const size_t at = file.rfind(std::string("\0local\0", 7));
    if (at == std::string::npos || at < 8) return -1;
    const uint64_t section = FileNumber(file, at - 8, 8);
    if (section > file.size() - 16 || FileNumber(file, section, 2) != 3) return -1;
    start = section + 16;
    end = start + std::min<uint64_t>(FileNumber(file, section + 8, 8), file.size() - start);
  }
  const uint64_t page = static_cast<uint64_t>(page_size);
  int64_t records = 0;
  std::vector<internal::PageRecord> walked;
  internal::BadRecord bad;
  for (uint64_t at = (start + page - 1) / page * page; at + page <= end; at += page) {
    const auto* bytes = reinterpret_cast<const uint8_t*>(file.data()) + at;
    const uint64_t commit = internal::PageDataBytes(bytes, static_cast<int>(long_size), false);
    if (commit == 0 || commit > page - 8 - static_cast<uint64_t>(long_size)) continue;
    if (!internal::WalkRingBufferPage(bytes, static_cast<int>(page), static_cast<int>(long_size),
                                      false, &walked, &bad)) {
      return -1;
    }
    records += static_cast<int64_t>(walked.size());
  }
  return records;
}

// Counts the events a loader hands on (not its lost-events marks).
class CountingSink : public EventSink {
 public:
  void OnBegin(const TraceContext&) override {}
  void OnEvent(const Event& event) override { events_ += event.kind != EventKind::kMissedEvents; }
  void OnEnd() override {}
  int64_t events() const { return events_; }

 private:
  int64_t events_ = 0;
};

// The bytes as a file LoadTrace can open by path (an anonymous memory file). With
// `account_for_events`, a trace.dat read without a warning must hand on at least the events
// its pages hold (RecordsTheFileHolds): fewer events without a word is a finding.
void LoadBytes(const uint8_t* data, size_t size, bool account_for_events = false) {
  int fd = memfd_create("napiscope-fuzz", MFD_CLOEXEC);
  Check(fd >= 0, "memfd_create failed");
  for (size_t done = 0; done < size;) {
    ssize_t n = write(fd, data + done, size - done);
    Check(n > 0, "write to memfd failed");
    done += static_cast<size_t>(n);
  }
  std::string path = "/proc/self/fd/" + std::to_string(fd);
  TraceContext context;
  CountingSink counter;
  SessionOutputs outputs;
  outputs.sinks.push_back(&counter);
  AnalysisSession pipeline(AnalysisOptions{}, outputs);
  absl::Status status = LoadTrace(path, context, pipeline);
  if (status.ok()) {
    CheckReport(pipeline.Finish(context));
    if (account_for_events && context.meta.warnings.empty() && context.meta.buffer.empty() &&
        context.meta.buffer_instances.empty()) {
      const std::string file(reinterpret_cast<const char*>(data), size);
      const int64_t held = RecordsTheFileHolds(file);
      Check(held < 0 || counter.events() >= held,
            "fewer events than the file's pages hold, and no warning:",
            std::to_string(counter.events()) + " of " + std::to_string(held));
    }
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

void FuzzTraceDat(const uint8_t* data, size_t size) { LoadBytes(data, size, true); }

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
