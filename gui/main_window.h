// The napiscope window: opens a trace and shows what the core says about it.
#pragma once

#include <QMainWindow>
#include <QString>

class QPlainTextEdit;

namespace napiscope::gui {

/// Top-level window; owns the views of one loaded trace.
class MainWindow : public QMainWindow {
  Q_OBJECT

 public:
  explicit MainWindow(QWidget* parent = nullptr);

  /// Loads `path` and shows its summary; returns false and shows the error on failure.
  bool OpenTrace(const QString& path);

  /// The text the summary view shows (for tests).
  QString SummaryText() const;

  /// The last load error ("" when the last load worked).
  QString LastError() const { return last_error_; }

 private:
  void ChooseAndOpen();

  QPlainTextEdit* summary_view_;
  QString last_error_;
  bool show_error_dialogs_ = true;

 public:
  /// Tests turn modal dialogs off so nothing blocks.
  void SetShowErrorDialogs(bool show) { show_error_dialogs_ = show; }
};

}  // namespace napiscope::gui
