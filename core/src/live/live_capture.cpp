#include <sys/utsname.h>
#include <time.h>

#include <algorithm>
#include <deque>

#include <absl/strings/str_cat.h>
#include <traceevent/event-parse.h>
extern "C" {  // kbuffer.h has no C++ guards
#include <traceevent/kbuffer.h>
}

#include "live/merge_horizon.h"
#include "load/event_decoder.h"
#include "load/event_ingest.h"
#include "napiscope/live.h"
#include "napiscope/tracedat_writer.h"
#include "record/recent_pages.h"
#include "record/tracefs_session.h"

namespace napiscope {
namespace {

// Events stamped this long before a read started may still be committed after it; they are
// held back one poll so no CPU delivers an event older than one already fed.
constexpr TimestampNs kCommitMarginNs = 20'000'000;

// How long one poll goes on reading CPUs that still have pages (each read stops after
// TracefsSession::kMaxPagesPerRead): a busy CPU is read as fast as the kernel writes, and the
// summaries still come on time.
constexpr TimestampNs kReadBudgetNs = 50'000'000;

TimestampNs MonotonicNowNs() {
  timespec now{};
  clock_gettime(CLOCK_MONOTONIC, &now);
  return static_cast<TimestampNs>(now.tv_sec) * 1'000'000'000 + now.tv_nsec;
}

}  // namespace

struct LiveCapture::State {
  explicit State(const AnalysisOptions& analysis) : analyses(analysis) {}
  ~State() {
    session.reset();
    if (kbuf != nullptr) kbuffer_free(kbuf);
    decoder.reset();
    if (tep != nullptr) tep_free(tep);
  }

  absl::StatusOr<bool> ReadCpu(size_t index);  // true when the CPU had no more pages
  // Reads every CPU until each had no more pages or `deadline_ns` (CLOCK_MONOTONIC) passed;
  // `drained`: by index, whether it did.
  absl::Status ReadCpus(TimestampNs deadline_ns, std::vector<bool>* drained);
  void Feed(size_t index);
  void FeedUpTo(TimestampNs horizon_ns);

  // A decoded event not yet fed; for a gap, the time of its CPU's event before it.
  struct Pending {
    Event event;
    TimestampNs last_before_ns = -1;
  };

  std::unique_ptr<internal::TracefsSession> session;
  tep_handle* tep = nullptr;
  kbuffer* kbuf = nullptr;
  TraceContext context;
  std::unique_ptr<internal::EventDecoder> decoder;
  AnalysisSession analyses;  // the report's pass (AnalysisSession: the one composition root)
  std::unique_ptr<internal::EventIngest> ingest;
  std::vector<std::deque<Pending>> pending;  // decoded, not yet fed; per index of session->cpus()
  std::vector<TimestampNs> last_read_ns;     // per index: newest event decoded, for gaps
  std::vector<LiveNapiCounts> napi;          // per CPU slot
  std::vector<std::string> enabled, missing;
  std::unique_ptr<internal::RecentPages> recent;  // the last pages read, when asked to keep them
  absl::StatusOr<TraceDatHeader> header;          // for SaveRecent once the session is gone
  bool stopped = false;
};

absl::StatusOr<bool> LiveCapture::State::ReadCpu(size_t index) {
  const uint16_t cpu = static_cast<uint16_t>(session->cpus()[index]);
  std::deque<Pending>& queue = pending[index];
  TimestampNs& last_read = last_read_ns[index];
  return session->ReadPages(index, [&](std::string_view page) {
    if (kbuffer_load_subbuffer(kbuf, const_cast<char*>(page.data())) < 0) {
      return absl::DataLossError(absl::StrCat("CPU ", cpu, ": unreadable ring-buffer page"));
    }
    unsigned long long ts = 0;
    bool first = true;
    TimestampNs first_ns = -1;
    int64_t events = 0;
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
        queue.push_back({gap, last_read});
      }
      Event event;
      event.ts_ns = static_cast<TimestampNs>(ts);
      event.cpu = cpu;
      if (decoder->Decode(data, kbuffer_event_size(kbuf), &event)) {
        queue.push_back({event, -1});
      } else {
        ++context.meta.skipped_records;
      }
      last_read = std::max(last_read, event.ts_ns);
      if (events++ == 0) first_ns = event.ts_ns;
    }
    if (recent) recent->Add(cpu, page, first_ns, last_read, events);
    return absl::OkStatus();
  });
}

absl::Status LiveCapture::State::ReadCpus(TimestampNs deadline_ns, std::vector<bool>* drained) {
  drained->assign(pending.size(), false);
  for (;;) {
    bool all = true;
    for (size_t i = 0; i < pending.size(); ++i) {
      if ((*drained)[i]) continue;
      absl::StatusOr<bool> read = ReadCpu(i);
      if (!read.ok()) return read.status();
      (*drained)[i] = *read;
      all = all && *read;
    }
    if (all || MonotonicNowNs() >= deadline_ns) return absl::OkStatus();
  }
}

void LiveCapture::State::Feed(size_t index) {
  Pending& next = pending[index].front();
  Event& event = next.event;
  if (event.kind == EventKind::kMissedEvents) {
    ingest->DeliverMissed(event, next.last_before_ns);
    return;
  }
  if (event.kind == EventKind::kNapiPoll) {
    LiveNapiCounts& counts = napi[event.cpu];
    ++counts.polls;
    if (event.napi.budget > 0 && event.napi.work >= event.napi.budget) ++counts.exhausted;
  }
  ingest->Deliver(event);
}

// Feeds every decoded event up to `horizon_ns`, merged across CPUs by time.
void LiveCapture::State::FeedUpTo(TimestampNs horizon_ns) {
  internal::StreamTournament heads;
  for (size_t i = 0; i < pending.size(); ++i) {
    if (!pending[i].empty()) heads.Push(pending[i].front().event.ts_ns, static_cast<int>(i));
  }
  heads.Build();
  while (!heads.empty() && heads.top_ts() <= horizon_ns) {
    size_t index = static_cast<size_t>(heads.top_stream());
    Feed(index);
    pending[index].pop_front();
    if (pending[index].empty()) {
      heads.PopTop();
    } else {
      heads.ReplaceTop(pending[index].front().event.ts_ns);
    }
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
  meta.enabled_events = state.enabled;
  utsname names{};
  if (uname(&names) == 0) {
    meta.uname = absl::StrCat(names.sysname, " ", names.nodename, " ", names.release, " ",
                              names.version, " ", names.machine);
    meta.kernel_release = names.release;
  }
  state.decoder = std::make_unique<internal::EventDecoder>(
      internal::TraceFormats{state.tep, {}}, &state.context);
  state.pending.resize(state.session->cpus().size());
  state.last_read_ns.assign(state.session->cpus().size(), -1);
  state.napi.assign(meta.cpus, {});
  state.ingest = std::make_unique<internal::EventIngest>(state.context, state.analyses, state.tep);
  state.ingest->Begin();
  if (options.keep_ns > 0) {
    state.recent = std::make_unique<internal::RecentPages>(meta.cpus, options.keep_ns,
                                                           options.keep_max_bytes);
  }
  // Only now: parsing the formats above takes long enough for a busy CPU to fill its buffer.
  if (absl::Status started = state.session->StartTracing(); !started.ok()) return started;
  return capture;
}

absl::StatusOr<bool> LiveCapture::Poll() {
  State& state = *state_;
  if (state.stopped) return absl::FailedPreconditionError("live capture already stopped");
  TimestampNs now_ns = MonotonicNowNs();
  std::vector<bool> drained;
  absl::Status status = state.ReadCpus(now_ns + kReadBudgetNs, &drained);
  if (!status.ok()) return status;
  // A CPU whose pages were not all read holds the others back at its newest event read: fed
  // past it, its earlier events still in the ring buffer would arrive after later ones (they
  // were moved forward in time, and the waits they close came out as 0 ns).
  state.FeedUpTo(internal::MergeHorizon(now_ns - kCommitMarginNs, state.last_read_ns, drained));
  return std::all_of(drained.begin(), drained.end(), [](bool done) { return done; });
}

absl::Status LiveCapture::Stop() {
  State& state = *state_;
  if (state.stopped) return absl::OkStatus();
  state.stopped = true;
  state.session->StopTracing();
  // Tracing stopped, so every CPU is read to its last page, however many there are.
  std::vector<bool> drained;
  absl::Status status = state.ReadCpus(INT64_MAX, &drained);
  state.FeedUpTo(INT64_MAX);
  if (state.ingest->clamped() > 0) {
    state.context.meta.warnings.push_back(
        absl::StrCat(state.ingest->clamped(),
                     " events arrived after later events were analysed; their time was moved "
                     "forward to keep the order"));
  }
  state.analyses.OnEnd();
  if (state.recent) state.header = state.session->BuildHeader();
  state.session.reset();
  return status;
}

Report LiveCapture::Snapshot() const { return state_->analyses.Finish(state_->context); }

absl::Status LiveCapture::SaveRecent(const std::string& path, SavedTraceSpan* span) const {
  const State& state = *state_;
  if (!state.recent) return absl::FailedPreconditionError("live capture keeps no pages");
  if (absl::Status usable = RequireFileOutput(path); !usable.ok()) return usable;
  absl::StatusOr<TraceDatHeader> header =
      state.session ? state.session->BuildHeader() : state.header;
  if (!header.ok()) return header.status();
  const internal::RecentPages& recent = *state.recent;
  *span = SavedTraceSpan();
  absl::Status status = internal::WriteRecentPages(recent, *header, path, &span->file_bytes);
  if (!status.ok()) return status;
  span->first_ns = recent.first_ns();
  span->last_ns = recent.last_ns();
  span->events = recent.events();
  span->pages = recent.page_count();
  span->pages_dropped_for_memory = recent.dropped_for_memory();
  return absl::OkStatus();
}

int64_t LiveCapture::events() const { return state_->ingest->delivered(); }

const std::vector<LiveNapiCounts>& LiveCapture::napi_counts() const { return state_->napi; }

const std::vector<std::string>& LiveCapture::events_enabled() const { return state_->enabled; }

const std::vector<std::string>& LiveCapture::events_missing() const { return state_->missing; }

}  // namespace napiscope
