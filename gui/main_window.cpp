#include "main_window.h"

#include <QComboBox>
#include <QDragEnterEvent>
#include <QDropEvent>
#include <QFileDialog>
#include <QFileInfo>
#include <QFontDatabase>
#include <QLabel>
#include <QLineEdit>
#include <QMenuBar>
#include <QMessageBox>
#include <QMimeData>
#include <QPlainTextEdit>
#include <QProgressBar>
#include <QPushButton>
#include <QScrollArea>
#include <QSettings>
#include <QSplitter>
#include <QStatusBar>
#include <QTabWidget>
#include <QToolBar>
#include <QVBoxLayout>
#include <algorithm>

#include "charts_panel.h"
#include "findings_panel.h"
#include "legend_widget.h"
#include "napiscope/format.h"
#include "napiscope/report_render.h"
#include "palette.h"
#include "timeline_view.h"
#include "trace_loader.h"

namespace napiscope::gui {
namespace {

constexpr int kMaxRecentFiles = 8;
const char* const kRecentKey = "recentFiles";

QString Duration(TimestampNs ns) { return QString::fromStdString(FormatDuration(ns)); }

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
  layout->addWidget(new LegendWidget(central));
  timeline_scroll_ = new QScrollArea(central);
  timeline_scroll_->setWidget(timeline_);
  timeline_scroll_->setWidgetResizable(true);
  timeline_scroll_->setFrameShape(QFrame::NoFrame);
  timeline_scroll_->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);

  // Below the timeline: findings and the report text on the left, charts on the right.
  auto* bottom = new QSplitter(Qt::Horizontal, central);
  bottom_tabs_ = new QTabWidget(bottom);
  findings_ = new FindingsPanel(bottom_tabs_);
  bottom_tabs_->addTab(findings_, "Findings");
  summary_view_ = new QPlainTextEdit(bottom_tabs_);
  summary_view_->setReadOnly(true);
  summary_view_->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
  summary_view_->setLineWrapMode(QPlainTextEdit::NoWrap);
  bottom_tabs_->addTab(summary_view_, "Report");
  charts_ = new ChartsPanel(bottom);
  bottom->addWidget(bottom_tabs_);
  bottom->addWidget(charts_);
  bottom->setStretchFactor(0, 3);
  bottom->setStretchFactor(1, 5);

  auto* splitter = new QSplitter(Qt::Vertical, central);
  splitter->addWidget(timeline_scroll_);
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
  connect(loader_, &TraceLoader::Failed, this, &MainWindow::ShowError);
  connect(loader_, &TraceLoader::Cancelled, this, [this](const QString& path) {
    SetLoading(false);
    status_->setText(QString("Cancelled loading %1").arg(path));
  });
  connect(timeline_, &TimelineView::RangeChanged, this, &MainWindow::UpdateInfo);
  connect(timeline_, &TimelineView::SelectedRangeChanged, charts_, &ChartsPanel::SetRange);
  connect(findings_, &FindingsPanel::FindingSelected, this, &MainWindow::FocusFinding);
  connect(findings_, &FindingsPanel::SelectionCleared, this,
          [this] { timeline_->SetHighlight({}, std::nullopt, {}); });
  connect(timeline_, &TimelineView::MarkersChanged, this, &MainWindow::UpdateInfo);
  resize(1400, 900);
}

MainWindow::~MainWindow() = default;

void MainWindow::BuildMenus() {
  QMenu* file = menuBar()->addMenu("&File");
  file->addAction("&Open...", QKeySequence::Open, this, &MainWindow::ChooseAndOpen);
  recent_menu_ = file->addMenu("Open &Recent");
  file->addSeparator();
  file->addAction("&Quit", QKeySequence::Quit, this, &QWidget::close);
  RebuildRecentMenu();

  QMenu* view = menuBar()->addMenu("&View");
  view->addAction("Zoom to &fit", QKeySequence(Qt::Key_Home), timeline_, &TimelineView::ZoomToFit);
  view->addAction("&Clear markers", QKeySequence(Qt::Key_Escape), this,
                  [this] { timeline_->SetMarkers(std::nullopt, std::nullopt); });
  cpu_menu_ = view->addMenu("C&PUs");
  QMenu* help = menuBar()->addMenu("&Help");
  help->addAction("&Navigation", this, [this] {
    QMessageBox::information(this, "Navigation",
                             "Wheel: zoom at the cursor · drag: pan · W/S: zoom in/out · A/D: pan\n"
                             "Double-click an interval: zoom to it · Home: whole trace\n"
                             "Click: marker A · Shift-click: marker B · Esc: clear markers\n"
                             "Hover for details · Shift+wheel: scroll CPUs");
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
  connect(task_filter_, &QLineEdit::textChanged, this, &MainWindow::ApplyFilter);
  connect(irq_filter_, &QComboBox::currentIndexChanged, this, &MainWindow::ApplyFilter);
  connect(vector_filter_, &QComboBox::currentIndexChanged, this, &MainWindow::ApplyFilter);
}

void MainWindow::ChooseAndOpen() {
  QString path = QFileDialog::getOpenFileName(
      this, "Open trace", QString(), "Traces (*.dat *.txt *.trace *.gz *.zst *.xz);;All files (*)");
  if (!path.isEmpty()) OpenTrace(path);
}

void MainWindow::OpenTrace(const QString& path) {
  loading_path_ = path;
  SetLoading(true);
  status_->setText(QString("Loading %1 ...").arg(path));
  loader_->Start(path);
}

void MainWindow::WaitForLoad() { loader_->Wait(); }

QString MainWindow::StatusText() const { return status_->text(); }

bool MainWindow::OpenTraceAndWait(const QString& path) {
  OpenTrace(path);
  loader_->Wait();
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
  summary_view_->setPlainText(QString::fromStdString(ReportToText(trace_->report)));
  findings_->SetFindings(trace_->report.findings, trace_->timeline.start_ns());
  irq_filter_->blockSignals(true);
  irq_filter_->clear();
  irq_filter_->addItem("all", -1);
  std::vector<int32_t> irqs;
  for (const IrqHandlerKey& handler : trace_->timeline.handlers()) {
    if (std::find(irqs.begin(), irqs.end(), handler.irq) != irqs.end()) continue;
    irqs.push_back(handler.irq);
    irq_filter_->addItem(
        QString::fromStdString(trace_->timeline.KeyLabel(
            Lane::kHardirq, static_cast<uint16_t>(&handler - trace_->timeline.handlers().data()),
            trace_->context.strings)),
        handler.irq);
  }
  irq_filter_->blockSignals(false);
  timeline_->SetTrace(trace_);
  charts_->SetTrace(trace_);
  FitTimelineHeight();
  RebuildCpuMenu();
  ApplyFilter();
  AddRecentFile(path);
  const Timeline& t = trace_->timeline;
  status_->setText(
      QString("%1 · %2 events · %3 CPUs · %4 · timeline model %5 bytes/event")
          .arg(path)
          .arg(t.events())
          .arg(t.cpus())
          .arg(Duration(t.end_ns() - t.start_ns()))
          .arg(t.events() > 0 ? static_cast<double>(t.BytesUsed()) / t.events() : 0.0, 0, 'f', 1));
  UpdateInfo();
}

void MainWindow::FocusFinding(int index) {
  if (!trace_ || index < 0 || index >= static_cast<int>(trace_->report.findings.size())) return;
  FindingFocus focus = FocusOf(trace_->report.findings[index], trace_->timeline.cpus());
  if (focus.window) {
    // Show the window with context around it: a fifth of its length each side, at least 5 us.
    auto [from, to] = *focus.window;
    TimestampNs margin = std::max<TimestampNs>((to - from) / 5, 5000);
    timeline_->SetRange(from - margin, to + margin);
  }
  for (int cpu : focus.cpus) {
    if (cpu < cpu_menu_->actions().size()) cpu_menu_->actions()[cpu]->setChecked(true);
  }
  timeline_->SetHighlight(focus.cpus, focus.window, trace_->timeline.NamedItems(focus.named));
}

void MainWindow::FitTimelineHeight() {
  int total = splitter_->height();
  int wanted = std::min(timeline_->minimumHeight() + 4, total * 2 / 3);
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
  for (int cpu = 0; cpu < trace_->timeline.cpus(); ++cpu) {
    QAction* action = cpu_menu_->addAction(QString("CPU %1").arg(cpu));
    action->setCheckable(true);
    action->setChecked(true);
    connect(action, &QAction::toggled, this,
            [this, cpu](bool visible) { timeline_->SetCpuVisible(cpu, visible); });
  }
}

void MainWindow::SetFilter(const QString& task, int irq, int vec) {
  task_filter_->blockSignals(true);
  task_filter_->setText(task);
  task_filter_->blockSignals(false);
  irq_filter_->blockSignals(true);
  irq_filter_->setCurrentIndex(std::max(0, irq_filter_->findData(irq)));
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
  if (int irq = irq_filter_->currentData().toInt(); irq >= 0) filter.irqs.push_back(irq);
  if (int vec = vector_filter_->currentData().toInt(); vec >= 0) {
    filter.vecs.push_back(static_cast<uint32_t>(vec));
  }
  timeline_->SetItemMask(filter.empty() ? ItemMask() : trace_->timeline.MatchingItems(filter));
}

void MainWindow::UpdateInfo() {
  if (!trace_) return;
  const TimelineViewState& state = timeline_->state();
  TimestampNs origin = trace_->timeline.start_ns();
  // Offsets from the trace start for reading; trace timestamps (as trace-cmd prints them) for
  // finding the same moment in `trace-cmd report`.
  auto trace_time = [](TimestampNs ts) { return QString::fromStdString(FormatTimestamp(ts)); };
  QString text =
      QString("<b>%1</b> &nbsp; showing %2 … %3 (%4) &nbsp; <span style='color:gray'>[%5]</span>")
          .arg(QFileInfo(QString::fromStdString(trace_->path)).fileName().toHtmlEscaped(),
               Duration(state.from_ns - origin), Duration(state.to_ns - origin),
               Duration(state.to_ns - state.from_ns), trace_time(state.from_ns));
  auto marker = [&](const char* name, QColor color, std::optional<TimestampNs> ts) {
    return ts ? QString(
                    " &nbsp; <span style='color:%1'><b>%2</b></span> %3 "
                    "<span style='color:gray'>[%4]</span>")
                    .arg(color.name(), name, Duration(*ts - origin), trace_time(*ts))
              : QString();
  };
  text += marker("A", palette::MarkerA(), state.marker_a) +
          marker("B", palette::MarkerB(), state.marker_b);
  if (state.marker_a && state.marker_b) {
    text += QString(" &nbsp; <b>Δ %1</b>").arg(Duration(*state.marker_b - *state.marker_a));
  }
  info_->setText(text);
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
