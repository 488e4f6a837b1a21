#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include <absl/strings/str_cat.h>

#include "load/tracedat_option_ids.h"
#include "napiscope/tracedat_writer.h"
#include "napiscope/unnamed_file.h"

namespace napiscope {
namespace {

using internal::kOptionBuffer;
using internal::kOptionCpuCount;
using internal::kOptionTraceClock;
using internal::kOptionUname;

constexpr size_t kDrainBytes = 8 << 20;

void PutLe(std::string* out, uint64_t value, int bytes) {
  for (int i = 0; i < bytes; ++i) out->push_back(static_cast<char>(value >> (8 * i)));
}

void PutCString(std::string* out, std::string_view text) {
  out->append(text);
  out->push_back('\0');
}

void PutSized(std::string* out, std::string_view text, int size_bytes) {
  PutLe(out, text.size(), size_bytes);
  out->append(text);
}

// "flyrecord" and its NUL: the label before each buffer's CPU table.
constexpr size_t kFlyrecordLabelBytes = 10;

// The label and CPU table that start a buffer's data; the table is filled in by Close.
void PutFlyrecord(std::string* out, int cpus) {
  out->append("flyrecord\0", kFlyrecordLabelBytes);
  out->append(16 * static_cast<size_t>(cpus), '\0');  // (offset, size) per CPU
}

// Everything before the CPU data, as `trace-cmd.dat.v6(5)` lays it out, up to the top buffer's
// CPU table. Sets `*pages_not_kept_offset` to where that option's value lies (0 when not
// reserved) and `*buffer_offsets` to where each instance's BUFFER option holds its offset.
std::string BuildHeader(const TraceDatHeader& header, uint64_t* pages_not_kept_offset,
                        std::vector<uint64_t>* buffer_offsets) {
  std::string out("\x17\x08\x44tracing6", 11);
  out.push_back('\0');
  out.push_back(0);  // little endian
  out.push_back(8);  // user-space long size
  PutLe(&out, header.page_size, 4);
  PutCString(&out, "header_page");
  PutSized(&out, header.header_page, 8);
  PutCString(&out, "header_event");
  PutSized(&out, header.header_event, 8);
  PutLe(&out, header.ftrace_formats.size(), 4);
  for (const std::string& format : header.ftrace_formats) PutSized(&out, format, 8);
  PutLe(&out, header.systems.size(), 4);
  for (const TraceDatEventSystem& system : header.systems) {
    PutCString(&out, system.name);
    PutLe(&out, system.formats.size(), 4);
    for (const std::string& format : system.formats) PutSized(&out, format, 8);
  }
  PutSized(&out, header.kallsyms, 4);
  PutSized(&out, header.printk_formats, 4);
  std::string cmdlines;
  for (const auto& [pid, comm] : header.cmdlines) absl::StrAppend(&cmdlines, pid, " ", comm, "\n");
  PutSized(&out, cmdlines, 8);
  PutLe(&out, header.cpus, 4);
  out.append("options  ", 9);
  out.push_back('\0');
  PutLe(&out, kOptionCpuCount, 2);
  PutLe(&out, 4, 4);
  PutLe(&out, header.cpus, 4);
  if (!header.uname.empty()) {
    PutLe(&out, kOptionUname, 2);
    PutLe(&out, header.uname.size() + 1, 4);
    PutCString(&out, header.uname);
  }
  if (!header.trace_clock.empty()) {
    PutLe(&out, kOptionTraceClock, 2);
    PutLe(&out, header.trace_clock.size() + 1, 4);
    PutCString(&out, header.trace_clock);
  }
  *pages_not_kept_offset = 0;
  if (header.reserve_pages_not_kept) {
    PutLe(&out, kTraceDatOptionPagesNotKept, 2);
    PutLe(&out, 8, 4);
    *pages_not_kept_offset = out.size();
    PutLe(&out, 0, 8);
  }
  buffer_offsets->clear();
  for (const std::string& name : header.buffer_instances) {
    // As trace-cmd writes it: the offset of the instance's flyrecord, then its name.
    PutLe(&out, kOptionBuffer, 2);
    PutLe(&out, 8 + name.size() + 1, 4);
    buffer_offsets->push_back(out.size());
    PutLe(&out, 0, 8);
    PutCString(&out, name);
  }
  for (const TraceDatOption& option : header.extra_options) {
    PutLe(&out, option.id, 2);
    PutLe(&out, option.payload.size(), 4);
    out.append(option.payload);
  }
  PutLe(&out, 0, 2);  // options done
  PutFlyrecord(&out, header.cpus);
  return out;
}

}  // namespace

std::string EncodeTimeShiftOption(const TraceDatTimeShift& shift) {
  std::string out;
  PutLe(&out, shift.host_trace_id, 8);
  PutLe(&out, shift.flags, 4);
  PutLe(&out, shift.cpus.size(), 4);
  for (const std::vector<TraceDatTimeShiftSample>& samples : shift.cpus) {
    PutLe(&out, samples.size(), 4);
    for (const TraceDatTimeShiftSample& sample : samples) PutLe(&out, sample.time, 8);
    for (const TraceDatTimeShiftSample& sample : samples) PutLe(&out, sample.offset, 8);
    for (const TraceDatTimeShiftSample& sample : samples) PutLe(&out, sample.scaling, 8);
  }
  if (shift.fractions) {
    for (const std::vector<TraceDatTimeShiftSample>& samples : shift.cpus) {
      for (const TraceDatTimeShiftSample& sample : samples) PutLe(&out, sample.fraction, 8);
    }
  }
  return out;
}

TraceDatFileWriter::~TraceDatFileWriter() {
  if (fd_ >= 0) close(fd_);
}

uint64_t TraceDatFileWriter::HeaderBytes(const TraceDatHeader& header) {
  uint64_t unused = 0;
  std::vector<uint64_t> buffer_offsets;
  uint64_t bytes = BuildHeader(header, &unused, &buffer_offsets).size();
  uint64_t page = header.page_size > 0 ? static_cast<uint64_t>(header.page_size) : 4096;
  return (bytes + page - 1) / page * page;
}

absl::Status RequireFileOutput(const std::string& path) {
  struct stat st;
  if (stat(path.c_str(), &st) != 0 || S_ISREG(st.st_mode)) return absl::OkStatus();
  return absl::FailedPreconditionError(absl::StrCat(
      path,
      ": not a regular file (a device, pipe or directory); a trace.dat is written to a file"));
}

absl::Status TraceDatFileWriter::Open(const std::string& path, const TraceDatHeader& header) {
  if (header.cpus < 1 || header.cpus > 4096) {
    return absl::InvalidArgumentError(absl::StrCat("cpus must be 1..4096, not ", header.cpus));
  }
  if (header.page_size < 256 || (header.page_size & (header.page_size - 1)) != 0) {
    return absl::InvalidArgumentError("page size must be a power of two >= 256");
  }
  fd_ = open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd_ < 0) return absl::PermissionDeniedError(absl::StrCat(path, ": ", std::strerror(errno)));
  path_ = path;
  page_size_ = static_cast<size_t>(header.page_size);
  cpus_ = header.cpus;
  std::vector<uint64_t> buffer_offsets;
  std::string text = BuildHeader(header, &pages_not_kept_offset_, &buffer_offsets);
  buffers_.assign(1, Buffer{text.size() - 16 * static_cast<size_t>(cpus_), 0, {}});
  buffers_[0].extents.assign(cpus_, {0, 0});
  instance_option_offsets_ = std::move(buffer_offsets);
  text.append((page_size_ - text.size() % page_size_) % page_size_, '\0');
  return Write(text);
}

absl::Status TraceDatFileWriter::BeginBuffer(size_t instance) {
  if (fd_ < 0) return absl::FailedPreconditionError("writer is not open");
  if (instance + 1 != buffers_.size() || instance >= instance_option_offsets_.size()) {
    return absl::InvalidArgumentError(
        absl::StrCat("buffer instance ", instance, " out of order or not in the header"));
  }
  // The instance's flyrecord label and CPU table, then its pages from the next page on.
  std::string text;
  PutFlyrecord(&text, cpus_);
  Buffer buffer{file_offset_ + kFlyrecordLabelBytes, file_offset_, {}};
  buffer.extents.assign(cpus_, {0, 0});
  buffers_.push_back(std::move(buffer));
  current_cpu_ = -1;
  text.append((page_size_ - (file_offset_ + text.size()) % page_size_) % page_size_, '\0');
  return Write(text);
}

absl::Status TraceDatFileWriter::BeginCpu(int cpu) {
  if (fd_ < 0) return absl::FailedPreconditionError("writer is not open");
  if (cpu <= current_cpu_ || cpu >= cpus_) {
    return absl::InvalidArgumentError(absl::StrCat("CPU ", cpu, " out of order or out of range"));
  }
  current_cpu_ = cpu;
  buffers_.back().extents[cpu] = {file_offset_, 0};
  return absl::OkStatus();
}

absl::Status TraceDatFileWriter::WritePages(std::string_view pages) {
  if (current_cpu_ < 0) return absl::FailedPreconditionError("WritePages before BeginCpu");
  if (pages.size() % page_size_ != 0) {
    return absl::InvalidArgumentError(
        absl::StrCat(pages.size(), " bytes is not a whole number of ", page_size_, "-byte pages"));
  }
  return Write(pages);
}

absl::Status TraceDatFileWriter::EndCpu() {
  if (current_cpu_ < 0) return absl::FailedPreconditionError("EndCpu before BeginCpu");
  auto& [offset, size] = buffers_.back().extents[current_cpu_];
  size = file_offset_ - offset;
  return absl::OkStatus();
}

absl::Status TraceDatFileWriter::Write(std::string_view data) {
  out_.append(data);
  file_offset_ += data.size();
  return out_.size() >= kDrainBytes ? Drain() : absl::OkStatus();
}

absl::Status TraceDatFileWriter::Drain() {
  int error = WriteAll(fd_, out_.data(), out_.size());
  out_.clear();
  if (error != 0)
    return absl::ResourceExhaustedError(absl::StrCat(path_, ": ", std::strerror(error)));
  return absl::OkStatus();
}

absl::Status TraceDatFileWriter::PatchAt(uint64_t offset, std::string_view bytes) {
  if (pwrite(fd_, bytes.data(), bytes.size(), static_cast<off_t>(offset)) !=
      static_cast<ssize_t>(bytes.size())) {
    return absl::ResourceExhaustedError(absl::StrCat(path_, ": ", std::strerror(errno)));
  }
  return absl::OkStatus();
}

absl::Status TraceDatFileWriter::Close() {
  if (fd_ < 0) return absl::FailedPreconditionError("writer is not open");
  // Instances given no data get an empty table, so that every BUFFER option points at one.
  absl::Status status;
  while (status.ok() && buffers_.size() <= instance_option_offsets_.size()) {
    status = BeginBuffer(buffers_.size() - 1);
  }
  if (status.ok()) status = Drain();
  for (size_t i = 0; i < buffers_.size() && status.ok(); ++i) {
    std::string table;
    for (const auto& [offset, size] : buffers_[i].extents) {
      // An empty CPU still needs an offset inside the file.
      PutLe(&table, size == 0 ? file_offset_ : offset, 8);
      PutLe(&table, size, 8);
    }
    status = PatchAt(buffers_[i].table_offset, table);
    if (status.ok() && i > 0) {
      std::string offset;
      PutLe(&offset, buffers_[i].section_offset, 8);
      status = PatchAt(instance_option_offsets_[i - 1], offset);
    }
  }
  if (status.ok() && pages_not_kept_ > 0) {
    std::string value;
    PutLe(&value, pages_not_kept_, 8);
    if (pages_not_kept_offset_ == 0) {
      status = absl::FailedPreconditionError("pages not kept, but no room reserved to say so");
    } else {
      status = PatchAt(pages_not_kept_offset_, value);
    }
  }
  if (close(fd_) != 0 && status.ok()) {
    status = absl::ResourceExhaustedError(absl::StrCat(path_, ": ", std::strerror(errno)));
  }
  fd_ = -1;
  return status;
}

}  // namespace napiscope
