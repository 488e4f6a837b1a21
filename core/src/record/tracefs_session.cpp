#include "record/tracefs_session.h"

#include <dirent.h>
#include <fnmatch.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <map>
#include <set>

#include <absl/strings/numbers.h>
#include <absl/strings/str_cat.h>
#include <absl/strings/str_join.h>
#include <absl/strings/match.h>
#include <absl/strings/str_split.h>
#include <absl/strings/strip.h>

#include "load/tracecmd_cxx.h"

namespace napiscope::internal {
namespace {

std::string Errno() { return std::strerror(errno); }

// The lock a recording holds on its instance, "instance-NAME" (record/owner_lock.h).
const std::string kInstanceLock = "instance-";

// The pid an instance name ends with ("napiscope-1234", "napiscope-test-1234"), or -1 when it
// is not a napiscope instance named that way.
int64_t InstancePid(const std::string& name) {
  size_t dash = name.rfind('-');
  int64_t pid = -1;
  if (name.rfind("napiscope", 0) != 0 || dash == std::string::npos ||
      !absl::SimpleAtoi(name.substr(dash + 1), &pid) || pid <= 0) {
    return -1;
  }
  return pid;
}

// True while `pid` is a running napiscope (or its test), which may still use its instance.
bool NapiscopeRuns(int64_t pid) {
  std::ifstream comm(absl::StrCat("/proc/", pid, "/comm"));
  std::string name;
  if (!std::getline(comm, name)) return false;  // no such process: it died
  return name.rfind("napiscope", 0) == 0;
}

// Removes the instance `name`, if there is one.
void DestroyInstance(const std::string& tracing_dir, const std::string& name) {
  struct stat info {};
  if (lstat(absl::StrCat(tracing_dir, "/instances/", name).c_str(), &info) != 0) return;
  tracefs_instance* instance = tracefs_instance_alloc(tracing_dir.c_str(), name.c_str());
  if (instance == nullptr) return;
  tracefs_instance_destroy(instance);
  tracefs_instance_free(instance);
}

// Instances a napiscope left when it was killed (SIGKILL) are removed, so they do not trace on
// forever: whatever their name, those whose lock (kInstanceLock) its process no longer holds;
// and those named with the pid of a process that is no napiscope (napiscope-1234, as versions
// without the locks left them) unless a live napiscope holds their lock.
void RemoveStaleInstances(const std::string& tracing_dir) {
  ForEachAbandonedLock(kInstanceLock,
                       [&](const std::string& name) { DestroyInstance(tracing_dir, name); });
  std::string instances = tracing_dir + "/instances";
  DIR* dir = opendir(instances.c_str());
  if (dir == nullptr) return;
  std::vector<std::string> stale;
  while (dirent* entry = readdir(dir)) {
    std::string name = entry->d_name;
    int64_t pid = InstancePid(name);
    if (pid > 0 && pid != getpid() && !NapiscopeRuns(pid)) stale.push_back(name);
  }
  closedir(dir);
  for (const std::string& name : stale) {
    OwnerLock probe;
    int64_t holder = 0;
    if (probe.Take(kInstanceLock + name, &holder) == OwnerLock::Outcome::kHeld) continue;
    DestroyInstance(tracing_dir, name);
  }
}

// Reads a tracefs file of the top directory (only reading: its settings stay untouched).
std::string ReadTopFile(const char* file) {
  int size = 0;
  char* text = tracefs_instance_file_read(nullptr, file, &size);
  if (text == nullptr) return {};
  std::string out(text, size > 0 ? static_cast<size_t>(size) : 0);
  free(text);
  return out;
}

// "0-3,8" style CPU list -> the comma-grouped hex mask tracing_cpumask takes.
std::string CpuMaskHex(const std::vector<int>& cpus, int slots) {
  std::vector<uint32_t> words((slots + 31) / 32, 0);
  for (int cpu : cpus) words[cpu / 32] |= 1u << (cpu % 32);
  std::string out;
  for (size_t i = words.size(); i-- > 0;) {
    char word[16];
    std::snprintf(word, sizeof(word), "%08x", words[i]);
    absl::StrAppend(&out, out.empty() ? "" : ",", word);
  }
  return out;
}

std::pair<std::string, std::string> SplitEvent(const std::string& spec) {
  size_t colon = spec.find(':');
  if (colon == std::string::npos) return {"", spec};
  return {spec.substr(0, colon), spec.substr(colon + 1)};
}

// The names of tracefs list `list` (freed).
std::vector<std::string> TakeList(char** list) {
  std::vector<std::string> names;
  for (int i = 0; list != nullptr && list[i] != nullptr; ++i) names.emplace_back(list[i]);
  tracefs_list_free(list);
  return names;
}

// comm of every thread in /proc, for pids saved_cmdlines (128 entries by default) misses.
void AddProcComms(std::map<int32_t, std::string>* comms) {
  DIR* proc = opendir("/proc");
  if (proc == nullptr) return;
  while (dirent* process = readdir(proc)) {
    int32_t pid = 0;
    if (!absl::SimpleAtoi(process->d_name, &pid)) continue;
    std::string task_dir = absl::StrCat("/proc/", pid, "/task");
    DIR* tasks = opendir(task_dir.c_str());
    if (tasks == nullptr) continue;
    while (dirent* task = readdir(tasks)) {
      int32_t tid = 0;
      if (!absl::SimpleAtoi(task->d_name, &tid) || comms->contains(tid)) continue;
      std::ifstream file(absl::StrCat(task_dir, "/", tid, "/comm"));
      std::string comm;
      if (std::getline(file, comm) && !comm.empty()) (*comms)[tid] = comm;
    }
    closedir(tasks);
  }
  closedir(proc);
}

}  // namespace

absl::StatusOr<std::unique_ptr<TracefsSession>> TracefsSession::Start(
    const TracefsSessionOptions& options) {
  std::unique_ptr<TracefsSession> session(new TracefsSession());
  absl::Status status = session->Setup(options);
  if (!status.ok()) return status;  // the destructor removes what Setup created
  return session;
}

absl::Status TracefsSession::Setup(const TracefsSessionOptions& options) {
  if (geteuid() != 0) {
    return absl::PermissionDeniedError(
        "tracing needs root: tracefs instances and trace_pipe_raw are root-only (run with sudo)");
  }
  const char* mount_point = nullptr;
  if (tracefs_tracing_dir_is_mounted(true, &mount_point) < 0 || mount_point == nullptr) {
    return absl::FailedPreconditionError(absl::StrCat(
        "tracefs is not mounted and could not be mounted at /sys/kernel/tracing: ", Errno(),
        " (is CONFIG_FTRACE enabled? try: mount -t tracefs nodev /sys/kernel/tracing)"));
  }
  tracing_dir_ = mount_point;
  RemoveStaleInstances(tracing_dir_);
  name_ = options.instance_name;
  int64_t holder = 0;
  if (instance_lock_.Take(kInstanceLock + name_, &holder) == OwnerLock::Outcome::kHeld) {
    return absl::AlreadyExistsError(absl::StrCat(
        tracing_dir_, "/instances/", name_, ": the tracefs instance is in use by napiscope",
        holder > 0 ? absl::StrCat(" (pid ", holder, ")") : ""));
  }
  if (tracefs_instance_exists(name_.c_str())) {
    return absl::AlreadyExistsError(absl::StrCat(
        tracing_dir_, "/instances/", name_, ": the tracefs instance exists (another napiscope "
        "running? if not, remove it with rmdir)"));
  }
  instance_ = tracefs_instance_create(name_.c_str());
  if (instance_ == nullptr) {
    return absl::FailedPreconditionError(
        absl::StrCat(tracing_dir_, "/instances/", name_, ": cannot create: ", Errno()));
  }
  if (!tracefs_instance_is_new(instance_)) {
    tracefs_instance_free(instance_);  // someone else's: leave it in place
    instance_ = nullptr;
    return absl::AlreadyExistsError(
        absl::StrCat(tracing_dir_, "/instances/", name_, ": the tracefs instance exists"));
  }
  tracefs_trace_off(instance_);

  cpu_slots_ = static_cast<int>(std::max(1L, sysconf(_SC_NPROCESSORS_CONF)));
  cpus_ = options.cpus;
  if (cpus_.empty()) {
    for (int cpu = 0; cpu < cpu_slots_; ++cpu) cpus_.push_back(cpu);
  }
  std::sort(cpus_.begin(), cpus_.end());
  cpus_.erase(std::unique(cpus_.begin(), cpus_.end()), cpus_.end());
  if (cpus_.front() < 0 || cpus_.back() >= cpu_slots_) {
    return absl::InvalidArgumentError(
        absl::StrCat("CPU ", cpus_.back(), " does not exist (this machine has ", cpu_slots_,
                     " CPUs)"));
  }
  if (!options.cpus.empty() &&
      tracefs_instance_file_write(instance_, "tracing_cpumask",
                                  CpuMaskHex(cpus_, cpu_slots_).c_str()) < 0) {
    return absl::FailedPreconditionError(absl::StrCat("tracing_cpumask: ", Errno()));
  }
  if (options.buffer_kb > 0 &&
      tracefs_instance_file_write(instance_, "buffer_size_kb",
                                  std::to_string(options.buffer_kb).c_str()) < 0) {
    return absl::ResourceExhaustedError(
        absl::StrCat("buffer_size_kb ", options.buffer_kb, ": ", Errno()));
  }
  if (options.monotonic_clock && tracefs_instance_file_write(instance_, "trace_clock", "mono") < 0) {
    return absl::FailedPreconditionError(absl::StrCat("trace_clock mono: ", Errno()));
  }

  for (const std::string& spec : options.events) {
    std::vector<std::pair<std::string, std::string>> events = EventsOf(spec);
    if (events.empty()) missing_.push_back(spec);
    for (const auto& [system, name] : events) {
      if (tracefs_event_enable(instance_, system.c_str(), name.c_str()) != 0) {
        return absl::FailedPreconditionError(
            absl::StrCat("cannot enable ", system, ":", name, ": ", Errno()));
      }
      enabled_.push_back(absl::StrCat(system, ":", name));
    }
  }
  std::sort(enabled_.begin(), enabled_.end());
  enabled_.erase(std::unique(enabled_.begin(), enabled_.end()), enabled_.end());
  if (enabled_.empty()) {
    return absl::NotFoundError(absl::StrCat("none of the requested events exist on this kernel: ",
                                            absl::StrJoin(missing_, ", ")));
  }

  for (int cpu : cpus_) {
    tracefs_cpu* reader = tracefs_cpu_open(instance_, cpu, true);
    if (reader == nullptr) {
      return absl::FailedPreconditionError(
          absl::StrCat(name_, ": cannot open trace_pipe_raw of CPU ", cpu, ": ", Errno()));
    }
    readers_.push_back(reader);
  }
  page_size_ = tracefs_cpu_read_size(readers_.front());
  if (page_size_ <= 0) page_size_ = static_cast<int>(sysconf(_SC_PAGESIZE));
  page_buffer_.assign(page_size_, '\0');
  return absl::OkStatus();
}

absl::Status TracefsSession::StartTracing() {
  if (tracefs_trace_on(instance_) < 0) {
    return absl::FailedPreconditionError(absl::StrCat(name_, ": cannot start tracing: ", Errno()));
  }
  return absl::OkStatus();
}

TracefsSession::~TracefsSession() {
  if (instance_ == nullptr) return;
  tracefs_trace_off(instance_);
  for (tracefs_cpu* reader : readers_) tracefs_cpu_close(reader);  // open files block rmdir
  tracefs_instance_destroy(instance_);
  tracefs_instance_free(instance_);
}

std::vector<std::pair<std::string, std::string>> TracefsSession::EventsOf(
    const std::string& spec) const {
  // Every event of the systems matching `system_glob` whose name matches `event_glob` (shell
  // globs, as trace-cmd takes them: "sched:sched_wak*").
  auto matching = [&](const std::string& system_glob, const std::string& event_glob) {
    std::vector<std::pair<std::string, std::string>> events;
    for (const std::string& system : TakeList(tracefs_event_systems(tracing_dir_.c_str()))) {
      if (fnmatch(system_glob.c_str(), system.c_str(), 0) != 0) continue;
      for (std::string& event :
           TakeList(tracefs_system_events(tracing_dir_.c_str(), system.c_str()))) {
        // Events without an enable file (ftrace's own) cannot be recorded.
        if (fnmatch(event_glob.c_str(), event.c_str(), 0) == 0 &&
            tracefs_event_file_exists(instance_, system.c_str(), event.c_str(), "enable")) {
          events.emplace_back(system, std::move(event));
        }
      }
    }
    return events;
  };
  auto [system, event] = SplitEvent(spec);
  if (!system.empty()) return matching(system, event);
  // Without a colon, a system ("irq": all its events), else an event of any system.
  std::vector<std::pair<std::string, std::string>> events = matching(event, "*");
  return events.empty() ? matching("*", event) : events;
}

void TracefsSession::StopTracing() { tracefs_trace_off(instance_); }

absl::StatusOr<bool> TracefsSession::ReadPages(
    size_t index, const std::function<absl::Status(std::string_view)>& on_page) {
  tracefs_cpu* reader = readers_.at(index);
  for (int pages = 0; pages < kMaxPagesPerRead; ++pages) {
    int bytes = tracefs_cpu_read(reader, page_buffer_.data(), true);
    if (bytes < 0 && errno == EAGAIN) return true;
    if (bytes < 0 && errno == EINTR) return false;  // a signal: not known to be drained
    if (bytes < 0) {
      return absl::DataLossError(
          absl::StrCat("CPU ", cpus_[index], ": reading trace_pipe_raw: ", Errno()));
    }
    if (bytes == 0) return true;
    std::memset(page_buffer_.data() + bytes, 0, page_buffer_.size() - bytes);
    absl::Status status = on_page(page_buffer_);
    if (!status.ok()) return status;
  }
  return false;
}

int64_t TracefsSession::LostEvents(int cpu) const {
  int size = 0;
  std::string file = absl::StrCat("per_cpu/cpu", cpu, "/stats");
  char* text = tracefs_instance_file_read(instance_, file.c_str(), &size);
  if (text == nullptr) return 0;
  int64_t lost = 0;
  for (absl::string_view line : absl::StrSplit(absl::string_view(text, size), '\n')) {
    int64_t value = 0;
    for (absl::string_view key : {"overrun: ", "dropped events: "}) {
      if (absl::StartsWith(line, key) && absl::SimpleAtoi(line.substr(key.size()), &value)) {
        lost += value;
      }
    }
  }
  free(text);
  return lost;
}

absl::StatusOr<TraceDatHeader> TracefsSession::BuildHeader() const {
  TraceDatHeader header;
  header.cpus = cpu_slots_;
  header.page_size = page_size_;
  header.header_page = ReadTopFile("events/header_page");
  header.header_event = ReadTopFile("events/header_event");
  if (header.header_page.empty() || header.header_event.empty()) {
    return absl::FailedPreconditionError(
        absl::StrCat(tracing_dir_, "/events/header_page: cannot read: ", Errno()));
  }
  std::map<std::string, std::vector<std::string>> systems;
  for (const std::string& spec : enabled_) {
    auto [system, event] = SplitEvent(spec);
    int size = 0;
    char* text = tracefs_event_file_read(nullptr, system.c_str(), event.c_str(), "format", &size);
    if (text == nullptr) {
      return absl::FailedPreconditionError(
          absl::StrCat(tracing_dir_, "/events/", system, "/", event, "/format: ", Errno()));
    }
    systems[system].emplace_back(text, size);
    free(text);
  }
  for (auto& [name, formats] : systems) header.systems.push_back({name, std::move(formats)});
  header.extra_options.push_back({kTraceDatOptionEnabledEvents, absl::StrJoin(enabled_, "\n")});
  header.printk_formats = ReadTopFile("printk_formats");

  std::map<int32_t, std::string> comms;
  for (absl::string_view line : absl::StrSplit(ReadTopFile("saved_cmdlines"), '\n')) {
    size_t space = line.find(' ');
    int32_t pid = 0;
    if (space != absl::string_view::npos && absl::SimpleAtoi(line.substr(0, space), &pid)) {
      comms[pid] = std::string(line.substr(space + 1));
    }
  }
  AddProcComms(&comms);
  header.cmdlines.assign(comms.begin(), comms.end());

  int clock_size = 0;
  if (char* clock = tracefs_instance_file_read(instance_, "trace_clock", &clock_size)) {
    header.trace_clock = std::string(
        absl::StripTrailingAsciiWhitespace(absl::string_view(clock, clock_size)));
    free(clock);
  }
  utsname names{};
  if (uname(&names) == 0) {
    header.uname = absl::StrCat(names.sysname, " ", names.nodename, " ", names.release, " ",
                                names.version, " ", names.machine);
  }
  return header;
}

absl::StatusOr<tep_handle*> TracefsSession::LoadEventParser() const {
  std::set<std::string> system_names;
  for (const std::string& spec : enabled_) system_names.insert(SplitEvent(spec).first);
  std::vector<const char*> systems;
  for (const std::string& system : system_names) systems.push_back(system.c_str());
  systems.push_back(nullptr);
  tep_handle* tep = tracefs_local_events_system(tracing_dir_.c_str(), systems.data());
  if (tep == nullptr) {
    return absl::FailedPreconditionError(
        absl::StrCat(tracing_dir_, "/events: cannot parse the event formats: ", Errno()));
  }
  tracefs_load_cmdlines(tracing_dir_.c_str(), tep);
  return tep;
}

}  // namespace napiscope::internal
