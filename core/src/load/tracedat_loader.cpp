#include "load/tracedat_loader.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <memory>
#include <thread>
#include <vector>

#include <absl/strings/str_cat.h>

#include "load/chunk_source.h"
#include "load/cpu_record_reader.h"
#include "load/event_merge.h"
#include "load/tracecmd_cxx.h"
#include "load/tracedat_header.h"

namespace napiscope::internal {
namespace {

struct InputCloser {
  void operator()(tracecmd_input* handle) const { tracecmd_close(handle); }
};
using InputHandle = std::unique_ptr<tracecmd_input, InputCloser>;

struct FdCloser {
  int fd = -1;
  ~FdCloser() {
    if (fd >= 0) close(fd);
  }
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

// True when PageCpuReader sees the same first record of every CPU as libtracecmd: same
// size, offset and timestamp (libtracecmd converts timestamps of some files: tsc2nsec,
// --ts-offset, guest time sync; those are read through libtracecmd).
bool PagesReadLikeLibtracecmd(tracecmd_input* handle, int fd, const PageLayout& layout,
                              const std::vector<CpuDataExtent>& extents, int cpus) {
  for (const CpuDataExtent& extent : extents) {
    if (extent.cpu < 0 || extent.cpu >= cpus) return false;
    PageCpuReader pages(fd, layout, extent);
    RawRecord ours;
    bool have_ours = pages.Next(&ours);
    tep_record* theirs = tracecmd_read_cpu_first(handle, extent.cpu);
    bool same = have_ours == (theirs != nullptr) &&
                (!have_ours || (ours.ts_ns == theirs->ts && ours.size == theirs->size &&
                                ours.offset == theirs->offset));
    tracecmd_free_record(theirs);
    if (!same) return false;
  }
  return true;
}

int DecodingThreads(const LoadOptions& options) {
  if (options.threads > 0) return options.threads;
  return static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
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
  context.meta.warnings.insert(context.meta.warnings.end(), header.warnings.begin(),
                               header.warnings.end());
  int cpus = context.meta.cpus;

  // Uncompressed CPU data is read page by page, in parallel when asked; anything else
  // through the one libtracecmd handle on this thread.
  FdCloser file;
  PageLayout layout{header.page_size, tep_is_file_bigendian(tep), tep_get_header_page_size(tep)};
  bool read_pages = !options.libtracecmd_records && header.compression == "none";
  if (read_pages) {
    file.fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
    read_pages = file.fd >= 0 &&
                 PagesReadLikeLibtracecmd(handle.get(), file.fd, layout, header.top_buffer, cpus);
  }
  std::vector<CpuStream> streams(cpus);
  std::vector<uint64_t> bytes(cpus, 0);
  if (read_pages) {
    for (const CpuDataExtent& extent : header.top_buffer) {
      streams[extent.cpu].reader = std::make_unique<PageCpuReader>(file.fd, layout, extent);
      bytes[extent.cpu] = extent.size;
    }
  } else {
    for (int cpu = 0; cpu < cpus; ++cpu) {
      streams[cpu].reader = std::make_unique<TracecmdCpuReader>(handle.get(), cpu);
    }
  }
  std::unique_ptr<ChunkSource> source;
  int threads = read_pages ? DecodingThreads(options) : 1;
  if (threads > 1) {
    source = std::make_unique<ThreadedChunkSource>(tep, std::move(streams), bytes, threads);
  } else {
    source = std::make_unique<InlineChunkSource>(tep, std::move(streams));
  }
  MergeTotals totals;
  status = MergeChunks(*source, cpus, tep, header.top_buffer, context, sink, options, &totals);
  source.reset();  // joins the workers
  if (!status.ok()) return status;
  int64_t records = totals.records;
  int64_t backwards = totals.backwards;
  context.meta.skipped_records = totals.skipped;

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
  if (totals.impossible_time > 0) {
    if (totals.impossible_time * 2 > records) {
      return absl::DataLossError(absl::StrCat(totals.impossible_time, " of ", records,
                                              " records have impossible timestamps (corrupt)"));
    }
    context.meta.warnings.push_back(absl::StrCat(
        totals.impossible_time, " records with impossible timestamps (over 146 years) skipped"));
  }
  if (backwards > 0) {
    context.meta.warnings.push_back(
        absl::StrCat(backwards, " events have timestamps earlier than the previous event on "
                                "their CPU; analysed at the time of the event before"));
  }
  if (options.progress) options.progress(1.0);
  sink.OnEnd();
  return absl::OkStatus();
}

}  // namespace napiscope::internal
