// `record` under faults on the running kernel (docs/robustness.md, "Recording under faults"):
// every way out removes the tracefs instance, instances of dead napiscopes are removed at
// start, spools never follow symlinks, a killed recording leaves no file that looks whole.
// Skipped (with the reason) where the tests are not root or tracefs is missing.
#include <signal.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <unistd.h>

#include <sstream>
#include <string>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "support/test_support.h"

namespace napiscope {
namespace {

using ::napiscope::testing::CliPath;
using ::napiscope::testing::RunCommand;

constexpr char kInstances[] = "/sys/kernel/tracing/instances";

bool Exists(const std::string& path) {
  struct stat info {};
  return lstat(path.c_str(), &info) == 0;
}

// tracefs's instances/NAME (built in a stream: GCC 12's -Warray-bounds misfires on chains
// of std::string operator+ here).
std::string InstanceDir(const std::string& name) {
  std::ostringstream path;
  path << kInstances << "/" << name;
  return path.str();
}

// The pid of a process that has ended (forked, exited and reaped).
pid_t DeadPid() {
  pid_t child = fork();
  if (child == 0) _exit(0);
  int status = 0;
  waitpid(child, &status, 0);
  return child;
}

// Shell: record into `file` (its instance napiscope-PID), send SIG`signal` once it traces,
// wait for it and print its pid (no core file when the signal dumps one). A record that ends
// before it traces ends the wait too.
std::string SignalOnceTracing(const std::string& file, const std::string& signal,
                              const std::string& command = "sleep 30") {
  std::ostringstream shell;
  shell << "ulimit -c 0; " << CliPath() << " record -o " << file << " -- " << command
        << " & pid=$!; until [ \"$(cat " << kInstances
        << "/napiscope-$pid/tracing_on 2>/dev/null)\" = 1 ]; do "
        << "kill -0 $pid 2>/dev/null || break; sleep 0.05; done; sleep 0.2; kill -" << signal
        << " $pid; wait $pid; echo $pid";
  return shell.str();
}

// Shell: record into `file` in the tracefs instance `instance` (with `options`), send
// SIG`signal` once it traces, wait for it and print its pid and exit status on one line each.
std::string SignalInstanceOnceTracing(const std::string& file, const std::string& instance,
                                      const std::string& signal,
                                      const std::string& options = "-- sleep 30") {
  std::ostringstream shell;
  shell << "ulimit -c 0; " << CliPath() << " record --instance " << instance << " -o " << file
        << " " << options << " & pid=$!; until [ \"$(cat " << kInstances << "/" << instance
        << "/tracing_on 2>/dev/null)\" = 1 ]; do kill -0 $pid 2>/dev/null || break; "
        << "sleep 0.05; done; sleep 0.2; kill -" << signal << " $pid; wait $pid; "
        << "echo $? >&2; echo $pid";
  return shell.str();
}

// A name of this test's own for a tracefs instance: not napiscope-PID, so only the locks tell
// whose it is.
std::string TestInstance(const std::string& what) {
  std::ostringstream name;
  name << "nsfault-" << what << "-" << getpid();
  return name.str();
}

class RecordFaults : public ::testing::Test {
 protected:
  void SetUp() override {
    if (geteuid() != 0) GTEST_SKIP() << "recording needs root; these tests run only as root";
    if (!Exists(kInstances)) RunCommand("mount -t tracefs nodev /sys/kernel/tracing");
    if (!Exists(kInstances)) GTEST_SKIP() << "tracefs is not available and cannot be mounted";
    dir_ = testing::MakeTempDir();
  }
  std::string dir_;
};

TEST_F(RecordFaults, AnInstanceOfADeadNapiscopeIsRemovedAtStart) {
  std::string stale = InstanceDir("napiscope-" + std::to_string(DeadPid()));
  ASSERT_EQ(mkdir(stale.c_str(), 0700), 0) << stale;
  auto record = RunCommand(CliPath() + " record --duration 0.2 -o " + dir_ + "/t.dat");
  EXPECT_EQ(record.exit_code, 0) << record.err;
  EXPECT_FALSE(Exists(stale)) << "the stale instance is still there";
  rmdir(stale.c_str());
}

TEST_F(RecordFaults, AKilledRecordingLeavesNoFileAndItsInstanceGoesAtTheNextStart) {
  std::string file = dir_ + "/killed.dat";
  // Start, wait until its instance (napiscope-PID) traces, SIGKILL it, print its pid.
  auto killed = RunCommand(SignalOnceTracing(file, "KILL"));
  std::string pid = killed.out.substr(0, killed.out.find('\n'));
  ASSERT_FALSE(pid.empty());
  std::string left = InstanceDir("napiscope-" + pid);
  EXPECT_TRUE(Exists(left)) << "SIGKILL cannot be caught: the instance should be left";
  EXPECT_FALSE(Exists(file)) << "a killed recording left a file under the output's name";
  const std::string private_dirs = "ls -A " + dir_ + " | grep -c '^.napiscope-record-" + pid + "-'";
  EXPECT_EQ(RunCommand(private_dirs).out, "1\n") << "SIGKILL leaves the private directory";
  auto next = RunCommand(CliPath() + " record --duration 0.2 -o " + dir_ + "/next.dat");
  EXPECT_EQ(next.exit_code, 0) << next.err;
  EXPECT_FALSE(Exists(left)) << "the next napiscope did not remove the dead one's instance";
  EXPECT_EQ(RunCommand(private_dirs).out, "0\n") << "the dead one's private directory is left";
  rmdir(left.c_str());
}

TEST_F(RecordFaults, SighupSigquitAndSigpipeRemoveTheInstance) {
  for (const char* signal : {"HUP", "QUIT", "PIPE", "TERM"}) {
    SCOPED_TRACE(signal);
    std::string file = dir_ + "/" + signal + ".dat";
    // A command that notes SIGTERM: napiscope ends it rather than waiting 30 s for it.
    std::string noted = dir_ + "/" + signal + ".terminated";
    auto run = RunCommand(SignalOnceTracing(
        file, signal, "sh -c 'trap \"echo > " + noted + "; exit 0\" TERM; sleep 30 & wait $!'"));
    std::string pid = run.out.substr(0, run.out.find('\n'));
    ASSERT_FALSE(pid.empty()) << run.err;
    EXPECT_FALSE(Exists(InstanceDir("napiscope-" + pid))) << run.err;
    EXPECT_TRUE(Exists(file)) << "the recording up to the signal is kept: " << run.err;
    EXPECT_TRUE(Exists(noted)) << "the command was not sent SIGTERM";
  }
}

TEST_F(RecordFaults, SpoolsNeverFollowASymlinkOrClobberAFile) {
  std::string victim = dir_ + "/victim";
  testing::WriteFile(victim, "keep me");
  std::string out = dir_ + "/out.dat";
  ASSERT_EQ(symlink(victim.c_str(), (out + ".cpu0").c_str()), 0);
  testing::WriteFile(out + ".cpu1", "not a spool");
  auto record = RunCommand(CliPath() + " record --duration 0.2 -o " + out);
  EXPECT_EQ(record.exit_code, 0) << record.err;
  EXPECT_EQ(testing::ReadFile(victim), "keep me");
  EXPECT_EQ(testing::ReadFile(out + ".cpu1"), "not a spool");
  EXPECT_TRUE(Exists(out));
  auto leftovers = RunCommand("ls -A " + dir_ + " | grep -c napiscope-record");
  EXPECT_EQ(leftovers.out, "0\n") << "a private spool directory was left";
}

// A disk that fills while the trace is written: one line naming the output and the cause,
// exit 1, no file under the output's name, no private directory, the instance removed.
TEST_F(RecordFaults, AFullDiskIsOneLineNamingTheOutputAndLeavesNothing) {
  std::string small = dir_ + "/small";
  ASSERT_EQ(mkdir(small.c_str(), 0700), 0);
  auto mounted = RunCommand("mount -t tmpfs -o size=16k napiscope-test " + small);
  if (mounted.exit_code != 0) GTEST_SKIP() << "cannot mount a tmpfs: " << mounted.err;
  std::ostringstream instance;
  instance << "napiscope-test-full-" << getpid();
  std::string out = small + "/t.dat";
  auto record = RunCommand(CliPath() + " record --duration 0.2 --instance " + instance.str() +
                           " -o " + out);
  auto leftovers = RunCommand("ls -A " + small);
  RunCommand("umount -l " + small);
  EXPECT_EQ(record.exit_code, 1);
  EXPECT_EQ(record.err, "napiscope record: " + out + ": No space left on device\n");
  EXPECT_EQ(leftovers.out, "") << "left on the full disk";
  EXPECT_FALSE(Exists(InstanceDir(instance.str())));
}

// An output in a directory that does not exist named the directory and "a private spool
// directory", an internal detail; it names the file, as every output's error does.
TEST_F(RecordFaults, AnOutputWhoseDirectoryDoesNotExistIsOneLineNamingIt) {
  std::string out = dir_ + "/no/such/t.dat";
  auto record = RunCommand(CliPath() + " record --duration 0.2 -o " + out);
  EXPECT_EQ(record.exit_code, 1);
  EXPECT_EQ(record.err, "napiscope record: " + out + ": cannot write: No such file or directory\n");
  EXPECT_FALSE(Exists(dir_ + "/no"));
}

// An output that is not a regular file is refused before tracing, and stays: the finished
// recording was renamed over it (`record -o /dev/null` replaced the device with a trace.dat).
TEST_F(RecordFaults, AnOutputThatIsNotARegularFileIsRefusedAndLeftAlone) {
  std::string device = dir_ + "/null";
  ASSERT_EQ(mknod(device.c_str(), S_IFCHR | 0666, makedev(1, 3)), 0);
  auto record = RunCommand(CliPath() + " record --duration 0.2 -o " + device);
  EXPECT_EQ(record.exit_code, 1);
  EXPECT_EQ(record.err, "napiscope record: " + device +
                            ": not a regular file (a device, pipe or directory); a trace.dat is "
                            "written to a file\n");
  struct stat info {};
  ASSERT_EQ(stat(device.c_str(), &info), 0);
  EXPECT_TRUE(S_ISCHR(info.st_mode)) << "the device was replaced";
}

// A disk that fills while capturing: what is on disk is kept as a trace marked as cut short
// (exit 1, one line saying so), and reading it warns that the trace ends early.
TEST_F(RecordFaults, ADiskThatFillsWhileCapturingKeepsAMarkedTrace) {
  std::string small = dir_ + "/small";
  ASSERT_EQ(mkdir(small.c_str(), 0700), 0);
  auto mounted = RunCommand("mount -t tmpfs -o size=256k napiscope-test " + small);
  if (mounted.exit_code != 0) GTEST_SKIP() << "cannot mount a tmpfs: " << mounted.err;
  std::ostringstream instance;
  instance << "napiscope-test-fills-" << getpid();
  std::string out = small + "/t.dat";
  // Two events per system call, a million system calls: megabytes of pages.
  auto record = RunCommand(CliPath() + " record --instance " + instance.str() +
                           " --events raw_syscalls:sys_enter,raw_syscalls:sys_exit -o " + out +
                           " -- dd if=/dev/zero of=/dev/null bs=1 count=500000");
  auto report = RunCommand(CliPath() + " report " + out);
  auto leftovers = RunCommand("ls -A " + small);
  RunCommand("umount -l " + small);
  EXPECT_EQ(record.exit_code, 1);
  EXPECT_THAT(record.err, ::testing::MatchesRegex(
                              "napiscope record: " + out + ": No space left on device; kept what "
                              "fitted \\([0-9]+ pages\\), marked as cut short \\([1-9][0-9]* "
                              "captured pages not kept\\)\n"));
  EXPECT_EQ(leftovers.out, "t.dat\n") << "only the trace is left on the full disk";
  EXPECT_EQ(report.exit_code, 0) << report.err;
  EXPECT_THAT(report.out + report.err, ::testing::HasSubstr("the recording was cut short"));
  EXPECT_FALSE(Exists(InstanceDir(instance.str())));
}

// An abort or a crash cannot end the capture normally, but the instance goes with the process
// (its files closed first, since tracefs keeps an instance whose files are open).
TEST_F(RecordFaults, AnAbortOrACrashRemovesTheInstance) {
  for (const char* signal : {"ABRT", "SEGV", "BUS"}) {
    SCOPED_TRACE(signal);
    std::string file = dir_ + "/" + signal + ".dat";
    auto run = RunCommand(SignalOnceTracing(file, signal));
    std::string pid = run.out.substr(0, run.out.find('\n'));
    ASSERT_FALSE(pid.empty()) << run.err;
    EXPECT_FALSE(Exists(InstanceDir("napiscope-" + pid))) << run.err;
    EXPECT_FALSE(Exists(file)) << "a crashed recording left a file under the output's name";
    rmdir(InstanceDir("napiscope-" + pid).c_str());
  }
}

// SIGUSR1, SIGUSR2, SIGALRM, SIGVTALRM and a real-time signal killed `record` and left its
// instance tracing (issue 64): every signal that ends a process now stops the recording as
// SIGTERM does, keeping the file.
TEST_F(RecordFaults, EveryTerminatingSignalStopsTheRecordingAndRemovesTheInstance) {
  for (const char* signal : {"USR1", "USR2", "ALRM", "VTALRM", "PROF", "XCPU", "PWR", "IO"}) {
    SCOPED_TRACE(signal);
    std::string file = dir_ + "/" + signal + ".dat";
    auto run = RunCommand(SignalOnceTracing(file, signal));
    std::string pid = run.out.substr(0, run.out.find('\n'));
    ASSERT_FALSE(pid.empty()) << run.err;
    EXPECT_FALSE(Exists(InstanceDir("napiscope-" + pid))) << run.err;
    EXPECT_TRUE(Exists(file)) << "the recording up to the signal is kept: " << run.err;
    rmdir(InstanceDir("napiscope-" + pid).c_str());
  }
  std::string instance = TestInstance("rt");
  std::string file = dir_ + "/rt.dat";
  auto run = RunCommand(SignalInstanceOnceTracing(file, instance, std::to_string(SIGRTMIN + 5)));
  EXPECT_THAT(run.err, ::testing::EndsWith("\n0\n")) << "exit status";
  EXPECT_FALSE(Exists(InstanceDir(instance)));
  EXPECT_TRUE(Exists(file));
  rmdir(InstanceDir(instance).c_str());
}

// A SIGKILLed recording's instance went at the next start only when named napiscope-PID
// (issue 64): the lock it held tells, whatever the name; and an instance whose napiscope
// lives is never removed, whatever its name.
TEST_F(RecordFaults, TheNextStartRemovesADeadRecordingsInstanceWhateverItsName) {
  std::string dead = TestInstance("dead");
  auto killed = RunCommand(SignalInstanceOnceTracing(dir_ + "/killed.dat", dead, "KILL"));
  ASSERT_TRUE(Exists(InstanceDir(dead))) << "SIGKILL cannot be caught: the instance is left";
  // A recording that lives, named as no napiscope names its own.
  std::string alive = TestInstance("alive");
  std::string shell = CliPath() + " record --duration 4 --instance " + alive + " -o " + dir_ +
                      "/alive.dat & pid=$!; until [ -e " + InstanceDir(alive) +
                      " ]; do sleep 0.05; done; " + CliPath() + " record --duration 0.2 -o " +
                      dir_ + "/next.dat; echo next $?; [ -e " + InstanceDir(alive) +
                      " ] && echo alive kept; wait $pid; echo alive $?";
  auto run = RunCommand(shell);
  EXPECT_EQ(run.out, "next 0\nalive kept\nalive 0\n") << run.err;
  EXPECT_FALSE(Exists(InstanceDir(dead))) << "the dead recording's instance is still there";
  EXPECT_FALSE(Exists(InstanceDir(alive)));
  rmdir(InstanceDir(dead).c_str());
}

// Two `record -o SAME` at once both said "wrote SAME", one file replacing the other (issue
// 64): the second is refused, naming the first, before it traces.
TEST_F(RecordFaults, ASecondRecordingToTheSameOutputIsRefused) {
  std::string out = dir_ + "/same.dat";
  std::string first = TestInstance("first");
  std::string second = TestInstance("second");
  std::string shell = CliPath() + " record --duration 3 --instance " + first + " -o " + out +
                      " & pid=$!; until [ -e " + InstanceDir(first) +
                      " ]; do sleep 0.05; done; echo $pid; " + CliPath() +
                      " record --duration 0.2 --instance " + second + " -o " + dir_ +
                      "/./same.dat; echo second $?; wait $pid; echo first $?";
  auto run = RunCommand(shell);
  std::string pid = run.out.substr(0, run.out.find('\n'));
  EXPECT_EQ(run.out, pid + "\nsecond 1\nfirst 0\n");
  EXPECT_THAT(run.err, ::testing::StartsWith("napiscope record: " + dir_ +
                                             "/./same.dat: another napiscope record (pid " + pid +
                                             ") is writing it\nnapiscope record: wrote " + out +
                                             " ("));
  EXPECT_FALSE(Exists(InstanceDir(second)));
  EXPECT_TRUE(Exists(out));
}

// `record -o` over a 0600 file made it 0644 and replaced a symlink with a file, unlike
// `report -o` (issue 64): one policy for every output (cli/output_file.h).
TEST_F(RecordFaults, RecordKeepsAnExistingFilesModeAndTheLinkToIt) {
  std::string kept = dir_ + "/kept.dat";
  testing::WriteFile(kept, "an older recording");
  ASSERT_EQ(chmod(kept.c_str(), 0600), 0);
  ASSERT_EQ(symlink("kept.dat", (dir_ + "/link.dat").c_str()), 0);
  auto record = RunCommand(CliPath() + " record --duration 0.2 -o " + dir_ + "/link.dat");
  ASSERT_EQ(record.exit_code, 0) << record.err;
  struct stat link {}, file {};
  ASSERT_EQ(lstat((dir_ + "/link.dat").c_str(), &link), 0);
  EXPECT_TRUE(S_ISLNK(link.st_mode)) << "the link was replaced by a file";
  ASSERT_EQ(stat(kept.c_str(), &file), 0);
  EXPECT_EQ(file.st_mode & 07777, 0600u);
  EXPECT_GT(file.st_size, 1000) << "the link's file holds the recording";
  // A new file: 0666 less the umask, as report -o makes it.
  auto fresh = RunCommand("umask 027; " + CliPath() + " record --duration 0.2 -o " + dir_ +
                          "/fresh.dat");
  ASSERT_EQ(fresh.exit_code, 0) << fresh.err;
  ASSERT_EQ(stat((dir_ + "/fresh.dat").c_str(), &file), 0);
  EXPECT_EQ(file.st_mode & 07777, 0640u);
}

// Past `ulimit -f`, SIGXFSZ killed `record`, leaving its instance tracing and its spool
// directory (issue 64): the limit is a full disk for the file, one line, exit 1.
TEST_F(RecordFaults, AFileSizeLimitIsOneLineAndLeavesNoInstanceOrSpool) {
  std::string instance = TestInstance("fsize");
  std::string out = dir_ + "/t.dat";
  auto record = RunCommand("ulimit -f 64; ulimit -c 0; " + CliPath() + " record --instance " +
                           instance +
                           " --events raw_syscalls:sys_enter,raw_syscalls:sys_exit -o " + out +
                           " -- dd if=/dev/zero of=/dev/null bs=1 count=300000 status=none");
  EXPECT_EQ(record.exit_code, 1) << record.err;
  EXPECT_THAT(record.err, ::testing::MatchesRegex("napiscope record: " + out +
                                                  ": File too large[^\n]*\n"));
  EXPECT_FALSE(Exists(InstanceDir(instance)));
  auto leftovers = RunCommand("ls -A " + dir_ + " | grep -v '^t.dat$'");
  EXPECT_EQ(leftovers.out, "") << "left beside the output";
  rmdir(InstanceDir(instance).c_str());
}

}  // namespace
}  // namespace napiscope
