// The napiscope window: opens traces (command line, File > Open, drag and drop, recent files)
// in the background and shows the timeline, its legend and filters, and the trace summary.
#pragma once

#include <QMainWindow>
#include <QString>
#include <memory>

#include "loaded_trace.h"

class QComboBox;
class QLabel;
class QLineEdit;
class QMenu;
class QPlainTextEdit;
class QProgressBar;
class QPushButton;
class QScrollArea;
class QSplitter;
class QTabWidget;

namespace napiscope::gui {

class ChartsPanel;
class FindingsPanel;
class TimelineView;
class TraceLoader;

/// Top-level window; owns the views of one loaded trace.
class MainWindow : public QMainWindow {
  Q_OBJECT

 public:
  explicit MainWindow(QWidget* parent = nullptr);
  ~MainWindow() override;

  /// Starts loading `path` in the background; the timeline shows it when done.
  void OpenTrace(const QString& path);

  /// Loads `path` and waits for the result; false when it failed (see LastError()).
  bool OpenTraceAndWait(const QString& path);

  /// Blocks until the running load (if any) has finished and its result is shown.
  void WaitForLoad();

  /// The status bar's message (what was loaded, or why not).
  QString StatusText() const;

  /// The text the Report tab shows (the CLI's `napiscope report`).
  QString SummaryText() const;

  /// The last load error ("" when the last load worked), as the CLI prints it.
  QString LastError() const { return last_error_; }

  /// Tests and --screenshot turn modal dialogs off so nothing blocks.
  void SetShowErrorDialogs(bool show) { show_error_dialogs_ = show; }

  /// The timeline widget.
  TimelineView* timeline() const { return timeline_; }

  /// The trace shown (null before the first load).
  const LoadedTrace* trace() const { return trace_.get(); }

  /// Recent files, most recent first.
  QStringList RecentFiles() const;

  /// Zooms the timeline to finding `index` of the report and highlights what it names.
  void FocusFinding(int index);

  /// The findings list and the charts.
  FindingsPanel* findings() const { return findings_; }
  ChartsPanel* charts() const { return charts_; }

  /// Gives the timeline the height its CPUs need, up to two thirds of the window.
  void FitTimelineHeight();

  /// Applies the task / IRQ / vector filter fields.
  void ApplyFilter();

  /// Sets the filter fields (task: comm substring or pid; irq and vec: -1 for all).
  void SetFilter(const QString& task, int irq, int vec);

 protected:
  void dragEnterEvent(QDragEnterEvent* event) override;
  void dropEvent(QDropEvent* event) override;

 private:
  void BuildMenus();
  void BuildFilterBar();
  void ChooseAndOpen();
  void ShowTrace(std::shared_ptr<const LoadedTrace> trace);
  void ShowError(const QString& message);
  void AddRecentFile(const QString& path);
  void RebuildRecentMenu();
  void RebuildCpuMenu();
  void UpdateInfo();
  void SetLoading(bool loading);

  TraceLoader* loader_;
  std::shared_ptr<const LoadedTrace> trace_;
  TimelineView* timeline_;
  QScrollArea* timeline_scroll_;
  QSplitter* splitter_;
  QLabel* info_;
  QTabWidget* bottom_tabs_;
  QPlainTextEdit* summary_view_;
  FindingsPanel* findings_;
  ChartsPanel* charts_;
  QLineEdit* task_filter_;
  QComboBox* irq_filter_;
  QComboBox* vector_filter_;
  QMenu* recent_menu_;
  QMenu* cpu_menu_;
  QProgressBar* progress_;
  QPushButton* cancel_;
  QLabel* status_;
  QString last_error_;
  QString loading_path_;
  bool show_error_dialogs_ = true;
};

}  // namespace napiscope::gui
