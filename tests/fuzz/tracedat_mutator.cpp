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

}  // namespace

std::vector<TraceDatField> FindTraceDatFields(const std::string& file) {
  return FieldFinder(file).Find();
}

bool MutateTraceDatField(std::string* file, uint64_t seed) {
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
