#include "trace_loader.h"

#include <QCoreApplication>
#include <QEventLoop>
#if defined(__GLIBC__)
#include <malloc.h>
#endif

namespace napiscope::gui {

TraceLoader::TraceLoader(QObject* parent) : QObject(parent) {}

TraceLoader::~TraceLoader() {
  if (worker_ != nullptr) {
    cancel_->store(true);
    worker_->wait();
    delete worker_;
  }
}

void TraceLoader::Start(const QString& path, const QString& buffer) {
  if (worker_ != nullptr) {
    cancel_->store(true);
    worker_->wait();
    QCoreApplication::sendPostedEvents(this);  // deliver the cancelled load's result first
  }
  auto trace = std::make_shared<LoadedTrace>();
  cancel_ = std::make_shared<std::atomic<bool>>(false);
  last_percent_ = std::make_shared<std::atomic<int>>(-1);
  std::string file = path.toStdString();
  std::string buffer_name = buffer.toStdString();
  auto cancel = cancel_;
  auto last_percent = last_percent_;
  worker_ = QThread::create([this, file, buffer_name, trace, cancel, last_percent] {
    LoadOptions options;
    options.cancel = cancel.get();
    options.buffer = buffer_name;
    // Called on the worker: post only whole-percent changes to the GUI thread.
    options.progress = [this, last_percent](double fraction) {
      int percent = static_cast<int>(fraction * 100);
      if (last_percent->exchange(percent) == percent) return;
      QMetaObject::invokeMethod(
          this, [this, percent] { emit Progress(percent); }, Qt::QueuedConnection);
    };
    absl::Status status = LoadTraceForView(file, options, trace.get());
#if defined(__GLIBC__)
    // The load's temporary memory (decoded pages, the builder's interval lists before packing)
    // is freed by now, but glibc keeps free pages in its arenas: return them to the system.
    malloc_trim(0);
#endif
    QThread* self = QThread::currentThread();
    QMetaObject::invokeMethod(
        this, [this, self, trace, status] { Finished(self, trace, status); }, Qt::QueuedConnection);
  });
  worker_->start();
}

void TraceLoader::Finished(QThread* worker, std::shared_ptr<LoadedTrace> trace,
                           absl::Status status) {
  worker->wait();
  if (worker == worker_) worker_ = nullptr;
  delete worker;
  if (status.ok()) {
    emit Loaded(trace);
  } else if (status.code() == absl::StatusCode::kCancelled) {
    emit Cancelled(QString::fromStdString(trace->path));
  } else {
    QStringList buffers;
    for (const std::string& name : BufferChoices(status)) {
      buffers.append(QString::fromStdString(name));
    }
    emit Failed(QString::fromStdString(std::string(status.message())), buffers);
  }
}

void TraceLoader::Cancel() {
  if (cancel_) cancel_->store(true);
}

void TraceLoader::Wait() {
  while (worker_ != nullptr) {
    worker_->wait();
    QCoreApplication::sendPostedEvents(this);
  }
}

}  // namespace napiscope::gui
