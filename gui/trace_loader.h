// Runs LoadTraceForView on a worker thread and reports progress, result, error or cancel to the
// GUI thread with signals.
#pragma once

#include <QObject>
#include <QString>
#include <QStringList>
#include <QThread>
#include <atomic>
#include <memory>

#include "loaded_trace.h"

namespace napiscope::gui {

/// One load at a time; a new Start() cancels the running one.
class TraceLoader : public QObject {
  Q_OBJECT

 public:
  explicit TraceLoader(QObject* parent = nullptr);
  ~TraceLoader() override;

  /// Starts loading `path` (its buffer instance `buffer`, "" for the default) in the background.
  void Start(const QString& path, const QString& buffer = QString());

  /// Asks the running load to stop; Cancelled() follows.
  void Cancel();

  /// True while a load runs.
  bool busy() const { return worker_ != nullptr; }

  /// Blocks until the running load (if any) has finished and its signal was delivered.
  void Wait();

 signals:
  /// Fraction done, 0..100.
  void Progress(int percent);
  void Loaded(std::shared_ptr<const napiscope::gui::LoadedTrace> trace);
  /// The loader's message, "PATH: what is wrong", and the buffer instances of the file to
  /// choose from when the error is that the buffer to read is not clear (BufferChoices).
  void Failed(const QString& message, const QStringList& buffers);
  void Cancelled(const QString& path);

 private:
  void Finished(QThread* worker, std::shared_ptr<LoadedTrace> trace, absl::Status status);

  QThread* worker_ = nullptr;
  std::shared_ptr<std::atomic<bool>> cancel_;
  std::shared_ptr<std::atomic<int>> last_percent_;
};

}  // namespace napiscope::gui
