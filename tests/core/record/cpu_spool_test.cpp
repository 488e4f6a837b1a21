// `record`'s spools on a small file system (docs/robustness.md, "Recording under faults"):
// writing the trace needs little more room than the trace itself, and a full disk is an error
// naming the file. Needs root (it mounts a tmpfs of a given size); skipped otherwise.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <string>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "napiscope/tracedat_writer.h"
#include "record/cpu_spool.h"
#include "support/test_support.h"
#include "tracegen/format_catalog.h"

namespace napiscope {
namespace {

using ::testing::HasSubstr;

constexpr size_t kPage = 4096;

// A tmpfs of `size` (mount's syntax, "6m") on a fresh directory, unmounted at the end.
class SmallFileSystem : public ::testing::Test {
 protected:
  void Mount(const std::string& size) {
    if (geteuid() != 0) GTEST_SKIP() << "mounting a small tmpfs needs root";
    dir_ = testing::MakeTempDir();
    auto mounted = testing::RunCommand("mount -t tmpfs -o size=" + size + " napiscope-test " + dir_);
    if (mounted.exit_code != 0) GTEST_SKIP() << "cannot mount a tmpfs: " << mounted.err;
    mounted_ = true;
  }
  void TearDown() override {
    // Lazily: a failed assertion may leave the spool open, and a busy tmpfs must still go.
    if (mounted_) testing::RunCommand("umount -l " + dir_);
  }
  // An unlinked spool file in the small file system.
  int OpenSpool() {
    std::string name = dir_ + "/spool";
    int fd = open(name.c_str(), O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
    unlink(name.c_str());
    return fd;
  }
  std::string dir_;
  bool mounted_ = false;
};

// Empty ring-buffer pages (time 0, commit 0) whose unused bytes say which page they are.
std::string Pages(size_t count) {
  std::string pages;
  for (size_t i = 0; i < count; ++i) {
    std::string page(kPage, static_cast<char>('a' + i % 26));
    page.replace(0, 16, 16, '\0');
    pages += page;
  }
  return pages;
}

TraceDatHeader OneCpuHeader() {
  const tracegen::FormatCatalog& catalog = tracegen::FormatCatalog::Embedded();
  TraceDatHeader header;
  header.cpus = 1;
  header.header_page = catalog.header_page();
  header.header_event = catalog.header_event();
  return header;
}

// 4 MiB of spooled pages become a 4 MiB trace on a 6 MiB file system: the spool gives its
// blocks back as they are copied (without that, spool and trace need 8 MiB).
TEST_F(SmallFileSystem, TheTraceNeedsLittleMoreRoomThanItself) {
  Mount("6m");
  internal::CpuSpool spool;
  spool.fd = OpenSpool();
  ASSERT_GE(spool.fd, 0);
  const std::string pages = Pages(1024);
  spool.pending = pages;
  ASSERT_TRUE(internal::FlushSpool("out.dat", &spool).ok());
  std::string path = dir_ + "/trace.dat";
  TraceDatFileWriter writer;
  ASSERT_TRUE(writer.Open(path, OneCpuHeader()).ok());
  ASSERT_TRUE(writer.BeginCpu(0).ok());
  absl::Status copied = internal::CopySpoolInto("out.dat", &spool, &writer, kPage);
  EXPECT_TRUE(copied.ok()) << copied;
  ASSERT_TRUE(writer.EndCpu().ok());
  absl::Status closed = writer.Close();
  ASSERT_TRUE(closed.ok()) << closed;
  close(spool.fd);
  std::string file = testing::ReadFile(path);
  ASSERT_EQ(file.size(), writer.bytes());
  ASSERT_GT(file.size(), pages.size());
  EXPECT_EQ(file.substr(file.size() - pages.size()), pages) << "the pages were not copied whole";
  EXPECT_EQ((file.size() - pages.size()) % kPage, 0u) << "the CPU data starts on a page";
}

// A spool that does not fit: an error naming the file and the cause, not a crash.
TEST_F(SmallFileSystem, AFullDiskIsAnErrorNamingTheFile) {
  Mount("1m");
  internal::CpuSpool spool;
  spool.fd = OpenSpool();
  ASSERT_GE(spool.fd, 0);
  spool.pending = Pages(512);
  absl::Status flushed = internal::FlushSpool("/data/out.dat", &spool);
  close(spool.fd);
  EXPECT_EQ(flushed.code(), absl::StatusCode::kResourceExhausted);
  EXPECT_EQ(flushed.message(), "/data/out.dat: No space left on device");
}

}  // namespace
}  // namespace napiscope
