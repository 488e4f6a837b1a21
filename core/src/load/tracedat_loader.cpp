#include "load/tracedat_loader.h"

#include <algorithm>
#include <memory>
#include <queue>
#include <vector>

#include <absl/container/flat_hash_set.h>
#include <absl/strings/str_cat.h>
#include <trace-cmd/trace-cmd.h>

#include "load/event_decoder.h"
#include "load/tracedat_header.h"

namespace napiscope::internal {
namespace {

constexpr int64_t kProgressEvery = 1 << 16;

struct InputCloser {
  void operator()(tracecmd_input* handle) const { tracecmd_close(handle); }
};
using InputHandle = std::unique_ptr<tracecmd_input, InputCloser>;

struct RecordFreer {
  void operator()(tep_record* record) const { tracecmd_free_record(record); }
};
using RecordHandle = std::unique_ptr<tep_record, RecordFreer>;

// Per-CPU reading position, and what is needed to spot gaps and clock jumps.
struct CpuStream {
  RecordHandle record;
  TimestampNs last_ts_ns = -1;
  const CpuDataExtent* extent = nullptr;
  uint64_t last_offset = 0;
};

void FillMeta(const TraceDatHeader& header, tep_handle* tep, TraceMeta* meta) {
  meta->format = TraceFormat::kTraceDat;
  meta->file_version = header.version;
  meta->compression = header.compression;
  meta->long_size = header.long_size;
  meta->big_endian = header.big_endian;
  meta->page_size = header.page_size;
  meta->uname = header.uname;
  meta->clock = header.clock;
  meta->buffer_instances = header.buffer_instances;
  meta->cpus = std::max(header.cpus, tep_get_cpus(tep));
  // uname is "sysname nodename release version machine"; the release is the third word.
  std::vector<std::string> words;
  size_t pos = 0;
  while (pos < meta->uname.size() && words.size() < 3) {
    size_t end = meta->uname.find(' ', pos);
    if (end == std::string::npos) end = meta->uname.size();
    words.push_back(meta->uname.substr(pos, end - pos));
    pos = end + 1;
  }
  if (words.size() == 3) meta->kernel_release = words[2];
  int count = tep_get_events_count(tep);
  meta->event_formats.reserve(count);
  for (int i = 0; i < count; ++i) {
    tep_event* event = tep_get_event(tep, i);
    meta->event_formats.push_back(absl::StrCat(event->system ? event->system : "", ":",
                                               event->name ? event->name : ""));
  }
  std::sort(meta->event_formats.begin(), meta->event_formats.end());
}

double FractionDone(const std::vector<CpuStream>& streams) {
  double done = 0;
  int counted = 0;
  for (const CpuStream& stream : streams) {
    if (stream.extent == nullptr || stream.extent->size == 0) continue;
    ++counted;
    if (!stream.record) {
      done += 1;
      continue;
    }
    uint64_t offset = stream.last_offset;
    if (offset < stream.extent->offset) continue;
    done += std::min(1.0, static_cast<double>(offset - stream.extent->offset) /
                              static_cast<double>(stream.extent->size));
  }
  return counted == 0 ? 0 : done / counted;
}

}  // namespace

absl::Status LoadTraceDat(const std::string& path, TraceContext& context, EventSink& sink,
                          const LoadOptions& options) {
  TraceDatHeader header;
  absl::Status status = ReadTraceDatHeader(path, &header);
  if (!status.ok()) return status;

  tracecmd_set_loglevel(TEP_LOG_NONE);
  InputHandle handle(tracecmd_open(
      path.c_str(), TRACECMD_FL_LOAD_NO_PLUGINS | TRACECMD_FL_LOAD_NO_SYSTEM_PLUGINS));
  if (!handle) {
    return absl::DataLossError(
        "libtracecmd could not open it (corrupt or unsupported header sections)");
  }
  tep_handle* tep = tracecmd_get_tep(handle.get());
  if (tep == nullptr) return absl::DataLossError("libtracecmd returned no event parser");
  FillMeta(header, tep, &context.meta);
  int cpus = context.meta.cpus;

  EventDecoder decoder(tep, &context);
  absl::flat_hash_set<int32_t> pids_seen;
  std::vector<CpuStream> streams(cpus);
  for (const CpuDataExtent& extent : header.top_buffer) {
    if (extent.cpu >= 0 && extent.cpu < cpus) streams[extent.cpu].extent = &extent;
  }

  // Min-heap of (timestamp, cpu): one entry per CPU that still has records.
  using HeapEntry = std::pair<unsigned long long, int>;
  std::priority_queue<HeapEntry, std::vector<HeapEntry>, std::greater<>> heap;
  for (int cpu = 0; cpu < cpus; ++cpu) {
    streams[cpu].record.reset(tracecmd_read_cpu_first(handle.get(), cpu));
    if (streams[cpu].record) heap.emplace(streams[cpu].record->ts, cpu);
  }

  sink.OnBegin(context);
  int64_t records = 0;
  int64_t backwards = 0;
  Event event;
  while (!heap.empty()) {
    int cpu = heap.top().second;
    heap.pop();
    CpuStream& stream = streams[cpu];
    tep_record* record = stream.record.get();
    TimestampNs ts = static_cast<TimestampNs>(record->ts);
    stream.last_offset = record->offset;
    if (ts < stream.last_ts_ns) ++backwards;

    if (record->missed_events != 0) {
      MissedEventsMark mark{static_cast<uint16_t>(cpu), ts, stream.last_ts_ns,
                            record->missed_events > 0 ? record->missed_events : -1};
      context.missed.push_back(mark);
      Event missed;
      missed.ts_ns = ts;
      missed.cpu = static_cast<uint16_t>(cpu);
      missed.kind = EventKind::kMissedEvents;
      missed.pid = -1;
      missed.missed = {mark.count};
      sink.OnEvent(missed);
    }

    ++records;
    event.ts_ns = ts;
    event.cpu = static_cast<uint16_t>(cpu);
    if (decoder.Decode(record->data, record->size, &event)) {
      if (pids_seen.insert(event.pid).second) {
        const char* comm = tep_data_comm_from_pid(tep, event.pid);
        if (comm != nullptr && comm[0] != '<') {
          context.tasks.SetInitialComm(event.pid, context.strings.Intern(comm));
        }
      }
      context.tasks.ObserveEvent(event);
      sink.OnEvent(event);
    } else {
      ++context.meta.skipped_records;
    }
    stream.last_ts_ns = std::max(stream.last_ts_ns, ts);

    stream.record.reset(tracecmd_read_data(handle.get(), cpu));
    if (stream.record) heap.emplace(stream.record->ts, cpu);

    if (records % kProgressEvery == 0) {
      if (options.cancel != nullptr && options.cancel->load()) {
        return absl::CancelledError("load cancelled");
      }
      if (options.progress) options.progress(FractionDone(streams));
    }
  }

  uint64_t data_bytes = 0;
  for (const CpuDataExtent& extent : header.top_buffer) data_bytes += extent.size;
  if (records == 0 && data_bytes > 0) {
    return absl::DataLossError(
        absl::StrCat("no event could be read from ", data_bytes, " bytes of CPU data"));
  }
  if (context.meta.skipped_records > 0) {
    if (context.meta.skipped_records * 2 > records) {
      return absl::DataLossError(absl::StrCat(context.meta.skipped_records, " of ", records,
                                              " records have unknown event ids (corrupt data)"));
    }
    context.meta.warnings.push_back(absl::StrCat(context.meta.skipped_records,
                                                 " records with unknown event ids skipped"));
  }
  if (backwards > 0) {
    context.meta.warnings.push_back(
        absl::StrCat(backwards, " events have timestamps earlier than the previous event on "
                                "their CPU"));
  }
  if (options.progress) options.progress(1.0);
  sink.OnEnd();
  return absl::OkStatus();
}

}  // namespace napiscope::internal
