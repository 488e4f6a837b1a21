// The napiscope window: opens traces (command line, File > Open, drag and drop, recent files)
// in the background and shows the timeline, its legend and filters, and the trace summary.
#pragma once

#include <QMainWindow>
#include <QString>
#include <memory>

#include "command_line.h"
#include "loaded_trace.h"
#include "session.h"

class QComboBox;
class QLabel;
class QLineEdit;
class QMenu;
class QPlainTextEdit;
class QProgressBar;
class QPushButton;
class QSplitter;
class QTabWidget;
class QThread;
class QTimer;

namespace napiscope::gui {

class ChartsPanel;
class EventListPanel;
class FindingsPanel;
class LegendWidget;
class TimelineView;
class TraceLoader;

/// Top-level window; owns the views of one loaded trace.
class MainWindow : public QMainWindow {
  Q_OBJECT

 public:
  explicit MainWindow(QWidget* parent = nullptr);
  ~MainWindow() override;

  /// Starts loading `path` in the background; the timeline shows it when done, with the view
  /// options (--range, --cpus, --pin, --session) of `options` applied.
  void OpenTrace(const QString& path, const GuiOptions& options = {});

  /// Applies the view options of the command line to the loaded trace; false with `error` when
  /// one is wrong (the others are still applied).
  bool ApplyViewOptions(const GuiOptions& options, QString* error);

  /// What a session saves of the current view, and restoring it on the loaded trace.
  SessionState CaptureSession() const;
  void RestoreSession(const SessionState& session);
  /// File > Save session; false with `error` naming the file.
  bool SaveSession(const QString& path, QString* error) const;
  /// File > Open session: restores it (opening its trace first when another one is shown).
  bool OpenSession(const QString& path, QString* error);

  /// The go-to box: "705.4123" or "+100ms" centres the view there and sets marker A; "FROM TO"
  /// shows that range. False with `error` when the text is not that.
  bool GoToTime(const QString& text, QString* error);

  /// The header line above the timeline (file, range shown, markers), as plain text.
  QString HeaderText() const;

  /// Loads `path` (the buffer instance `buffer`, "" for the default) and waits for the result
  /// and its charts; false when it failed (see LastError()).
  bool OpenTraceAndWait(const QString& path, const QString& buffer = QString());

  /// Blocks until the running load (if any) has finished and its result is shown (the charts
  /// may still be computing: charts()->WaitForRefresh()).
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

  /// The colour legend above the timeline.
  const LegendWidget* legend() const { return legend_; }

  /// The trace shown (null before the first load).
  const LoadedTrace* trace() const { return trace_.get(); }

  /// Recent files, most recent first.
  QStringList RecentFiles() const;

  /// Zooms the timeline to finding `index` of the findings shown and highlights what it names.
  void FocusFinding(int index);
  /// The same for any finding: zoom to its window, highlight and scroll to its CPU, pin the
  /// threads of a ping-pong finding.
  void ShowFinding(const Finding& finding);

  /// The findings the Findings tab shows (of the whole trace, or of the range last analysed).
  const std::vector<Finding>& ShownFindings() const { return shown_findings_; }

  /// Runs the core analyses again over [from_ns, to_ns] in the background; the Findings tab
  /// shows the result, saying which range it describes.
  void AnalyseRange(TimestampNs from_ns, TimestampNs to_ns);
  /// AnalyseRange of markers A-B, or of the view when they are not both set.
  void AnalyseSelectedRange();
  /// Blocks until a running range analysis has finished and is shown.
  void WaitForRangeAnalysis();
  /// Shows the findings of the whole trace again.
  void ShowWholeTraceFindings();

  /// The findings list and the charts.
  FindingsPanel* findings() const { return findings_; }
  EventListPanel* events() const { return events_; }
  ChartsPanel* charts() const { return charts_; }

  /// Gives the timeline the height its CPUs need, up to two thirds of the window.
  void FitTimelineHeight();

  /// Applies the task / IRQ / vector filter fields.
  void ApplyFilter();

  /// Sets the filter fields (task: comm substring or pid; irq: none for all; vec: -1 for all).
  void SetFilter(const QString& task, InterruptId irq, int vec);

 protected:
  void dragEnterEvent(QDragEnterEvent* event) override;
  void dropEvent(QDropEvent* event) override;

 private:
  void BuildMenus();
  void BuildFilterBar();
  void ChooseAndOpen();
  void ChooseAndSaveSession();
  void ChooseAndOpenSession();
  void ShowTrace(std::shared_ptr<const LoadedTrace> trace);
  void ShowError(const QString& message);
  // A load that failed: its error, and when the file's buffers are the question, the choice
  // of them (asked in a dialog, and offered in File > Buffer).
  void ShowLoadError(const QString& message, const QStringList& buffers);
  // File > Buffer for the trace shown: its top buffer and instances, when it has instances.
  void OfferBuffersOf(const LoadedTrace& trace);
  // File > Buffer: `buffers` of `path` to load instead ("" stands for the top buffer), the one
  // shown (`current`) checked; disabled when empty.
  void RebuildBufferMenu(const QString& path, const QStringList& buffers, const QString& current);
  void AddRecentFile(const QString& path);
  void RebuildRecentMenu();
  void RebuildCpuMenu();
  void SyncCpuMenu();
  // Shows or hides the CPUs without events, leaving the others as they are.
  void ShowSilentCpus(bool visible);
  // True when every CPU without events is shown.
  bool SilentCpusShown() const;
  void UpdateInfo();
  void SetLoading(bool loading);
  void ShowEventFromList(TimestampNs ts_ns, int cpu);
  void ListFollowsTimeline();

  TraceLoader* loader_;
  std::shared_ptr<const LoadedTrace> trace_;
  TimelineView* timeline_;
  QSplitter* splitter_;
  QLabel* info_;
  LegendWidget* legend_;
  QTabWidget* bottom_tabs_;
  QPlainTextEdit* summary_view_;
  FindingsPanel* findings_;
  EventListPanel* events_;
  QTimer* list_follow_;           // debounces the list following the view
  bool selecting_from_list_ = false;
  ChartsPanel* charts_;
  QLineEdit* task_filter_;
  QLineEdit* go_to_;
  // The IRQ filter box's entry (none for "all").
  InterruptId SelectedInterrupt() const;

  QComboBox* irq_filter_;  // data: the entry's InterruptId (none for "all")
  QComboBox* vector_filter_;
  QMenu* recent_menu_;
  QMenu* cpu_menu_;
  QMenu* buffer_menu_;
  QProgressBar* progress_;
  QPushButton* cancel_;
  QLabel* status_;
  QString last_error_;
  std::vector<Finding> shown_findings_;
  QThread* range_worker_ = nullptr;
  QString loading_path_;
  GuiOptions pending_options_;  // applied when the load started by OpenTrace finishes
  bool show_error_dialogs_ = true;
};

}  // namespace napiscope::gui
