#include <sys/utsname.h>
#include <time.h>

#include <algorithm>
#include <deque>
#include <queue>

#include <absl/container/flat_hash_set.h>
#include <absl/strings/str_cat.h>
#include <traceevent/event-parse.h>
extern "C" {  // kbuffer.h has no C++ guards
#include <traceevent/kbuffer.h>
}

#include "load/event_decoder.h"
#include "napiscope/live.h"
#include "record/tracefs_session.h"

namespace napiscope {
namespace {

// Events stamped this long before a read started may still be committed after it; they are
// held back one poll so no CPU delivers an event older than one already fed.
constexpr TimestampNs kCommitMarginNs = 20'000'000;

TimestampNs MonotonicNowNs() {
  timespec now{};
  clock_gettime(CLOCK_MONOTONIC, &now);
  return static_cast<TimestampNs>(now.tv_sec) * 1'000'000'000 + now.tv_nsec;
}

}  // namespace

struct LiveCapture::State {
  explicit State(const AnalysisOptions& analysis) : pipeline(analysis) {}
  ~State() {
    session.reset();
    if (kbuf != nullptr) kbuffer_free(kbuf);
    decoder.reset();
    if (tep != nullptr) tep_free(tep);
  }

  absl::Status ReadCpu(size_t index);
  void Feed(Event& event);
  void FeedUpTo(TimestampNs horizon_ns);

  std::unique_ptr<internal::TracefsSession> session;
  tep_handle* tep = nullptr;
  kbuffer* kbuf = nullptr;
  TraceContext context;
  std::unique_ptr<internal::EventDecoder> decoder;
  AnalysisPipeline pipeline;
  std::vector<std::deque<Event>> pending;  // decoded, not yet fed; per index of session->cpus()
  std::vector<TimestampNs> last_fed_ns;    // per CPU slot, for the gaps' "last before"
  std::vector<LiveNapiCounts> napi;        // per CPU slot
  absl::flat_hash_set<int32_t> pids_seen;
  TimestampNs newest_fed_ns = 0;
  int64_t fed = 0;
  int64_t late = 0;
  std::vector<std::string> enabled, missing;
  bool stopped = false;
};

absl::Status LiveCapture::State::ReadCpu(size_t index) {
  const uint16_t cpu = static_cast<uint16_t>(session->cpus()[index]);
  std::deque<Event>& queue = pending[index];
  return session->ReadPages(index, [&](std::string_view page) {
    if (kbuffer_load_subbuffer(kbuf, const_cast<char*>(page.data())) < 0) {
      return absl::DataLossError(absl::StrCat("CPU ", cpu, ": unreadable ring-buffer page"));
    }
    unsigned long long ts = 0;
    bool first = true;
    for (void* data = kbuffer_read_event(kbuf, &ts); data != nullptr;
         data = kbuffer_next_event(kbuf, &ts), first = false) {
      int missed = first ? kbuffer_missed_events(kbuf) : 0;
      if (missed != 0) {
        Event gap;
        gap.ts_ns = static_cast<TimestampNs>(ts);
        gap.cpu = cpu;
        gap.kind = EventKind::kMissedEvents;
        gap.pid = -1;
        gap.missed = {missed > 0 ? missed : -1};
        queue.push_back(gap);
      }
      Event event;
      event.ts_ns = static_cast<TimestampNs>(ts);
      event.cpu = cpu;
      if (decoder->Decode(data, kbuffer_event_size(kbuf), &event)) {
        queue.push_back(event);
      } else {
        ++context.meta.skipped_records;
      }
    }
    return absl::OkStatus();
  });
}

void LiveCapture::State::Feed(Event& event) {
  if (event.ts_ns < newest_fed_ns) {  // committed later than the margin allowed: keep order
    event.ts_ns = newest_fed_ns;
    ++late;
  }
  newest_fed_ns = event.ts_ns;
  TimestampNs& last_on_cpu = last_fed_ns[event.cpu];
  if (event.kind == EventKind::kMissedEvents) {
    context.missed.push_back({event.cpu, event.ts_ns, last_on_cpu, event.missed.count});
    pipeline.OnEvent(event);
    return;
  }
  if (pids_seen.insert(event.pid).second) {
    const char* comm = tep_data_comm_from_pid(tep, event.pid);
    if (comm != nullptr && comm[0] != '<') {
      context.tasks.SetInitialComm(event.pid, context.strings.Intern(comm));
    }
  }
  if (event.kind == EventKind::kNapiPoll) {
    LiveNapiCounts& counts = napi[event.cpu];
    ++counts.polls;
    if (event.napi.budget > 0 && event.napi.work >= event.napi.budget) ++counts.exhausted;
  }
  context.tasks.ObserveEvent(event);
  pipeline.OnEvent(event);
  last_on_cpu = event.ts_ns;
  ++fed;
}

void LiveCapture::State::FeedUpTo(TimestampNs horizon_ns) {
  using Entry = std::pair<TimestampNs, size_t>;
  std::priority_queue<Entry, std::vector<Entry>, std::greater<>> heap;
  for (size_t i = 0; i < pending.size(); ++i) {
    if (!pending[i].empty()) heap.emplace(pending[i].front().ts_ns, i);
  }
  while (!heap.empty() && heap.top().first <= horizon_ns) {
    size_t index = heap.top().second;
    heap.pop();
    Feed(pending[index].front());
    pending[index].pop_front();
    if (!pending[index].empty()) heap.emplace(pending[index].front().ts_ns, index);
  }
}

LiveCapture::LiveCapture() = default;

LiveCapture::~LiveCapture() = default;

absl::StatusOr<std::unique_ptr<LiveCapture>> LiveCapture::Start(const LiveOptions& options) {
  std::unique_ptr<LiveCapture> capture(new LiveCapture());
  capture->state_ = std::make_unique<State>(options.analysis);
  State& state = *capture->state_;
  internal::TracefsSessionOptions session_options;
  session_options.instance_name = options.capture.instance_name;
  session_options.events = options.capture.events;
  session_options.cpus = options.capture.cpus;
  session_options.buffer_kb = options.capture.buffer_kb;
  session_options.monotonic_clock = true;
  auto session = internal::TracefsSession::Start(session_options);
  if (!session.ok()) return session.status();
  state.session = std::move(*session);
  state.enabled = state.session->enabled_events();
  state.missing = state.session->missing_events();
  auto tep = state.session->LoadEventParser();
  if (!tep.ok()) return tep.status();
  state.tep = *tep;
  state.kbuf = kbuffer_alloc(KBUFFER_LSIZE_SAME_AS_HOST, KBUFFER_ENDIAN_SAME_AS_HOST);
  if (state.kbuf == nullptr) return absl::ResourceExhaustedError("out of memory for kbuffer");

  TraceMeta& meta = state.context.meta;
  meta.path = absl::StrCat(state.session->tracing_dir(), "/instances/",
                           options.capture.instance_name);
  meta.format = TraceFormat::kLiveTracefs;
  meta.cpus = state.session->cpu_slots();
  meta.long_size = static_cast<int>(sizeof(long));
  meta.page_size = state.session->page_size();
  meta.clock = "mono";
  meta.event_formats = state.enabled;
  utsname names{};
  if (uname(&names) == 0) {
    meta.uname = absl::StrCat(names.sysname, " ", names.nodename, " ", names.release, " ",
                              names.version, " ", names.machine);
    meta.kernel_release = names.release;
  }
  state.decoder = std::make_unique<internal::EventDecoder>(
      internal::TraceFormats{state.tep, {}}, &state.context);
  state.pending.resize(state.session->cpus().size());
  state.last_fed_ns.assign(meta.cpus, -1);
  state.napi.assign(meta.cpus, {});
  state.pipeline.OnBegin(state.context);
  return capture;
}

absl::Status LiveCapture::Poll() {
  State& state = *state_;
  if (state.stopped) return absl::FailedPreconditionError("live capture already stopped");
  TimestampNs horizon_ns = MonotonicNowNs() - kCommitMarginNs;
  for (size_t i = 0; i < state.pending.size(); ++i) {
    absl::Status status = state.ReadCpu(i);
    if (!status.ok()) return status;
  }
  state.FeedUpTo(horizon_ns);
  return absl::OkStatus();
}

absl::Status LiveCapture::Stop() {
  State& state = *state_;
  if (state.stopped) return absl::OkStatus();
  state.stopped = true;
  state.session->StopTracing();
  absl::Status status;
  for (size_t i = 0; status.ok() && i < state.pending.size(); ++i) status = state.ReadCpu(i);
  state.FeedUpTo(INT64_MAX);
  if (state.late > 0) {
    state.context.meta.warnings.push_back(absl::StrCat(
        state.late, " events arrived after later events were analysed; their time was moved "
                    "forward to keep the order"));
  }
  state.pipeline.OnEnd();
  state.session.reset();
  return status;
}

Report LiveCapture::Snapshot() const { return state_->pipeline.Finish(state_->context); }

int64_t LiveCapture::events() const { return state_->fed; }

const std::vector<LiveNapiCounts>& LiveCapture::napi_counts() const { return state_->napi; }

const std::vector<std::string>& LiveCapture::events_enabled() const { return state_->enabled; }

const std::vector<std::string>& LiveCapture::events_missing() const { return state_->missing; }

}  // namespace napiscope
