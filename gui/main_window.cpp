#include "main_window.h"

#include <QComboBox>
#include <QCoreApplication>
#include <QDragEnterEvent>
#include <QDropEvent>
#include <QEvent>
#include <QFileDialog>
#include <QFileInfo>
#include <QFontDatabase>
#include <QLabel>
#include <QLineEdit>
#include <QLocale>
#include <QMenuBar>
#include <QMessageBox>
#include <QMimeData>
#include <QPlainTextEdit>
#include <QProgressBar>
#include <QPushButton>
#include <QSettings>
#include <QSplitter>
#include <QStatusBar>
#include <QTabWidget>
#include <QTextDocument>
#include <QThread>
#include <QTimer>
#include <QToolBar>
#include <QVBoxLayout>
#include <algorithm>
#include <functional>

#include "charts_panel.h"
#include "event_list.h"
#include "findings_panel.h"
#include "legend_widget.h"
#include "napiscope/format.h"
#include "napiscope/phrasing.h"
#include "napiscope/report_render.h"
#include "palette.h"
#include "range_analysis.h"
#include "thread_lanes.h"
#include "time_text.h"
#include "timeline_view.h"
#include "trace_loader.h"

namespace napiscope::gui {
namespace {

constexpr int kMaxRecentFiles = 8;
// Below this many events the bytes per event are mostly the fixed cost of an empty model.
constexpr int64_t kEventsForBytesPerEvent = 100000;
// The data of the CPUs menu's switch for the CPUs without events (the other items hold a CPU).
constexpr int kSilentCpusAction = -1;
const char* const kRecentKey = "recentFiles";

QString Duration(TimestampNs ns) { return QString::fromStdString(FormatDuration(ns)); }

// Calls `resized` when the widget it watches changes size.
class ResizeWatcher : public QObject {
 public:
  ResizeWatcher(QObject* parent, std::function<void()> resized)
      : QObject(parent), resized_(std::move(resized)) {}
  bool eventFilter(QObject* watched, QEvent* event) override {
    if (event->type() == QEvent::Resize) resized_();
    return QObject::eventFilter(watched, event);
  }

 private:
  std::function<void()> resized_;
};

// The columns of fixed-width text `view` shows without scrolling sideways (at least 40).
size_t ColumnsOf(const QPlainTextEdit* view) {
  int char_width = std::max(1, view->fontMetrics().horizontalAdvance(QLatin1Char('0')));
  int usable = view->viewport()->width() - 2 * static_cast<int>(view->document()->documentMargin());
  return static_cast<size_t>(std::max(40, usable / char_width));
}

// The report in `view`, wrapped to the columns it shows (the CLI's text at that --width); redone
// only when the column count changed, unless `force`.
void ShowReportText(QPlainTextEdit* view, const Report& report, bool force) {
  size_t columns = ColumnsOf(view);
  const char* const kShownColumns = "napiscopeReportColumns";
  if (!force && view->property(kShownColumns).toULongLong() == columns) return;
  view->setProperty(kShownColumns, static_cast<qulonglong>(columns));
  TextReportOptions options;
  options.width = columns;
  view->setPlainText(QString::fromStdString(ReportToText(report, options)));
}

}  // namespace

MainWindow::MainWindow(QWidget* parent)
    : QMainWindow(parent), loader_(new TraceLoader(this)), timeline_(new TimelineView) {
  setWindowTitle("napiscope");
  setAcceptDrops(true);

  auto* central = new QWidget(this);
  auto* layout = new QVBoxLayout(central);
  layout->setContentsMargins(4, 4, 4, 0);
  layout->setSpacing(2);
  info_ = new QLabel(central);
  info_->setTextFormat(Qt::RichText);
  info_->setText("Open a trace.dat or ftrace text file with File > Open, or drop it here.");
  layout->addWidget(info_);
  legend_ = new LegendWidget(central);
  layout->addWidget(legend_);

  // Below the timeline: findings and the report text on the left, charts on the right.
  auto* bottom = new QSplitter(Qt::Horizontal, central);
  bottom_tabs_ = new QTabWidget(bottom);
  findings_ = new FindingsPanel(bottom_tabs_);
  bottom_tabs_->addTab(findings_, "Findings");
  events_ = new EventListPanel(bottom_tabs_);
  bottom_tabs_->addTab(events_, "Events");
  summary_view_ = new QPlainTextEdit(bottom_tabs_);
  summary_view_->setReadOnly(true);
  summary_view_->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
  summary_view_->setLineWrapMode(QPlainTextEdit::NoWrap);
  // Wrapped to the pane's width, again when it changes (at 120 columns it was cut at ~90).
  summary_view_->viewport()->installEventFilter(new ResizeWatcher(summary_view_, [this] {
    if (trace_) ShowReportText(summary_view_, trace_->report, false);
  }));
  bottom_tabs_->addTab(summary_view_, "Report");
  charts_ = new ChartsPanel(bottom);
  bottom->addWidget(bottom_tabs_);
  bottom->addWidget(charts_);
  bottom->setStretchFactor(0, 3);
  bottom->setStretchFactor(1, 5);

  auto* splitter = new QSplitter(Qt::Vertical, central);
  splitter->addWidget(timeline_);
  splitter->addWidget(bottom);
  splitter->setStretchFactor(0, 3);
  splitter->setStretchFactor(1, 2);
  splitter_ = splitter;
  layout->addWidget(splitter, 1);
  setCentralWidget(central);

  progress_ = new QProgressBar(this);
  progress_->setRange(0, 100);
  progress_->setMaximumWidth(240);
  cancel_ = new QPushButton("Cancel", this);
  status_ = new QLabel(this);
  statusBar()->addWidget(status_, 1);
  statusBar()->addPermanentWidget(progress_);
  statusBar()->addPermanentWidget(cancel_);
  SetLoading(false);

  BuildMenus();
  BuildFilterBar();

  connect(cancel_, &QPushButton::clicked, loader_, &TraceLoader::Cancel);
  connect(loader_, &TraceLoader::Progress, progress_, &QProgressBar::setValue);
  connect(loader_, &TraceLoader::Loaded, this, &MainWindow::ShowTrace);
  connect(loader_, &TraceLoader::Failed, this, &MainWindow::ShowLoadError);
  connect(loader_, &TraceLoader::Cancelled, this, [this](const QString& path) {
    SetLoading(false);
    status_->setText(QString("Cancelled loading %1").arg(path));
  });
  connect(timeline_, &TimelineView::RangeChanged, this, &MainWindow::UpdateInfo);
  connect(timeline_, &TimelineView::SelectedRangeChanged, charts_, &ChartsPanel::SetRange);
  connect(findings_, &FindingsPanel::FindingSelected, this, &MainWindow::FocusFinding);
  connect(findings_, &FindingsPanel::RangeRequested, this, &MainWindow::AnalyseSelectedRange);
  connect(findings_, &FindingsPanel::WholeTraceRequested, this,
          &MainWindow::ShowWholeTraceFindings);
  connect(findings_, &FindingsPanel::SelectionCleared, this,
          [this] { timeline_->SetHighlight({}, std::nullopt, {}); });
  connect(timeline_, &TimelineView::MarkersChanged, this, &MainWindow::UpdateInfo);
  connect(timeline_, &TimelineView::CpuVisibilityChanged, this, &MainWindow::SyncCpuMenu);
  // The event list and the timeline follow each other: a selected event moves marker A (and
  // the view, when it is outside); marker A and the view move the list.
  list_follow_ = new QTimer(this);
  list_follow_->setSingleShot(true);
  list_follow_->setInterval(60);
  connect(list_follow_, &QTimer::timeout, this, &MainWindow::ListFollowsTimeline);
  connect(events_, &EventListPanel::EventSelected, this,
          [this](TimestampNs ts_ns, int cpu, int) { ShowEventFromList(ts_ns, cpu); });
  connect(timeline_, &TimelineView::RangeChanged, list_follow_, qOverload<>(&QTimer::start));
  connect(events_, &EventListPanel::PinRequested, timeline_, &TimelineView::Pin);
  connect(timeline_, &TimelineView::MarkersChanged, this, [this] {
    if (!selecting_from_list_ && timeline_->state().marker_a) {
      events_->ShowTime(*timeline_->state().marker_a);
    }
  });
  resize(1400, 900);
}

MainWindow::~MainWindow() { WaitForRangeAnalysis(); }

void MainWindow::BuildMenus() {
  QMenu* file = menuBar()->addMenu("&File");
  file->addAction("&Open...", QKeySequence::Open, this, &MainWindow::ChooseAndOpen);
  recent_menu_ = file->addMenu("Open &Recent");
  buffer_menu_ = file->addMenu("&Buffer");
  buffer_menu_->setObjectName("bufferMenu");
  buffer_menu_->setToolTip("The buffer instance of the trace to read (trace-cmd record -B)");
  buffer_menu_->setEnabled(false);
  file->addSeparator();
  file->addAction("&Save session...", QKeySequence::Save, this, &MainWindow::ChooseAndSaveSession);
  file->addAction("Open s&ession...", this, &MainWindow::ChooseAndOpenSession);
  file->addSeparator();
  file->addAction("&Quit", QKeySequence::Quit, this, &QWidget::close);
  RebuildRecentMenu();

  QMenu* view = menuBar()->addMenu("&View");
  view->addAction("Zoom to &fit", QKeySequence(Qt::Key_Home), timeline_, &TimelineView::ZoomToFit);
  view->addAction("Zoom to &A–B", QKeySequence(Qt::Key_Z), timeline_,
                  &TimelineView::ZoomToMarkers);
  view->addAction("&Go to time...", QKeySequence(Qt::CTRL | Qt::Key_G), this, [this] {
    go_to_->setFocus();
    go_to_->selectAll();
  });
  view->addAction("&Clear markers", QKeySequence(Qt::Key_Escape), this,
                  [this] { timeline_->SetMarkers(std::nullopt, std::nullopt); });
  cpu_menu_ = view->addMenu("C&PUs");
  QMenu* help = menuBar()->addMenu("&Help");
  help->addAction("&Navigation", this, [this] {
    QMessageBox::information(this, "Navigation",
                             "Wheel: zoom at the cursor · drag: pan · W/S: zoom in/out · A/D: pan\n"
                             "Double-click an interval: zoom to it · Home: whole trace\n"
                             "Click: marker A · Shift-click: marker B · Esc: clear markers\n"
                             "Right-drag or Ctrl+drag: zoom to a range · Z: zoom to A–B\n"
                             "Ctrl+G: go to a time (705.4123 or +100ms)\n"
                             "Hover for details · Shift+wheel: scroll CPUs\n"
                             "Click a CPU's name: expand or compact its rows · right-click: more");
  });
}

void MainWindow::BuildFilterBar() {
  QToolBar* bar = addToolBar("Filter");
  bar->setMovable(false);
  bar->addWidget(new QLabel(" Task: "));
  task_filter_ = new QLineEdit(bar);
  task_filter_->setPlaceholderText("comm or pid");
  task_filter_->setClearButtonEnabled(true);
  task_filter_->setMaximumWidth(200);
  bar->addWidget(task_filter_);
  bar->addWidget(new QLabel("  IRQ: "));
  irq_filter_ = new QComboBox(bar);
  irq_filter_->setSizeAdjustPolicy(QComboBox::AdjustToContents);
  bar->addWidget(irq_filter_);
  bar->addWidget(new QLabel("  Softirq: "));
  vector_filter_ = new QComboBox(bar);
  vector_filter_->addItem("all", -1);
  for (uint32_t vec = 0; vec < kSoftirqVectorCount; ++vec) {
    vector_filter_->addItem(QString::fromUtf8(SoftirqVectorName(vec).data()), vec);
  }
  bar->addWidget(vector_filter_);
  bar->addSeparator();
  bar->addWidget(new QLabel(" Go to: "));
  go_to_ = new QLineEdit(bar);
  go_to_->setObjectName("goTo");
  go_to_->setPlaceholderText("seconds, +100ms or FROM TO");  // a time of the trace once loaded
  go_to_->setToolTip("Absolute trace seconds (as trace-cmd and `napiscope report --from` print "
                     "them) or offsets from the trace start (+100ms); Enter to go");
  go_to_->setMaximumWidth(230);
  bar->addWidget(go_to_);
  connect(go_to_, &QLineEdit::returnPressed, this, [this] {
    QString error;
    if (GoToTime(go_to_->text(), &error)) {
      timeline_->setFocus(Qt::OtherFocusReason);
    } else {
      status_->setText(error);
    }
  });
  connect(task_filter_, &QLineEdit::textChanged, this, &MainWindow::ApplyFilter);
  connect(irq_filter_, &QComboBox::currentIndexChanged, this, &MainWindow::ApplyFilter);
  connect(vector_filter_, &QComboBox::currentIndexChanged, this, &MainWindow::ApplyFilter);
}

void MainWindow::ChooseAndOpen() {
  QString path = QFileDialog::getOpenFileName(
      this, "Open trace", QString(), "Traces (*.dat *.txt *.trace *.gz *.zst *.xz);;All files (*)");
  if (!path.isEmpty()) OpenTrace(path);
}

void MainWindow::OpenTrace(const QString& path, const GuiOptions& options) {
  loading_path_ = path;
  pending_options_ = options;
  SetLoading(true);
  status_->setText(QString("Loading %1 ...").arg(path));
  loader_->Start(path, options.buffer);
}

void MainWindow::WaitForLoad() { loader_->Wait(); }

QString MainWindow::StatusText() const { return status_->text(); }

bool MainWindow::OpenTraceAndWait(const QString& path, const QString& buffer) {
  GuiOptions options;
  options.buffer = buffer;
  OpenTrace(path, options);
  loader_->Wait();
  charts_->WaitForRefresh();
  return last_error_.isEmpty() && trace_ && trace_->path == path.toStdString();
}

void MainWindow::SetLoading(bool loading) {
  progress_->setVisible(loading);
  cancel_->setVisible(loading);
  progress_->setValue(0);
}

void MainWindow::ShowTrace(std::shared_ptr<const LoadedTrace> trace) {
  SetLoading(false);
  last_error_.clear();
  trace_ = std::move(trace);
  QString path = QString::fromStdString(trace_->path);
  setWindowTitle(QString("napiscope - %1").arg(QFileInfo(path).fileName()));
  ShowReportText(summary_view_, trace_->report, true);
  WaitForRangeAnalysis();
  shown_findings_ = trace_->report.findings;
  findings_->SetFindings(shown_findings_, trace_->timeline.start_ns(), "the whole trace");
  irq_filter_->blockSignals(true);
  irq_filter_->clear();
  irq_filter_->addItem("all", QVariant::fromValue(InterruptId{}));
  // One entry per IRQ, and per x86 vector: a vector's number is not a device IRQ's.
  std::vector<InterruptId> irqs;
  for (const IrqHandlerKey& handler : trace_->timeline.handlers()) {
    if (std::find(irqs.begin(), irqs.end(), handler.irq) != irqs.end()) continue;
    irqs.push_back(handler.irq);
    irq_filter_->addItem(
        QString::fromStdString(trace_->timeline.KeyLabel(
            Lane::kHardirq, static_cast<uint16_t>(&handler - trace_->timeline.handlers().data()),
            trace_->context.strings)),
        QVariant::fromValue(handler.irq));
  }
  irq_filter_->blockSignals(false);
  timeline_->SetTrace(trace_);
  legend_->SetTaskClasses(palette::TaskClassesShown(trace_->timeline));
  charts_->SetTrace(trace_);
  events_->SetTrace(trace_);
  FitTimelineHeight();
  RebuildCpuMenu();
  OfferBuffersOf(*trace_);
  ApplyFilter();
  AddRecentFile(path);
  const Timeline& t = trace_->timeline;
  // An example the user can type as it is: the middle of this trace, in its own seconds.
  go_to_->setPlaceholderText(
      QString("%1, +100ms or FROM TO")
          .arg(FormatTraceSeconds(t.start_ns() + (t.end_ns() - t.start_ns()) / 2, 1'000'000)));
  int silent = trace_->CpusWithoutEvents();
  QString cpus = QString::fromStdString(Counted(t.cpus(), "CPU"));
  if (silent > 0) cpus += QString(" (%1 without events, hidden: View > CPUs)").arg(silent);
  // The model's memory; per event once there are enough events for the ratio to mean much.
  int64_t bytes = static_cast<int64_t>(t.BytesUsed() + trace_->events.BytesUsed());
  QString memory = QString("%1 in memory").arg(QLocale().formattedDataSize(bytes));
  if (t.events() >= kEventsForBytesPerEvent) {
    memory += QString(" (%1 bytes/event)")
                  .arg(static_cast<double>(bytes) / static_cast<double>(t.events()), 0, 'f', 1);
  }
  status_->setText(QString("%1 · %2 events · %3 · %4 · %5")
                       .arg(path)
                       .arg(t.events())
                       .arg(cpus)
                       .arg(Duration(t.end_ns() - t.start_ns()))
                       .arg(memory));
  UpdateInfo();
  QString error;
  if (!ApplyViewOptions(pending_options_, &error)) ShowError(error);
  pending_options_ = GuiOptions{};
  // Keys work at once: the timeline takes the focus (and shows it) without a click.
  timeline_->setFocus(Qt::OtherFocusReason);
}


void MainWindow::FocusFinding(int index) {
  if (!trace_ || index < 0 || index >= static_cast<int>(shown_findings_.size())) return;
  ShowFinding(shown_findings_[index]);
}

void MainWindow::ShowFinding(const Finding& finding) {
  if (!trace_) return;
  FindingFocus focus = FocusOf(finding, trace_->active_cpus);
  if (focus.window) {
    // Show the window with context around it: a fifth of its length each side, at least 5 us.
    auto [from, to] = *focus.window;
    TimestampNs margin = std::max<TimestampNs>((to - from) / 5, 5000);
    timeline_->SetRange(from - margin, to + margin);
  }
  for (int cpu : focus.cpus) {
    if (!timeline_->CpuVisible(cpu)) timeline_->SetCpuVisible(cpu, true);
  }
  timeline_->SetHighlight(focus.cpus, focus.window, trace_->timeline.NamedItems(focus.named));
  for (int32_t pid : focus.pins) timeline_->Pin(pid);
  // A finding about one CPU scrolls it into view (the ruler and thread lanes stay on top).
  if (focus.cpus.size() < trace_->active_cpus.size() && !focus.cpus.empty()) {
    timeline_->ScrollToCpu(focus.cpus.front());
  }
}

void MainWindow::FitTimelineHeight() {
  int total = splitter_->height();
  int wanted = std::min(timeline_->ContentHeight() + 4, total * 2 / 3);
  splitter_->setSizes({wanted, total - wanted});
}

void MainWindow::ShowError(const QString& message) {
  SetLoading(false);
  last_error_ = message;
  status_->setText(message);
  if (show_error_dialogs_) QMessageBox::critical(this, "napiscope", message);
}

QStringList MainWindow::RecentFiles() const { return QSettings().value(kRecentKey).toStringList(); }

void MainWindow::AddRecentFile(const QString& path) {
  QString absolute = QFileInfo(path).absoluteFilePath();
  QStringList files = RecentFiles();
  files.removeAll(absolute);
  files.prepend(absolute);
  while (files.size() > kMaxRecentFiles) files.removeLast();
  QSettings().setValue(kRecentKey, files);
  RebuildRecentMenu();
}

void MainWindow::RebuildRecentMenu() {
  recent_menu_->clear();
  for (const QString& file : RecentFiles()) {
    recent_menu_->addAction(file, this, [this, file] { OpenTrace(file); });
  }
  recent_menu_->setEnabled(!recent_menu_->isEmpty());
}

void MainWindow::RebuildCpuMenu() {
  cpu_menu_->clear();
  int silent = trace_->CpusWithoutEvents();
  cpu_menu_->addAction(silent > 0 ? "Show all &with events" : "Show &all", timeline_,
                       &TimelineView::ShowCpusWithEvents);
  if (silent > 0) {
    // One switch for the CPUs without events: a trace of a few CPUs of a large machine would
    // otherwise list every CPU of the machine here.
    QAction* action = cpu_menu_->addAction(
        QString("Show the %1 with&out events").arg(QString::fromStdString(Counted(silent, "CPU"))));
    action->setCheckable(true);
    action->setData(kSilentCpusAction);
    connect(action, &QAction::toggled, this, &MainWindow::ShowSilentCpus);
  }
  cpu_menu_->addAction("&Expand all", this, [this] { timeline_->SetAllExpanded(true); });
  cpu_menu_->addAction("&Compact all", this, [this] { timeline_->SetAllExpanded(false); });
  cpu_menu_->addSeparator();
  for (int cpu : trace_->active_cpus) {
    QAction* action = cpu_menu_->addAction(QString("CPU %1").arg(cpu));
    action->setCheckable(true);
    action->setData(cpu);
    connect(action, &QAction::toggled, this,
            [this, cpu](bool visible) { timeline_->SetCpuVisible(cpu, visible); });
  }
  SyncCpuMenu();
}

void MainWindow::ShowSilentCpus(bool visible) {
  std::vector<int> shown;
  const std::vector<int>& active = trace_->active_cpus;
  for (int cpu = 0; cpu < trace_->timeline.cpus(); ++cpu) {
    bool silent = !std::binary_search(active.begin(), active.end(), cpu);
    if (silent ? visible : timeline_->CpuVisible(cpu)) shown.push_back(cpu);
  }
  // Nothing left to show: the CPUs with events come back rather than an empty timeline.
  timeline_->ShowOnlyCpus(shown.empty() ? active : shown);
}

bool MainWindow::SilentCpusShown() const {
  const std::vector<int>& active = trace_->active_cpus;
  for (int cpu = 0; cpu < trace_->timeline.cpus(); ++cpu) {
    if (!std::binary_search(active.begin(), active.end(), cpu) && !timeline_->CpuVisible(cpu)) {
      return false;
    }
  }
  return true;
}

void MainWindow::SyncCpuMenu() {
  for (QAction* action : cpu_menu_->actions()) {
    if (!action->isCheckable()) continue;
    int cpu = action->data().toInt();
    action->blockSignals(true);
    action->setChecked(cpu == kSilentCpusAction ? SilentCpusShown() : timeline_->CpuVisible(cpu));
    action->blockSignals(false);
  }
}

InterruptId MainWindow::SelectedInterrupt() const {
  return irq_filter_->currentData().value<InterruptId>();
}

void MainWindow::SetFilter(const QString& task, InterruptId irq, int vec) {
  task_filter_->blockSignals(true);
  task_filter_->setText(task);
  task_filter_->blockSignals(false);
  irq_filter_->blockSignals(true);
  int irq_index = 0;
  for (int i = 1; i < irq_filter_->count(); ++i) {
    if (irq.known() && irq_filter_->itemData(i).value<InterruptId>() == irq) {
      irq_index = i;
    }
  }
  irq_filter_->setCurrentIndex(irq_index);
  irq_filter_->blockSignals(false);
  vector_filter_->blockSignals(true);
  vector_filter_->setCurrentIndex(std::max(0, vector_filter_->findData(vec)));
  vector_filter_->blockSignals(false);
  ApplyFilter();
}

void MainWindow::ApplyFilter() {
  if (!trace_) return;
  TimelineFilter filter;
  QString task = task_filter_->text().trimmed();
  if (!task.isEmpty()) {
    bool is_pid = false;
    int pid = task.toInt(&is_pid);
    std::string needle = task.toLower().toStdString();
    for (const auto& [candidate, record] : trace_->context.tasks.tasks()) {
      bool match = is_pid && candidate == pid;
      for (const TaskRecord::CommChange& change : record.comms) {
        std::string comm = QString::fromUtf8(trace_->context.strings.Get(change.comm).data())
                               .toLower()
                               .toStdString();
        match = match || comm.find(needle) != std::string::npos;
      }
      if (match) filter.pids.push_back(candidate);
    }
    if (filter.pids.empty()) filter.pids.push_back(-1);  // nothing matches: show no task
  }
  filter.AddInterrupt(SelectedInterrupt());
  if (int vec = vector_filter_->currentData().toInt(); vec >= 0) {
    filter.vecs.push_back(static_cast<uint32_t>(vec));
  }
  timeline_->SetItemMask(filter.empty() ? ItemMask() : trace_->timeline.MatchingItems(filter));
}

void MainWindow::UpdateInfo() {
  if (!trace_) return;
  const TimelineViewState& state = timeline_->state();
  TimestampNs origin = trace_->timeline.start_ns();
  // As many digits as the zoom needs: a thousandth of the span shown tells the ends apart.
  TimestampNs resolution = std::max<TimestampNs>(1, (state.to_ns - state.from_ns) / 1000);
  // Offsets from the trace start for reading (+2.341523s); trace timestamps as trace-cmd prints
  // them for finding the same moment in `trace-cmd report` or `napiscope report --from`. Both
  // are accepted back by --range and the go-to box.
  auto both = [&](TimestampNs ts) {
    return QString("%1 <span style='color:gray'>[%2]</span>")
        .arg(FormatOffset(ts - origin, resolution), FormatTraceSeconds(ts, resolution));
  };
  QString text = QString("<b>%1</b> &nbsp; showing %2 … %3 (%4)")
                     .arg(QFileInfo(QString::fromStdString(trace_->path)).fileName().toHtmlEscaped(),
                          both(state.from_ns), both(state.to_ns),
                          Duration(state.to_ns - state.from_ns));
  auto marker = [&](const char* name, QColor color, std::optional<TimestampNs> ts) {
    return ts ? QString(" &nbsp; <span style='color:%1'><b>%2</b></span> %3")
                    .arg(color.name(), name, both(*ts))
              : QString();
  };
  text += marker("A", palette::MarkerA(), state.marker_a) +
          marker("B", palette::MarkerB(), state.marker_b);
  if (state.marker_a && state.marker_b) {
    text += QString(" &nbsp; <b>Δ %1</b>").arg(Duration(*state.marker_b - *state.marker_a));
  }
  info_->setText(text);
}

QString MainWindow::HeaderText() const {
  QTextDocument document;
  document.setHtml(info_->text());
  return document.toPlainText();
}

void MainWindow::dragEnterEvent(QDragEnterEvent* event) {
  if (event->mimeData()->hasUrls() && event->mimeData()->urls().first().isLocalFile()) {
    event->acceptProposedAction();
  }
}

void MainWindow::dropEvent(QDropEvent* event) {
  const QList<QUrl> urls = event->mimeData()->urls();
  if (urls.isEmpty() || !urls.first().isLocalFile()) return;
  OpenTrace(urls.first().toLocalFile());
  event->acceptProposedAction();
}

QString MainWindow::SummaryText() const { return summary_view_->toPlainText(); }

}  // namespace napiscope::gui
