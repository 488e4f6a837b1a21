#include "load/tracedat_loader.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <memory>
#include <numeric>
#include <thread>
#include <vector>

#include <absl/strings/str_cat.h>

#include "load/chunk_source.h"
#include "load/cpu_record_reader.h"
#include "load/event_merge.h"
#include "load/tracecmd_cxx.h"
#include "load/tracedat_checks.h"
#include "load/tracedat_header_reader.h"
#include "load/tracedat_tep.h"

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

void FillMeta(const TraceDatHeader& header, std::vector<std::string> event_formats,
              TraceMeta* meta) {
  meta->format = TraceFormat::kTraceDat;
  meta->file_version = header.version;
  meta->compression = header.compression;
  meta->long_size = header.long_size;
  meta->big_endian = header.big_endian;
  meta->page_size = header.page_size;
  meta->uname = header.uname;
  meta->clock = header.clock;
  meta->buffer = header.loaded_buffer;
  for (const TraceDatBuffer& buffer : header.instances) {
    if (buffer.name != header.loaded_buffer) meta->buffer_instances.push_back(buffer.name);
  }
  meta->cpus = header.cpus;  // every extent's CPU is below it (ReadTraceDatHeader)
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
  meta->event_formats = std::move(event_formats);
  meta->enabled_events = header.enabled_events;
  meta->warnings.insert(meta->warnings.end(), header.warnings.begin(), header.warnings.end());
}

// "system:name" of every format libtracecmd parsed, sorted.
std::vector<std::string> EventFormatNames(tep_handle* tep) {
  std::vector<std::string> names;
  int count = tep_get_events_count(tep);
  for (int i = 0; i < count; ++i) {
    tep_event* event = tep_get_event(tep, i);
    names.push_back(absl::StrCat(event->system ? event->system : "", ":",
                                 event->name ? event->name : ""));
  }
  std::sort(names.begin(), names.end());
  return names;
}

// napiscope reads the pages itself, time options included, unless asked not to (the tests'
// reference reads through libtracecmd).
bool ReadsPagesItself(const LoadOptions& options) { return !options.libtracecmd_records; }

// The layout of CPU `cpu`'s pages, with that CPU's timestamp conversion.
PageLayout LayoutOf(const TraceDatHeader& header, int cpu) {
  return PageLayout{header.page_size,         header.big_endian, header.long_size,
                    CompressedWithZstd(header), header.file_size, TimeConversionOfCpu(header, cpu)};
}

// libtracecmd trusts page headers it should not (a bad commit in a later page silently
// drops the rest of the CPU; shifted pages crash it), so before it reads a file, napiscope's
// own reader walks every page of every CPU, which checks each one; `records` is what it read,
// for comparing with what libtracecmd reads.
absl::Status CheckEveryPage(const std::string& path, const TraceDatHeader& header,
                            int64_t* records) {
  FdCloser file;
  file.fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (file.fd < 0) return absl::NotFoundError(std::strerror(errno));
  *records = 0;
  for (const CpuDataExtent& extent : header.top_buffer) {
    PageCpuReader reader(file.fd, LayoutOf(header, extent.cpu), extent);
    RawRecord record;
    while (reader.Next(&record)) ++*records;
    if (!reader.status().ok()) return reader.status();
  }
  return absl::OkStatus();
}

int DecodingThreads(const LoadOptions& options) {
  if (options.threads > 0) return options.threads;
  return static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
}

// The readers of every CPU and what they need kept open.
struct CpuReaders {
  TracedatParser parser;  // formats.tep: the own parser's or libtracecmd's
  InputHandle handle;     // libtracecmd's, when it reads
  FdCloser file;          // the page readers'
  std::vector<CpuStream> streams;
  std::vector<uint64_t> bytes;  // of data per CPU, to balance the workers
};

// napiscope's own parser and page readers (plain or zstd pages), any number of threads.
absl::Status OpenPageReaders(const std::string& path, const TraceDatHeader& header,
                             TraceMeta* meta, CpuReaders* readers) {
  absl::Status status = BuildTracedatParser(header, &readers->parser);
  if (!status.ok()) return status;
  FillMeta(header, std::move(readers->parser.event_formats), meta);
  meta->warnings.insert(meta->warnings.end(), readers->parser.warnings.begin(),
                        readers->parser.warnings.end());
  readers->file.fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (readers->file.fd < 0) return absl::NotFoundError(std::strerror(errno));
  readers->streams.resize(meta->cpus);
  readers->bytes.assign(meta->cpus, 0);
  for (const CpuDataExtent& extent : header.top_buffer) {
    readers->streams[extent.cpu].reader =
        std::make_unique<PageCpuReader>(readers->file.fd, LayoutOf(header, extent.cpu), extent);
    readers->bytes[extent.cpu] = extent.size;
  }
  return absl::OkStatus();
}

// One libtracecmd handle, read on the calling thread (it parses every format itself, so all
// are checked first).
absl::Status OpenLibtracecmdReaders(const std::string& path, const TraceDatHeader& header,
                                    TraceMeta* meta, CpuReaders* readers) {
  std::vector<size_t> every_format(header.event_formats.size());
  std::iota(every_format.begin(), every_format.end(), 0);
  absl::Status status = CheckEventFormatsParse(header, every_format);
  if (!status.ok()) return status;
  tracecmd_set_loglevel(TEP_LOG_NONE);
  readers->handle.reset(tracecmd_open(
      path.c_str(), TRACECMD_FL_LOAD_NO_PLUGINS | TRACECMD_FL_LOAD_NO_SYSTEM_PLUGINS));
  if (!readers->handle) {
    return absl::DataLossError(
        "libtracecmd could not open it (corrupt or unsupported header sections)");
  }
  if (!header.loaded_buffer.empty()) {
    // The instance's handle holds a reference to the file's, which it shares the parser with.
    tracecmd_input* file = readers->handle.get();
    tracecmd_input* instance = nullptr;
    for (int i = 0; i < tracecmd_buffer_instances(file) && instance == nullptr; ++i) {
      const char* name = tracecmd_buffer_instance_name(file, i);
      if (name != nullptr && name == header.loaded_buffer) {
        instance = tracecmd_buffer_instance_handle(file, i);
      }
    }
    if (instance == nullptr) {
      return absl::DataLossError(
          absl::StrCat("libtracecmd could not open buffer '", header.loaded_buffer, "'"));
    }
    readers->handle.reset(instance);
  }
  tep_handle* tep = tracecmd_get_tep(readers->handle.get());
  if (tep == nullptr) return absl::DataLossError("libtracecmd returned no event parser");
  status = CheckDecodedFieldsFit(tep, header.page_size);
  if (!status.ok()) return status;
  readers->parser.formats.tep = tep;
  FillMeta(header, EventFormatNames(tep), meta);
  // Only the CPUs the header's table lists: libtracecmd believes a CPUCOUNT its data does not
  // back and reads past its CPU table for the others (a version 7 table lists the CPUs with
  // data alone).
  readers->streams.resize(meta->cpus);
  for (const CpuDataExtent& extent : header.top_buffer) {
    readers->streams[extent.cpu].reader =
        std::make_unique<TracecmdCpuReader>(readers->handle.get(), extent.cpu);
  }
  return absl::OkStatus();
}

}  // namespace

absl::Status LoadTraceDat(const std::string& path, TraceContext& context, EventSink& sink,
                          const LoadOptions& options) {
  TraceDatHeader header;
  absl::Status status = ReadTraceDatHeader(path, options.buffer, &header);
  if (!status.ok()) return status;

  if (header.compression != "none" && !CompressedWithZstd(header)) {
    // Debian's libtracecmd reads zstd only; no unchecked reader gets such a file.
    return absl::UnimplementedError(absl::StrCat("compression '", header.compression,
                                                 "' is not supported (zstd is)"));
  }
  CpuReaders readers;
  bool read_pages = ReadsPagesItself(options);
  int64_t checked_records = -1;
  if (!read_pages) {
    status = CheckEveryPage(path, header, &checked_records);
    if (!status.ok()) return status;
  }
  status = read_pages ? OpenPageReaders(path, header, &context.meta, &readers)
                      : OpenLibtracecmdReaders(path, header, &context.meta, &readers);
  if (!status.ok()) return status;
  int cpus = context.meta.cpus;
  std::unique_ptr<CpuDataSource> source;
  int threads = read_pages ? DecodingThreads(options) : 1;
  if (options.decoded_records != nullptr) options.decoded_records->OnDecodingStarts(cpus);
  if (threads > 1) {
    source = std::make_unique<ThreadedChunkSource>(
        readers.parser.formats, std::move(readers.streams), readers.bytes, threads - 1,
        options.decoding_threads_merge, options.decoded_records);
  } else {
    source = std::make_unique<InlineChunkSource>(
        readers.parser.formats, std::move(readers.streams), options.decoded_records);
  }
  MergeTotals totals;
  status = MergeChunks(*source, cpus, readers.parser.formats.tep, header.top_buffer, context,
                       sink, options, &totals);
  source.reset();  // joins the workers
  if (!status.ok()) return status;
  int64_t records = totals.records;
  int64_t backwards = totals.backwards;
  if (checked_records >= 0 && records != checked_records) {
    return absl::DataLossError(absl::StrCat("libtracecmd read ", records, " records where the "
                                            "pages hold ", checked_records, " (corrupt CPU data)"));
  }
  context.meta.skipped_records = totals.skipped;

  uint64_t data_bytes = DataBytes(header.top_buffer);
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
