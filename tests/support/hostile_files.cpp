#include "support/hostile_files.h"

#include <sys/stat.h>

#include <algorithm>
#include <array>
#include <cstring>
#include <filesystem>

#include <absl/strings/str_format.h>

#include "support/test_support.h"

namespace napiscope::testing {
namespace {

uint64_t GetLe(const std::string& bytes, size_t offset, int size) {
  uint64_t value = 0;
  for (int i = 0; i < size; ++i) {
    value |= static_cast<uint64_t>(static_cast<uint8_t>(bytes[offset + i])) << (8 * i);
  }
  return value;
}

void PutLe(std::string* bytes, size_t offset, uint64_t value, int size) {
  for (int i = 0; i < size; ++i) (*bytes)[offset + i] = static_cast<char>(value >> (8 * i));
}

// Replaces the first `from` with `to` (same length, so every offset stays right).
std::string Replaced(std::string bytes, const std::string& from, const std::string& to) {
  size_t at = bytes.find(from);
  if (at != std::string::npos) bytes.replace(at, from.size(), to);
  return bytes;
}

// Where a v7 file's top-buffer CPU table sits: the BUFFER option (offset, name "", clock
// "local", page size, CPU count, then per CPU u32 id, u64 offset, u64 size); npos if none.
size_t V7CpuTableOffset(const std::string& bytes) {
  static const std::string kTopLocal("\0local\0", 7);  // the empty name, then the clock
  size_t at = bytes.rfind(kTopLocal);
  return at == std::string::npos || at + 7 + 8 > bytes.size() ? std::string::npos : at + 7 + 8;
}

// A v6 trace whose flyrecord table lists `cpus` CPUs: the trace's own first, then empty ones
// (offset 0, size 0), with the data moved behind the longer table.
std::string WithEmptyCpus(const std::string& trace, uint32_t cpus) {
  static const std::string kLabel("flyrecord\0", 10);
  size_t count_at = CpuCountOffset(trace);
  uint64_t old_cpus = GetLe(trace, count_at, 4);
  size_t table = trace.find(kLabel) + 10;
  size_t table_end = table + 16 * old_cpus;
  uint64_t shift = 16 * (cpus - old_cpus);
  std::string out = trace.substr(0, table);
  PutLe(&out, count_at, cpus, 4);
  // The CPUCOUNT option (2 CPUs) says the same.
  static const std::string kCpuCount("\x08\0\x04\0\0\0", 6);
  size_t option = out.find(kCpuCount);
  if (option != std::string::npos && option + 10 <= out.size()) PutLe(&out, option + 6, cpus, 4);
  for (uint64_t cpu = 0; cpu < cpus; ++cpu) {
    std::string entry(16, '\0');
    if (cpu < old_cpus) {
      PutLe(&entry, 0, GetLe(trace, table + 16 * cpu, 8) + shift, 8);
      PutLe(&entry, 8, GetLe(trace, table + 16 * cpu + 8, 8), 8);
    }
    out += entry;
  }
  return out + trace.substr(table_end);
}

// A v6 trace with one more option (`id`, `payload`) first in its options block; the zeros
// that pad the header to a page give the room, so the CPU data stays where it was (or, when
// they are too few, the data moves and the flyrecord table with it).
std::string WithV6Option(const std::string& trace, uint16_t id, const std::string& payload) {
  static const std::string kOptions("options  \0", 10);
  static const std::string kLabel("flyrecord\0", 10);
  size_t options = trace.find(kOptions);
  size_t count_at = CpuCountOffset(trace);
  if (options == std::string::npos || count_at == std::string::npos) return trace;
  std::string option(6, '\0');
  PutLe(&option, 0, id, 2);
  PutLe(&option, 2, payload.size(), 4);
  option += payload;
  const uint64_t cpus = GetLe(trace, count_at, 4);
  const size_t table = trace.find(kLabel) + 10;
  const size_t table_end = table + 16 * cpus;
  uint64_t first_data = trace.size();
  for (uint64_t cpu = 0; cpu < cpus; ++cpu) {
    if (GetLe(trace, table + 16 * cpu + 8, 8) > 0) {
      first_data = std::min<uint64_t>(first_data, GetLe(trace, table + 16 * cpu, 8));
    }
  }
  std::string out = trace;
  out.insert(options + 10, option);
  const size_t new_table = table + option.size();
  const bool padding_fits = first_data >= table_end + option.size() &&
                            trace.find_first_not_of('\0', table_end) >= table_end + option.size();
  if (padding_fits) {
    out.erase(table_end + option.size(), option.size());
    return out;
  }
  for (uint64_t cpu = 0; cpu < cpus; ++cpu) {
    size_t entry = new_table + 16 * cpu;
    if (GetLe(out, entry + 8, 8) > 0) PutLe(&out, entry, GetLe(out, entry, 8) + option.size(), 8);
  }
  return out;
}

// A TIME_SHIFT option's payload: trace id, flags, then `cpus_and_samples` as given.
std::string TimeShiftPayload(uint32_t flags, const std::string& cpus_and_samples) {
  std::string head(12, '\0');
  PutLe(&head, 0, 0x5eed, 8);
  PutLe(&head, 8, flags, 4);
  return head + cpus_and_samples;
}

std::string Le(uint64_t value, int size) {
  std::string out(size, '\0');
  PutLe(&out, 0, value, size);
  return out;
}

// One CPU's samples (time, offset, scaling) as the option lays them out: the count, then the
// times, the offsets and the scalings.
std::string TimeShiftCpu(const std::vector<std::array<int64_t, 3>>& samples) {
  std::string out = Le(samples.size(), 4);
  for (int field = 0; field < 3; ++field) {
    for (const auto& sample : samples) out += Le(static_cast<uint64_t>(sample[field]), 8);
  }
  return out;
}

// The offset of the u64 link (in a DONE option) to the options section holding the BUFFER
// option of a v7 file, or npos.
size_t V7LinkToBufferOptions(const std::string& bytes) {
  static const std::string kDone("\0\0\x08\0\0\0", 6);  // id 0 (DONE), size 8
  for (size_t at = bytes.find(kDone); at != std::string::npos; at = bytes.find(kDone, at + 1)) {
    if (at + 14 > bytes.size()) break;
    uint64_t section = GetLe(bytes, at + 6, 8);
    if (section == 0 || section + 18 > bytes.size()) continue;
    if (GetLe(bytes, section, 2) == 0 && GetLe(bytes, section + 16, 2) == 3) return at + 6;
  }
  return std::string::npos;
}

// The offset of the header of the compressed v7 section of id `id` (u16 id, u16 flags 1, u32
// string id, u64 size, then u32 compressed and u32 uncompressed sizes), or npos.
size_t V7CompressedSection(const std::string& bytes, uint16_t id) {
  for (size_t at = 0; at + 24 <= bytes.size(); ++at) {
    if (GetLe(bytes, at, 2) == id && GetLe(bytes, at + 2, 2) == 1 &&
        GetLe(bytes, at + 8, 8) == GetLe(bytes, at + 16, 4) + 8 &&
        GetLe(bytes, at + 8, 8) + at + 16 <= bytes.size()) {
      return at;
    }
  }
  return std::string::npos;
}

// The v7 file `v7` with one more options section at its end, holding `options` (each u16 id,
// u32 size, payload) and a DONE option, linked from the DONE option that ended the chain.
std::string WithV7OptionsSection(const std::string& v7, const std::string& options) {
  static const std::string kLastDone("\0\0\x08\0\0\0\0\0\0\0\0\0\0\0", 14);
  size_t done = v7.rfind(kLastDone);
  if (done == std::string::npos) return v7;
  std::string out = v7;
  PutLe(&out, done + 6, out.size(), 8);
  std::string body = options + kLastDone;
  std::string section(16, '\0');  // id 0 (options), flags 0, string id 0, size
  PutLe(&section, 8, body.size(), 8);
  return out + section + body;
}

// A v7 BUFFER option of the top buffer (empty name, clock "local") whose flyrecord section is
// at `section`, listing `cpus` as (cpu, offset, size).
std::string TopBufferOption(uint64_t section, const std::vector<std::array<uint64_t, 3>>& cpus) {
  std::string payload = Le(section, 8) + std::string("\0local\0", 7) + Le(4096, 4) + Le(cpus.size(), 4);
  for (const auto& [cpu, offset, size] : cpus) payload += Le(cpu, 4) + Le(offset, 8) + Le(size, 8);
  return Le(3, 2) + Le(payload.size(), 4) + payload;
}

}  // namespace

std::string SmallTraceDat() { return ReadFile(TestData("scenarios/missed_events_gap.dat")); }

std::vector<CpuPages> FlyrecordTable(const std::string& bytes) {
  static const std::string kLabel("flyrecord\0", 10);
  size_t cpus_at = CpuCountOffset(bytes);
  size_t at = bytes.find(kLabel);
  if (cpus_at == std::string::npos || at == std::string::npos) return {};
  uint64_t cpus = GetLe(bytes, cpus_at, 4);
  std::vector<CpuPages> table;
  for (uint64_t cpu = 0; cpu < cpus && at + 10 + 16 * (cpu + 1) <= bytes.size(); ++cpu) {
    size_t entry = at + 10 + 16 * cpu;
    table.push_back({GetLe(bytes, entry, 8), GetLe(bytes, entry + 8, 8)});
  }
  return table;
}

size_t CpuCountOffset(const std::string& bytes) {
  // The count sits right before the first "options  " or "flyrecord" block label.
  size_t at = std::min(bytes.find(std::string("options  \0", 10)),
                       bytes.find(std::string("flyrecord\0", 10)));
  return at == std::string::npos || at < 4 ? std::string::npos : at - 4;
}

std::vector<HostileFile> MakeHostileFiles(const std::string& dir) {
  const std::string trace = SmallTraceDat();
  std::vector<HostileFile> files;
  auto add = [&](std::string name, const std::string& file, const std::string& content,
                 bool usable, std::string expect) {
    std::string path = dir + "/" + file;
    WriteFile(path, content);
    files.push_back({std::move(name), path, usable, std::move(expect)});
  };

  add("empty file", "empty.dat", "", false, "empty file");
  files.push_back({"a directory", dir, false, "is a directory"});
  std::string fifo = dir + "/fifo.dat";
  mkfifo(fifo.c_str(), 0600);
  files.push_back({"a FIFO", fifo, false, "is a named pipe"});
  add("damaged magic", "magic.dat", Replaced(trace, "tracing6", "tracinX6"), false,
      "magic is damaged");
  add("unsupported file version", "version.dat", Replaced(trace, "tracing6", "tracing8"), false,
      "version '8' is not supported");

  std::string flags = trace;
  flags[12] = 1;  // big endian: every number in the file reads wrong
  add("wrong endianness flag", "big-endian.dat", flags, false, "");
  flags = trace;
  flags[13] = 3;
  add("impossible long size", "long-size-3.dat", flags, false, "long size 3");
  flags = trace;
  flags[13] = 4;  // libtracecmd, and napiscope, take the long size of the kernel's page header
  add("wrong long size", "long-size-4.dat", flags, true,
      "the file header says long size 4 but the kernel's page header has 8-byte longs");

  std::string cpus = trace;
  PutLe(&cpus, CpuCountOffset(cpus), 0xffffffffu, 4);
  add("absurd CPU count", "cpus-huge.dat", cpus, false, "absurd CPU count 4294967295");
  PutLe(&cpus, CpuCountOffset(cpus), 60000, 4);
  add("CPU count past the file", "cpus-60000.dat", cpus, false, "");

  PutLe(&cpus, CpuCountOffset(cpus), 0x80000000u, 4);
  add("CPU count 2^31 in the file header", "cpus-2p31.dat", cpus, false,
      "absurd CPU count 2147483648");
  const std::string v7 = ReadFile(std::string(NAPISCOPE_FUZZ_DIR) +
                                  "/corpus/trace_dat/missed_events_gap-v7.dat");
  std::string cpucount = v7;
  static const std::string kCpuCount("\x08\0\x04\0\0\0\x02\0\0\0", 10);
  for (size_t at = cpucount.find(kCpuCount); at != std::string::npos;
       at = cpucount.find(kCpuCount, at + 1)) {
    PutLe(&cpucount, at + 6, 0x80000000u, 4);
  }
  add("CPU count 2^31 in the CPUCOUNT option, no data for it", "cpucount-2p31.dat", cpucount,
      false, "absurd CPU count 2147483648");
  cpucount = v7;
  for (size_t at = cpucount.find(kCpuCount); at != std::string::npos;
       at = cpucount.find(kCpuCount, at + 1)) {
    PutLe(&cpucount, at + 6, 1000, 4);
  }
  // Version 7 lists the CPUs with data: the other 998 are CPUs without events.
  add("CPU count 1000 in the CPUCOUNT option, data for 2", "cpucount-1000.dat", cpucount, true, "");
  add("4,000 empty CPU extents", "cpus-4000-empty.dat", WithEmptyCpus(trace, 4000), true,
      "the file claims 4000 CPUs but only CPUs below 2 have data; read as 2 CPUs");
  add("65,536 CPUs claimed, 2 with data", "cpus-65536-empty.dat", WithEmptyCpus(trace, 65536),
      true, "the file claims 65536 CPUs but only CPUs below 2 have data; read as 2 CPUs");

  // A CPU table that disagrees with itself (issue 64): read as trace-cmd reads it with a
  // warning, or refused; never fewer events than the file holds without a word.
  static const std::string kV6CpuCount("\x08\0\x04\0\0\0", 6);
  const size_t cpucount_option = trace.find(kV6CpuCount) + kV6CpuCount.size();
  std::string counts = trace;
  PutLe(&counts, CpuCountOffset(counts), 0, 4);
  add("v6 CPU count 0 in the file header, CPUCOUNT 2", "v6-header-cpus-0.dat", counts, true,
      "the file header says 0 CPUs but its CPUCOUNT option 2: the CPU table is read as 2 entries");
  PutLe(&counts, cpucount_option, 0, 4);
  add("v6 CPU count 0 and CPUCOUNT 0 (a trace of 0 CPUs)", "v6-cpus-0.dat", counts, false,
      "the file has 0 CPUs");
  counts = trace;
  PutLe(&counts, cpucount_option, 0, 4);
  add("v6 CPU count 2 in the file header, CPUCOUNT 0", "v6-cpucount-0.dat", counts, true,
      "the file header says 2 CPUs but its CPUCOUNT option 0: the CPU table is read as 2 entries");
  std::string zero_table = trace;
  const size_t fly_table = trace.find(std::string("flyrecord\0", 10)) + 10;
  for (int i = 0; i < 32; ++i) zero_table[fly_table + i] = '\0';
  add("v6 CPU table of zeros (a killed writer)", "v6-zero-cpu-table.dat", zero_table, false,
      "no CPU has data by the file's CPU table, but 16384 bytes of ring-buffer data at byte "
      "16384 belong to none");
  std::string page_8192 = trace;
  PutLe(&page_8192, 14, 8192, 4);
  add("header page size 8192, header_page 4096", "page-size-8192.dat", page_8192, false,
      "the file header says 8192-byte pages but the kernel's header_page describes 4096-byte "
      "pages");
  const size_t v7_table = V7CpuTableOffset(v7);  // CPU 0 (16384, 8192), CPU 1 (24576, 8192)
  if (v7_table != std::string::npos) {
    std::string listed = v7;
    PutLe(&listed, v7_table - 4, 0, 4);
    add("v7 BUFFER option with CPU count 0", "v7-buffer-cpus-0.dat", listed, false,
        "no CPU has data by the file's CPU table, but 16384 bytes of ring-buffer data at byte "
        "16384 belong to none");
    PutLe(&listed, v7_table - 4, 1, 4);
    add("v7 BUFFER option counting 1 of its 2 CPUs", "v7-buffer-cpus-1-of-2.dat", listed, true,
        "8192 bytes of ring-buffer data at byte 24576 belong to no CPU of the file's CPU table");
    listed = v7;
    PutLe(&listed, v7_table + 20, 0, 4);
    add("v7 CPU table listing CPU 0 twice", "v7-cpu-0-twice.dat", listed, false,
        "the CPU table of the top buffer lists CPU 0 twice");
    add("a second BUFFER option for the top buffer", "v7-top-buffer-twice.dat",
        WithV7OptionsSection(v7, TopBufferOption(GetLe(v7, v7_table - 23, 8),
                                                 {{0, 16384, 8192}})),
        false, "two BUFFER options list the CPU data of the top buffer");
  }

  std::vector<CpuPages> table = FlyrecordTable(trace);
  std::string huge_page = trace;
  PutLe(&huge_page, 14, 16u << 20, 4);  // the page size, after magic, version and flags
  add("16 MiB page size (pages larger than the data)", "page-16mib.dat", huge_page, false,
      "less than one 16777216-byte page");
  // A format field near INT_MAX: next_pid of sched_switch at offset 2147483644 (offset + size
  // overflows an int). The print fmt gives up the 8 bytes, so every size in the file holds.
  std::string field = Replaced(trace, "next_pid;\toffset:56;", "next_pid;\toffset:2147483644;");
  field = Replaced(field, "print fmt: \"prev_comm=%s prev_pid", "print fmt: \"%s   prev_pid");
  add("format field offset near INT_MAX", "field-offset-intmax.dat", field, false,
      "corrupt event format: field next_pid of sched:sched_switch (offset 2147483644, size 4)");
  field = Replaced(trace, "next_pid;\toffset:56;\tsize:4;",
                   "next_pid;\toffset:56;\tsize:2147483647;");
  field = Replaced(field, "print fmt: \"prev_comm=%s prev_pid=%d", "print fmt: \"%s  prev_pid=%d");
  add("format field size near INT_MAX", "field-size-intmax.dat", field, false,
      "(offset 56, size 2147483647) lies outside a 4096-byte page");

  std::string size_zero = trace;  // CPU 0's size in the flyrecord table (after its offset)
  PutLe(&size_zero, trace.find(std::string("flyrecord\0", 10)) + 10 + 8, 0, 8);
  add("CPU extent of size 0 (data left unclaimed)", "extent-size-0.dat", size_zero, true,
      "CPU 0 has no data by the file's CPU table, but");

  // One TIME_EXTEND (or page timestamp) 18 years off: CPU 1's events jump 18 years ahead.
  std::string jump = trace;
  if (table.size() >= 2) {
    uint64_t first = GetLe(jump, table[1].offset, 8);
    PutLe(&jump, table[1].offset, first + 18ull * 365 * 86400 * 1'000'000'000ull, 8);
  }
  add("a jump of 18 years in time (page timestamp or TIME_EXTEND)", "jump-18y.dat", jump, true,
      "time jumps forward implausibly (1 jump, the largest 18.0 years");

  // v7 zstd (idle.dat): a chunk shared by two CPUs, a chunk count of 0, a zeroed link.
  const std::string zstd = ReadFile(TestData("real/idle.dat"));
  size_t cpu_table = V7CpuTableOffset(zstd);
  if (cpu_table != std::string::npos) {
    std::string shared = zstd;
    shared.replace(cpu_table + 20 + 4, 16, zstd.substr(cpu_table + 4, 16));  // CPU 1 = CPU 0
    add("one zstd chunk shared by two CPUs", "zstd-shared-chunk.dat", shared, false,
        "the data of CPU 0 and CPU 1 overlap");
    std::string no_chunks = zstd;
    PutLe(&no_chunks, GetLe(zstd, cpu_table + 4, 8), 0, 4);
    add("zstd chunk count 0", "zstd-chunk-count-0.dat", no_chunks, false,
        "CPU 0: its chunk count (0 read) leaves bytes");
    std::string one_of_two = zstd;  // 595 of its 780 events read, without a word
    PutLe(&one_of_two, cpu_table - 4, 1, 4);
    add("v7 zstd BUFFER option counting 1 of its 2 CPUs", "zstd-buffer-cpus-1-of-2.dat",
        one_of_two, true, "1138 bytes of ring-buffer data at byte 1146880 belong to no CPU");
  }
  size_t link = V7LinkToBufferOptions(zstd);
  if (link != std::string::npos) {
    std::string unlinked = zstd;
    PutLe(&unlinked, link, 0, 8);
    add("zeroed options link (v7)", "options-link-0.dat", unlinked, false,
        "is linked from no other (damaged options link)");
  }

  // A compressed section (the event formats, 13 KB) claiming 256 MiB uncompressed: that much
  // was allocated before the data failed to decompress (263 MB for a 134 KB file).
  const std::string small_zstd = ReadFile(std::string(NAPISCOPE_FUZZ_DIR) +
                                          "/corpus/trace_dat/ksoftirqd_blocked-v7-zstd.dat");
  size_t formats = V7CompressedSection(small_zstd, 18);
  if (formats != std::string::npos) {
    std::string claim = small_zstd;
    PutLe(&claim, formats + 20, 256u << 20, 4);
    add("a compressed section claiming 256 MiB", "zstd-section-256mib.dat", claim, false,
        "claims 268435456 uncompressed bytes, but that is more than 256 times its 1659 "
        "compressed bytes");
  }

  // ftrace text: an RT thread woken before a jump in time and switched in after it.
  auto text_trace = [](const std::string& wake_ts, const std::string& switch_ts) {
    return "# tracer: nop\n#\n#           TASK-PID     CPU#  |||||  TIMESTAMP  FUNCTION\n"
           "#              | |         |   |||||     |         |\n"
           "          <idle>-0       [001] d.h2.   " + wake_ts +
           ": sched_waking: comm=irq/354-eth0 pid=181 prio=49 target_cpu=000\n"
           "          <idle>-0       [000] d..2.   " + switch_ts +
           ": sched_switch: prev_comm=swapper/0 prev_pid=0 prev_prio=120 prev_state=R ==> "
           "next_comm=irq/354-eth0 next_pid=181 next_prio=49\n";
  };
  add("text timestamps from 0 to 2^63 ns", "text-ts-2p63.txt",
      text_trace("0.000000", "9223372036.854775"), true,
      "1 line was not understood and skipped");
  add("text timestamp past 2^62 ns", "text-ts-2p62.txt",
      text_trace("0.000000", "4700000000.000000"), true,
      "1 events with impossible timestamps (over 146 years) skipped");
  std::string names_on_high_cpu =
      "# tracer: nop\n          <idle>-0       [65535] d.h2.   100.000000: first_event: x=1\n";
  for (int i = 0; i < 2000; ++i) {
    names_on_high_cpu += absl::StrFormat(
        "          <idle>-0       [000] d.h2.   100.%06d: event_%d: x=1\n", i + 1, i);
  }
  add("text: one line on CPU 65535, then 2000 event names", "text-names-cpu-65535.txt",
      names_on_high_cpu, true, "cpus:     65536, events: 2001");
  add("text with a jump of 10 years in time", "text-jump-10y.txt",
      text_trace("1000.000000", "315361000.000000"), true,
      "time jumps forward implausibly (1 jump, the largest 10.0 years");

  // TIME_SHIFT (a guest's clock samples against its host's, per CPU): counts the option cannot
  // hold, arrays cut short and impossible samples are errors; CPUs that do not match the
  // trace's are said.
  constexpr uint16_t kTimeShift = 12;
  const std::string sample = TimeShiftCpu({{0, 1000, 1}});
  add("TIME_SHIFT CPU count 2^31", "timeshift-cpus-2p31.dat",
      WithV6Option(trace, kTimeShift, TimeShiftPayload(1, Le(0x80000000u, 4) + sample)), false,
      "corrupt TIME_SHIFT option: it claims 2147483648 CPUs but has 28 bytes");
  add("TIME_SHIFT sample count 2^31", "timeshift-samples-2p31.dat",
      WithV6Option(trace, kTimeShift,
                   TimeShiftPayload(1, Le(1, 4) + Le(0x80000000u, 4) + sample.substr(4))),
      false, "CPU 0 claims 2147483648 samples but only 24 bytes are left (truncated arrays)");
  add("TIME_SHIFT arrays truncated", "timeshift-truncated.dat",
      WithV6Option(trace, kTimeShift,
                   TimeShiftPayload(1, Le(2, 4) + sample + TimeShiftCpu({{0, 1, 1}, {9, 2, 1}})
                                           .substr(0, 4 + 40))),
      false, "CPU 1 claims 2 samples but only 40 bytes are left (truncated arrays)");
  add("TIME_SHIFT zero scaling", "timeshift-scaling-0.dat",
      WithV6Option(trace, kTimeShift,
                   TimeShiftPayload(1, Le(1, 4) + TimeShiftCpu({{0, 1, 1}, {9, 2, 0}}))),
      false, "CPU 0 sample 1 has scaling 0 (at least 1)");
  add("TIME_SHIFT for 1 CPU of a 2-CPU trace", "timeshift-1-of-2-cpus.dat",
      WithV6Option(trace, kTimeShift, TimeShiftPayload(1, Le(1, 4) + sample)), true,
      "the TIME_SHIFT option has no samples for 1 CPU with data (1)");
  std::string forty_cpus = Le(40, 4) + sample + sample;
  for (int cpu = 2; cpu < 40; ++cpu) forty_cpus += Le(0, 4);
  add("TIME_SHIFT for 40 CPUs of a 2-CPU trace", "timeshift-40-of-2-cpus.dat",
      WithV6Option(trace, kTimeShift, TimeShiftPayload(0, forty_cpus)), true,
      "the TIME_SHIFT option has samples for 40 CPUs but the trace has 2");

  add("TIME_SHIFT scaling no clock has (2^40)", "timeshift-scaling-2p40.dat",
      WithV6Option(trace, kTimeShift,
                   TimeShiftPayload(1, Le(1, 4) + TimeShiftCpu({{0, 1, int64_t{1} << 40},
                                                                {9, 2, int64_t{1} << 40}}))),
      false, "CPU 0 sample 0 scales the guest's clock by 1099511627776 >> 0");
  // mult 2^32 - 1, shift 0: one tick 4.29 s, a 109 us trace 5.3 days.
  constexpr uint16_t kTsc2Nsec = 14;
  add("TSC2NSEC scaling no clock has", "tsc2nsec-implausible.dat",
      WithV6Option(trace, kTsc2Nsec, Le(0xffffffffu, 4) + Le(0, 4) + Le(0, 8)), false,
      "TSC2NSEC option (mult 4294967295, shift 0) makes one clock tick 4.29e+09 ns");

  add("truncated in the CPU data", "truncated.dat",
      trace.substr(0, table.empty() ? trace.size() / 2 : table.back().offset + 100), false,
      "truncated trace.dat");

  // net_dev_xmit (ID 2306) is 2 of the 13 records, sched_switch (372), the softirq (221-223)
  // and hard-IRQ (224, 225) events the rest: a format with another ID leaves them unknown.
  add("unknown event ids (a few records)", "unknown-ids-few.dat",
      Replaced(trace, "ID: 2306\n", "ID: 9306\n"), true,
      "2 records with unknown event ids skipped");
  std::string many = trace;
  for (const char* id : {"372", "221", "222", "223", "225", "224"}) {
    many = Replaced(many, std::string("ID: ") + id + "\n", std::string("ID: 9") + (id + 1) + "\n");
  }
  add("unknown event ids (most records)", "unknown-ids-most.dat", many, false,
      "11 of 13 records have unknown event ids");
  add("missing event format (sched_switch)", "no-sched-switch-format.dat",
      Replaced(trace, "name: sched_switch\n", "name: sched_swXtch\n"), true,
      "needs sched:sched_switch");

  // CPU 0's second page starts one second before its first: time runs backwards there.
  std::string backwards = trace;
  if (!table.empty() && table[0].size >= 8192) {
    uint64_t first = GetLe(backwards, table[0].offset, 8);
    PutLe(&backwards, table[0].offset + 4096, first - 1'000'000'000, 8);
  }
  add("timestamps going backwards", "backwards.dat", backwards, true, "timestamps earlier");

  // CPU 0's first record (after the 16-byte page header) made a padding record of length -4,
  // which points at itself (kbuffer and libtracecmd loop on it forever), then a data record
  // whose length word claims 2 GiB.
  if (!table.empty()) {
    const size_t record = table[0].offset + 16;
    std::string looping = trace;
    PutLe(&looping, record, (1u << 5) | 29u, 4);  // time delta 1, type 29 (padding)
    PutLe(&looping, record + 4, 0xfffffffcu, 4);
    add("a padding record whose length points back at itself", "padding-loop.dat", looping,
        false, "has a record (page byte 16) whose length points backwards (corrupt page)");
    std::string long_record = trace;
    PutLe(&long_record, record, 1u << 5, 4);  // type 0: the length is in the next word
    PutLe(&long_record, record + 4, 0x7ffffff0u, 4);
    add("a data record longer than its page", "record-2gib.dat", long_record, false,
        "has a record (page byte 16) whose length runs past the page's data (corrupt page)");
  }

  // 10 GB of zeros, and the trace followed by 10 GB of zeros: sparse, so nothing is written.
  std::string zeros = dir + "/zeros-10g.dat";
  WriteFile(zeros, "");
  std::filesystem::resize_file(zeros, 10ull << 30);
  files.push_back({"10 GB sparse file of zeros", zeros, false, "not a trace"});
  std::string tail = dir + "/trace-then-10g-zeros.dat";
  WriteFile(tail, trace);
  std::filesystem::resize_file(tail, 10ull << 30);
  files.push_back({"trace.dat followed by 10 GB of zeros", tail, true, ""});
  return files;
}

}  // namespace napiscope::testing
