#include "track_thread.h"

#include <type_traits>
#include <utility>

namespace napiscope::perfetto_export {
namespace {

constexpr uint32_t kNetRx = 3;

}  // namespace

TrackThread::TrackThread(ContextListener* context_tracks, FactListener* fact_tracks,
                         TrackLayout* layout, const TraceContext** context, BlockWriter* packets,
                         BlockQueue* blocks)
    : context_tracks_(context_tracks),
      fact_tracks_(fact_tracks),
      layout_(layout),
      context_(context),
      packets_(packets),
      blocks_(blocks) {
  batch_.records.reserve(kBatchRecords);
  batch_.made_ns.reserve(kBatchRecords);
  layout_->UseNames(&names_);
}

void TrackThread::Start() {
  if (!thread_.joinable()) thread_ = std::thread([this] { Run(); });
}

TrackThread::~TrackThread() { Finish(); }

// The records the tracks write something for; the rest stays on the analysing thread.
void TrackThread::OnInterval(const ContextInterval& interval) {
  if (interval.frame.kind != ContextKind::kSoftirq) NeedString(interval.frame.name);
  Push(interval);
}

void TrackThread::OnUnknownTime(uint16_t cpu, TimestampNs start_ns, TimestampNs end_ns) {
  Push(UnknownTime{cpu, start_ns, end_ns});
}

void TrackThread::OnSoftirqRaise(const SoftirqRaiseFact& raise) {
  if (raise.vec == kNetRx) Push(raise);
}

void TrackThread::OnSoftirqWait(const SoftirqWaitFact& wait) {
  if (wait.paired()) Push(wait);
}

void TrackThread::OnSoftirqWaitDropped(const SoftirqRaiseFact& raise, TimestampNs gap_ns) {
  if (raise.vec == kNetRx) Push(WaitDropped{raise, gap_ns});
}

void TrackThread::OnThreadActivation(const ThreadActivationFact& activation) {
  if (activation.lost) return;
  NeedString(activation.comm);
  NeedComm(activation.pid);
  Push(activation);
}

void TrackThread::OnWakeQueued(const WakeWaitFact& wait) {
  if (!watches_.Watched(wait, [this](StringId id) { return (*context_)->strings.Get(id); })) {
    return;
  }
  watched_waits_.insert(wait.wait_id);
  NeedString(wait.waking_comm);
  Push(wait);
}

void TrackThread::OnWakeMoved(uint64_t wait_id, uint16_t from_cpu, uint16_t to_cpu,
                              TimestampNs ts_ns) {
  if (watched_waits_.contains(wait_id)) Push(WakeMoved{wait_id, from_cpu, to_cpu, ts_ns});
}

void TrackThread::OnWakeRan(const WakeRunFact& run) {
  if (watched_waits_.erase(run.wait_id) == 0) return;
  NeedComm(run.pid);
  Push(run);
}

void TrackThread::OnWakeDropped(uint64_t wait_id, WakeDropReason reason, TimestampNs ts_ns) {
  if (watched_waits_.erase(wait_id) != 0) Push(WakeDropped{wait_id, reason, ts_ns});
}

void TrackThread::NeedString(StringId id) {
  if (id < strings_sent_.size() && strings_sent_[id]) return;
  if (id >= strings_sent_.size()) strings_sent_.resize(size_t{id} + 1024, false);
  strings_sent_[id] = true;
  batch_.strings.emplace_back((*context_)->strings.Get(id));
  Push(StringCopy{id, static_cast<uint32_t>(batch_.strings.size() - 1)});
}

void TrackThread::NeedComm(int32_t pid) {
  StringId comm = (*context_)->tasks.CommOf(pid);
  auto [it, inserted] = comms_sent_.try_emplace(pid, comm);
  if (!inserted && it->second == comm) return;
  it->second = comm;
  NeedString(comm);
  Push(CommChange{pid, comm});
}

void TrackThread::HandOver() {
  events_since_hand_over_ = 0;
  batch_.progress_ns = now_ns_;
  std::unique_lock lock(mutex_);
  // Either side, once asleep, wakes at half a queue, not on every batch: a wake-up costs
  // about what writing a batch does.
  if (queued_.size() >= kMaxQueued) {
    room_.wait(lock, [this] { return queued_.size() <= kMaxQueued / 2; });
  }
  queued_.push_back(std::move(batch_));
  if (!free_.empty()) {
    batch_ = std::move(free_.back());
    free_.pop_back();
  } else {
    batch_ = Batch{};
    batch_.records.reserve(kBatchRecords);
    batch_.made_ns.reserve(kBatchRecords);
  }
  const bool wake = queued_.size() == kMaxQueued / 2;
  lock.unlock();
  if (wake) work_.notify_one();
}

void TrackThread::Run() {
  std::unique_lock lock(mutex_);
  while (true) {
    if (queued_.empty()) {
      work_.wait(lock, [this] { return queued_.size() >= kMaxQueued / 2 || finishing_; });
    }
    if (queued_.empty()) return;  // finishing, and everything written
    Batch batch = std::move(queued_.front());
    queued_.pop_front();
    const bool wake = queued_.size() == kMaxQueued / 2;
    lock.unlock();
    if (wake) room_.notify_one();
    Write(batch);
    // Every record up to the batch's time is written: blocks made before it may go.
    packets_->SetNow(batch.progress_ns);
    blocks_->Progress(batch.progress_ns);
    batch.records.clear();
    batch.made_ns.clear();
    batch.strings.clear();
    lock.lock();
    free_.push_back(std::move(batch));
  }
}

void TrackThread::Write(const Batch& batch) {
  for (size_t i = 0; i < batch.records.size(); ++i) {
    const Record& record = batch.records[i];
    packets_->SetNow(batch.made_ns[i]);
    std::visit(
        [&](const auto& r) {
          using T = std::decay_t<decltype(r)>;
          if constexpr (std::is_same_v<T, ContextInterval>) {
            context_tracks_->OnInterval(r);
          } else if constexpr (std::is_same_v<T, UnknownTime>) {
            context_tracks_->OnUnknownTime(r.cpu, r.start_ns, r.end_ns);
          } else if constexpr (std::is_same_v<T, SoftirqRaiseFact>) {
            fact_tracks_->OnSoftirqRaise(r);
          } else if constexpr (std::is_same_v<T, SoftirqWaitFact>) {
            fact_tracks_->OnSoftirqWait(r);
          } else if constexpr (std::is_same_v<T, WaitDropped>) {
            fact_tracks_->OnSoftirqWaitDropped(r.raise, r.gap_ns);
          } else if constexpr (std::is_same_v<T, ThreadActivationFact>) {
            fact_tracks_->OnThreadActivation(r);
          } else if constexpr (std::is_same_v<T, WakeWaitFact>) {
            fact_tracks_->OnWakeQueued(r);
          } else if constexpr (std::is_same_v<T, WakeMoved>) {
            fact_tracks_->OnWakeMoved(r.wait_id, r.from_cpu, r.to_cpu, r.ts_ns);
          } else if constexpr (std::is_same_v<T, WakeRunFact>) {
            fact_tracks_->OnWakeRan(r);
          } else if constexpr (std::is_same_v<T, WakeDropped>) {
            fact_tracks_->OnWakeDropped(r.wait_id, r.reason, r.ts_ns);
          } else if constexpr (std::is_same_v<T, StringCopy>) {
            names_.strings[r.id] = batch.strings[r.index];
          } else {
            names_.comms[r.pid] = r.comm;
          }
        },
        record);
  }
}

void TrackThread::Finish() {
  if (finished_) return;
  finished_ = true;
  Start();  // a load that failed before it started: the thread ends at once
  {
    std::unique_lock lock(mutex_);
    if (queued_.size() >= kMaxQueued) {
      room_.wait(lock, [this] { return queued_.size() <= kMaxQueued / 2; });
    }
    batch_.progress_ns = now_ns_;
    queued_.push_back(std::move(batch_));
    finishing_ = true;
  }
  work_.notify_one();
  thread_.join();
  layout_->UseNames(nullptr);
}

}  // namespace napiscope::perfetto_export
