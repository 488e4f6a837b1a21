#include "support/hostile_files.h"

#include <sys/stat.h>

#include <cstring>
#include <filesystem>

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
  files.push_back({"a FIFO", fifo, false, "not a regular file"});
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

  std::vector<CpuPages> table = FlyrecordTable(trace);
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
