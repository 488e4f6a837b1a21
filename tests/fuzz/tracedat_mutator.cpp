#include "fuzz/tracedat_mutator.h"

#include <algorithm>
#include <random>

namespace napiscope::fuzz {
namespace {

const std::string kMagic("\x17\x08\x44tracing", 10);

uint64_t GetLe(const std::string& bytes, size_t offset, int width) {
  uint64_t value = 0;
  for (int i = 0; i < width; ++i) {
    value |= static_cast<uint64_t>(static_cast<uint8_t>(bytes[offset + i])) << (8 * i);
  }
  return value;
}

void PutLe(std::string* bytes, size_t offset, uint64_t value, int width) {
  for (int i = 0; i < width; ++i) (*bytes)[offset + i] = static_cast<char>(value >> (8 * i));
}

class FieldFinder {
 public:
  explicit FieldFinder(const std::string& file) : file_(file) {}

  std::vector<TraceDatField> Find() {
    if (file_.size() < 18 || file_.compare(0, kMagic.size(), kMagic) != 0) return {};
    Add(12, 1);  // endianness
    Add(13, 1);  // long size
    Add(14, 4);  // page size
    page_size_ = GetLe(file_, 14, 4);
    compressed_ = file_.find(std::string("zstd\0", 5)) < 64;
    FindV6Table();
    FindV7Buffer();
    FindPattern(std::string("\x08\0\x04\0\0\0", 6), 4);  // CPUCOUNT option value
    FindPattern(std::string("\0\0\x08\0\0\0", 6), 8);    // DONE option: link to the next
    for (const char* key : {"offset:", "size:", "ID: "}) FindNumbers(key);
    FindTimeShift();
    return fields_;
  }

 private:
  void Add(size_t offset, int width) {
    if (offset + static_cast<size_t>(width) <= file_.size()) fields_.push_back({offset, width, 0});
  }

  // The pages (or the chunk headers) of a CPU's data.
  void AddExtent(uint64_t offset, uint64_t size) {
    if (offset >= file_.size() || size == 0) return;
    uint64_t end = std::min<uint64_t>(file_.size(), offset + size);
    if (compressed_) {
      Add(offset, 4);      // chunk count
      Add(offset + 4, 4);  // compressed size
      Add(offset + 8, 4);  // uncompressed size
      return;
    }
    if (page_size_ < 64 || page_size_ > (1u << 24)) return;
    for (uint64_t page = offset; page + 24 <= end && fields_.size() < 4096; page += page_size_) {
      Add(page, 8);       // timestamp
      Add(page + 8, 8);   // commit and flags
      Add(page + 16, 4);  // first record header: type_len and time delta
      Add(page + 20, 4);  // its first word (a TIME_EXTEND's high bits, a length)
    }
  }

  void FindV6Table() {
    static const std::string kLabel("flyrecord\0", 10);
    size_t options = file_.find(std::string("options  \0", 10));
    size_t fly = file_.find(kLabel);
    size_t count_at = std::min(options, fly);
    if (count_at == std::string::npos || count_at < 4 || fly == std::string::npos) return;
    Add(count_at - 4, 4);
    uint64_t cpus = GetLe(file_, count_at - 4, 4);
    for (uint64_t cpu = 0; cpu < std::min<uint64_t>(cpus, 64); ++cpu) {
      size_t entry = fly + 10 + 16 * cpu;
      if (entry + 16 > file_.size()) break;
      Add(entry, 8);
      Add(entry + 8, 8);
      AddExtent(GetLe(file_, entry, 8), GetLe(file_, entry + 8, 8));
    }
  }

  void FindV7Buffer() {
    static const std::string kTopLocal("\0local\0", 7);
    size_t at = file_.rfind(kTopLocal);
    if (at == std::string::npos || at + 7 + 8 > file_.size()) return;
    size_t count_at = at + 7 + 4;
    Add(at + 7, 4);  // the buffer's page size
    Add(count_at, 4);
    uint64_t cpus = GetLe(file_, count_at, 4);
    for (uint64_t cpu = 0; cpu < std::min<uint64_t>(cpus, 64); ++cpu) {
      size_t entry = count_at + 4 + 20 * cpu;
      if (entry + 20 > file_.size()) break;
      Add(entry, 4);
      Add(entry + 4, 8);
      Add(entry + 12, 8);
      AddExtent(GetLe(file_, entry + 4, 8), GetLe(file_, entry + 12, 8));
    }
  }

  // A TIME_SHIFT option (id 12, at least 16 bytes): its CPU count, each CPU's sample count,
  // and each sample's time, offset and scaling, then the fractions.
  void FindTimeShift() {
    static const std::string kId("\x0c\0", 2);
    for (size_t at = file_.find(kId); at != std::string::npos && fields_.size() < 8192;
         at = file_.find(kId, at + 1)) {
      if (at + 6 + 16 > file_.size()) break;
      const uint64_t size = GetLe(file_, at + 2, 4);
      const uint64_t cpus = GetLe(file_, at + 6 + 12, 4);
      if (size < 16 || size > file_.size() - at - 6 || cpus == 0 || cpus > (size - 16) / 4) {
        continue;
      }
      const size_t end = at + 6 + size;
      size_t pos = at + 6 + 16;
      Add(at + 6 + 8, 4);   // flags
      Add(at + 6 + 12, 4);  // CPU count
      for (uint64_t cpu = 0; cpu < cpus && pos + 4 <= end; ++cpu) {
        const uint64_t count = GetLe(file_, pos, 4);
        Add(pos, 4);
        pos += 4;
        if (count > (end - pos) / 24) break;
        for (uint64_t field = 0; field < 3 * count; ++field) Add(pos + 8 * field, 8);
        pos += 24 * count;
      }
      for (; pos + 8 <= end && fields_.size() < 8192; pos += 8) Add(pos, 8);  // fractions
    }
  }

  void FindPattern(const std::string& pattern, int width) {
    for (size_t at = file_.find(pattern); at != std::string::npos && fields_.size() < 8192;
         at = file_.find(pattern, at + 1)) {
      Add(at + pattern.size(), width);
    }
  }

  void FindNumbers(const std::string& key) {
    for (size_t at = file_.find(key); at != std::string::npos && fields_.size() < 8192;
         at = file_.find(key, at + 1)) {
      size_t start = at + key.size(), end = start;
      while (end < file_.size() && end - start < 20 && file_[end] >= '0' && file_[end] <= '9') {
        ++end;
      }
      if (end > start) fields_.push_back({start, 0, end - start});
    }
  }

  const std::string& file_;
  std::vector<TraceDatField> fields_;
  uint64_t page_size_ = 0;
  bool compressed_ = false;
};

// A value that breaks naive arithmetic on a field that held `old`.
uint64_t HostileValue(std::mt19937_64& random, uint64_t old, uint64_t page_size, int width) {
  constexpr uint64_t kYearNs = 365ull * 86400 * 1'000'000'000;
  const uint64_t values[] = {0,
                             1,
                             old + 1,
                             old - 1,
                             old * 2,
                             old + page_size,
                             old + 18 * kYearNs,
                             (1ull << 31) - 1,
                             1ull << 31,
                             (1ull << 32) - 1,
                             1ull << 16,
                             65536 + 1,
                             1ull << 24,
                             1ull << 62,
                             1ull << 63,
                             ~0ull,
                             random()};
  uint64_t value = values[random() % (sizeof(values) / sizeof(values[0]))];
  return width >= 8 ? value : value & ((1ull << (8 * width)) - 1);
}

void Append(std::string* out, uint64_t value, int width) {
  for (int i = 0; i < width; ++i) out->push_back(static_cast<char>(value >> (8 * i)));
}

// A TIME_SHIFT payload: mostly plausible samples (so the correction itself runs), with one
// thing made hostile half of the time.
std::string TimeShiftPayload(std::mt19937_64& random, uint64_t cpus_in_trace) {
  const uint64_t cpus = 1 + random() % (cpus_in_trace + 2);
  std::string out;
  Append(&out, random(), 8);     // host trace id
  Append(&out, random() % 4, 4);  // flags: interpolate or not
  Append(&out, cpus, 4);
  uint64_t samples_total = 0;
  for (uint64_t cpu = 0; cpu < cpus; ++cpu) {
    const uint64_t count = random() % 4;
    Append(&out, count, 4);
    const int64_t start = static_cast<int64_t>(random() % 20'000'000'000ull);
    for (uint64_t i = 0; i < count; ++i) Append(&out, start + i * 1'000'000, 8);
    for (uint64_t i = 0; i < count; ++i) {
      const int64_t offset = static_cast<int64_t>(random() % 2'000'000) - 1'000'000;
      Append(&out, static_cast<uint64_t>(offset), 8);
    }
    for (uint64_t i = 0; i < count; ++i) Append(&out, 1 + random() % 3, 8);
    samples_total += count;
  }
  for (uint64_t i = 0; i < samples_total; ++i) Append(&out, random() % 2, 8);
  switch (random() % 8) {
    case 0: {  // a CPU count of 2^31 (or 2^32-1)
      const uint32_t count = random() % 2 ? 0x80000000u : ~0u;
      for (int i = 0; i < 4; ++i) out[12 + i] = static_cast<char>(count >> (8 * i));
      break;
    }
    case 1:  // arrays cut short
      out.resize(16 + random() % (out.size() - 15));
      break;
    case 2:  // a zero (or all-ones) word somewhere after the CPU count: a count, a time, an
             // offset, a scaling or a fraction
      if (out.size() >= 24) {
        const size_t at = 16 + (random() % ((out.size() - 16) / 8)) * 8;
        const uint64_t value = random() % 2 ? 0 : ~0ull;
        for (size_t i = 0; i < 8 && at + i < out.size(); ++i) {
          out[at + i] = static_cast<char>(value >> (8 * i));
        }
      }
      break;
    default:
      break;
  }
  return out;
}

// Inserts option `id` with `payload` first in the options of the v6 trace.dat `file`: the
// zeros that pad the header to a page give the room, else the data moves with its table.
bool InsertV6Option(std::string* file, uint16_t id, const std::string& payload) {
  static const std::string kOptions("options  \0", 10);
  static const std::string kLabel("flyrecord\0", 10);
  if (file->size() < 18 || file->compare(0, kMagic.size(), kMagic) != 0 || (*file)[10] != '6') {
    return false;
  }
  const size_t options = file->find(kOptions);
  const size_t fly = file->find(kLabel);
  if (options == std::string::npos || fly == std::string::npos || options < 4 || fly < options) {
    return false;
  }
  const uint64_t cpus = GetLe(*file, options - 4, 4);
  if (cpus == 0 || cpus > 4096 || fly + 10 + 16 * cpus > file->size()) return false;
  std::string option;
  Append(&option, id, 2);
  Append(&option, payload.size(), 4);
  option += payload;
  const size_t table = fly + 10, table_end = table + 16 * cpus;
  uint64_t first_data = file->size();
  for (uint64_t cpu = 0; cpu < cpus; ++cpu) {
    if (GetLe(*file, table + 16 * cpu + 8, 8) > 0) {
      first_data = std::min<uint64_t>(first_data, GetLe(*file, table + 16 * cpu, 8));
    }
  }
  const bool padding_fits = first_data >= table_end + option.size() &&
                            file->find_first_not_of('\0', table_end) >= table_end + option.size();
  file->insert(options + 10, option);
  if (padding_fits) {
    file->erase(table_end + option.size(), option.size());
    return true;
  }
  for (uint64_t cpu = 0; cpu < cpus; ++cpu) {
    size_t entry = table + option.size() + 16 * cpu;
    if (GetLe(*file, entry + 8, 8) > 0) {
      PutLe(file, entry, GetLe(*file, entry, 8) + option.size(), 8);
    }
  }
  return true;
}

// Where the v7 top buffer's BUFFER option lists its CPUs: the offset of its CPU count (after
// the section offset, the empty name, the clock "local" and the page size), or npos.
size_t V7TopBufferCount(const std::string& file) {
  static const std::string kTopLocal("\0local\0", 7);
  const size_t at = file.rfind(kTopLocal);
  if (at == std::string::npos || at < 8 || at + 7 + 8 > file.size()) return std::string::npos;
  return at + 7 + 4;
}

// Appends to the v7 `file` an options section holding a second BUFFER option of the top
// buffer (its section at `section`, the first `cpus` entries of the one at `count_at`), linked
// from the DONE option that ended the chain.
bool AppendSecondTopBuffer(std::string* file, size_t count_at, uint64_t cpus) {
  static const std::string kLastDone("\0\0\x08\0\0\0\0\0\0\0\0\0\0\0", 14);
  const size_t done = file->rfind(kLastDone);
  const size_t entries = count_at + 4;
  if (done == std::string::npos || entries + 20 * cpus > file->size()) return false;
  std::string payload = file->substr(count_at - 4 - 7 - 8, 8 + 7 + 4);  // section, "", clock, page
  Append(&payload, cpus, 4);
  payload += file->substr(entries, 20 * cpus);
  std::string body;
  Append(&body, 3, 2);  // BUFFER
  Append(&body, payload.size(), 4);
  body += payload + kLastDone;
  std::string section;
  Append(&section, 0, 8);  // options section, flags 0, string id 0
  Append(&section, body.size(), 8);
  PutLe(file, done + 6, file->size(), 8);
  *file += section + body;
  return true;
}

}  // namespace

bool InsertTimeShiftOption(std::string* file, uint64_t seed) {
  if (file->size() < 18 || file->compare(0, kMagic.size(), kMagic) != 0 || (*file)[10] != '6') {
    return false;
  }
  const size_t options = file->find(std::string("options  \0", 10));
  if (options == std::string::npos || options < 4) return false;
  const uint64_t cpus = GetLe(*file, options - 4, 4);
  if (cpus == 0 || cpus > 4096) return false;
  std::mt19937_64 random(seed);
  return InsertV6Option(file, 12, TimeShiftPayload(random, cpus));
}

bool MutateCpuTableOptions(std::string* file, uint64_t seed) {
  if (file->size() < 18 || file->compare(0, kMagic.size(), kMagic) != 0) return false;
  std::mt19937_64 random(seed);
  const bool v6 = (*file)[10] == '6';
  static const std::string kCpuCount("\x08\0\x04\0\0\0", 6);
  std::vector<size_t> counts;  // u32 CPU counts: the v6 header's, CPUCOUNT options', v7 BUFFER's
  if (v6) {
    size_t at = std::min(file->find(std::string("options  \0", 10)),
                         file->find(std::string("flyrecord\0", 10)));
    if (at != std::string::npos && at >= 4) counts.push_back(at - 4);
  }
  for (size_t at = file->find(kCpuCount); at != std::string::npos && at + 10 <= file->size();
       at = file->find(kCpuCount, at + 1)) {
    counts.push_back(at + 6);
  }
  const size_t buffer_count = v6 ? std::string::npos : V7TopBufferCount(*file);
  if (buffer_count != std::string::npos) counts.push_back(buffer_count);
  switch (random() % 6) {
    case 0:
    case 1: {  // a CPU count made 0, one less, one more or twice
      if (counts.empty()) return false;
      const size_t at = counts[random() % counts.size()];
      const uint64_t old = GetLe(*file, at, 4);
      const uint64_t values[] = {0, old - 1, old + 1, old * 2};
      PutLe(file, at, values[random() % 4] & 0xffffffffu, 4);
      return true;
    }
    case 2: {  // v7: one CPU listed twice, or a second BUFFER option for the top buffer
      if (buffer_count == std::string::npos) return false;
      const uint64_t cpus = std::min<uint64_t>(GetLe(*file, buffer_count, 4), 64);
      if (cpus == 0 || buffer_count + 4 + 20 * cpus > file->size()) return false;
      if (cpus >= 2 && random() % 2 == 0) {
        const uint64_t from = random() % cpus, to = random() % cpus;
        PutLe(file, buffer_count + 4 + 20 * to, GetLe(*file, buffer_count + 4 + 20 * from, 4), 4);
        return true;
      }
      return AppendSecondTopBuffer(file, buffer_count, random() % (cpus + 1));
    }
    case 3: {  // v7: the table's entries zeroed, or v6's (a writer killed before writing it)
      const size_t fly = file->find(std::string("flyrecord\0", 10));
      if (v6 && fly != std::string::npos && !counts.empty()) {
        const uint64_t cpus = std::min<uint64_t>(GetLe(*file, counts[0], 4), 64);
        for (size_t i = fly + 10; i < fly + 10 + 16 * cpus && i < file->size(); ++i) (*file)[i] = 0;
        return true;
      }
      if (buffer_count == std::string::npos) return false;
      const uint64_t cpus = std::min<uint64_t>(GetLe(*file, buffer_count, 4), 64);
      for (size_t i = buffer_count + 4; i < buffer_count + 4 + 20 * cpus && i < file->size(); ++i) {
        (*file)[i] = 0;
      }
      return true;
    }
    case 4: {  // the header's page size doubled or halved (its header_page says otherwise)
      const uint64_t page = GetLe(*file, 14, 4);
      PutLe(file, 14, (random() % 2 ? page * 2 : page / 2) & 0xffffffffu, 4);
      return true;
    }
    default: {  // v6: a TSC2NSEC option, a clock's scaling or one no clock has
      static const uint32_t kMults[] = {0x55555555u, 1000, 1, 0xffffffffu, 0};
      std::string payload;
      Append(&payload, kMults[random() % 5], 4);
      Append(&payload, random() % 3 == 0 ? random() % 64 : 32, 4);
      Append(&payload, 0, 8);
      return InsertV6Option(file, 14, payload);
    }
  }
}

std::vector<TraceDatField> FindTraceDatFields(const std::string& file) {
  return FieldFinder(file).Find();
}

bool MutateTraceDatField(std::string* file, uint64_t seed) {
  if (seed % 8 == 7 && InsertTimeShiftOption(file, seed)) return true;
  if (seed % 8 == 6 && MutateCpuTableOptions(file, seed / 8)) return true;
  std::vector<TraceDatField> fields = FindTraceDatFields(*file);
  if (fields.empty()) return false;
  std::mt19937_64 random(seed);
  const TraceDatField& field = fields[random() % fields.size()];
  uint64_t page_size = file->size() >= 18 ? GetLe(*file, 14, 4) : 4096;
  if (field.width == 0) {
    // Format text: digits near INT_MAX, in place (the text keeps its length) or longer.
    static const char* const kNumbers[] = {"2147483647", "2147483644", "4294967295", "65535",
                                           "0",          "9999999999999999999"};
    std::string number = kNumbers[random() % (sizeof(kNumbers) / sizeof(kNumbers[0]))];
    if (random() % 2 == 0) number.resize(std::min(number.size(), field.digits), '9');
    file->replace(field.offset, field.digits, number);
    return true;
  }
  uint64_t old = GetLe(*file, field.offset, field.width);
  PutLe(file, field.offset, HostileValue(random, old, page_size, field.width), field.width);
  return true;
}

}  // namespace napiscope::fuzz
