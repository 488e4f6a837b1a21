#include "event_list.h"

#include <QContextMenuEvent>
#include <QCoreApplication>
#include <QFontDatabase>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QItemSelectionModel>
#include <QKeyEvent>
#include <QLabel>
#include <QLineEdit>
#include <QMenu>
#include <QWheelEvent>
#include <QPushButton>
#include <QScrollBar>
#include <QTableView>
#include <QVBoxLayout>
#include <algorithm>

#include "event_text.h"
#include "event_window.h"
#include "time_text.h"

namespace napiscope::gui {
namespace {

// Previous-match searches scan backwards this many rows at a time.
constexpr uint64_t kBackwardChunk = 65536;

// The status line, whole in its tooltip where the label cuts it.
void ShowStatus(QLabel* status, const QString& text) {
  status->setText(text);
  status->setToolTip(text);
}

// The list's rows: the events, and a [LOST EVENTS] row per gap, which the status bar's event
// count leaves out: "422796 rows: 422794 events and 2 [LOST EVENTS] rows".
QString RowsText(const LoadedTrace& trace) {
  int64_t gaps = 0;
  for (const CpuMissedSummary& cpu : trace.report.trace.missed_per_cpu) gaps += cpu.gaps;
  auto rows = static_cast<int64_t>(trace.events.size());
  if (gaps <= 0 || gaps > rows) return QString("%1 events").arg(rows);
  return QString("%1 rows: %2 events and %3 [LOST EVENTS] row%4")
      .arg(rows)
      .arg(rows - gaps)
      .arg(gaps)
      .arg(gaps == 1 ? "" : "s");
}

}  // namespace

EventListModel::EventListModel(QObject* parent) : QAbstractTableModel(parent) {}

void EventListModel::SetTrace(std::shared_ptr<const LoadedTrace> trace) {
  beginResetModel();
  trace_ = std::move(trace);
  filtered_ = false;
  rows_.clear();
  rows_.shrink_to_fit();
  cache_.reset();
  endResetModel();
}

void EventListModel::SetFilter(const EventQuery& query) {
  beginResetModel();
  cache_.reset();
  rows_.clear();
  filtered_ = !query.empty() && trace_ != nullptr;
  if (filtered_) {
    trace_->events.Scan(0, trace_->events.size(), [&](uint64_t row, const Event& event) {
      if (query.Matches(event, trace_->context)) rows_.push_back(static_cast<uint32_t>(row));
      return true;
    });
  }
  rows_.shrink_to_fit();
  endResetModel();
}

uint64_t EventListModel::EventRow(int row) const {
  return filtered_ ? rows_[static_cast<size_t>(row)] : static_cast<uint64_t>(row);
}

int EventListModel::RowOfEvent(uint64_t event_row) const {
  if (!filtered_) return static_cast<int>(event_row);
  return static_cast<int>(std::lower_bound(rows_.begin(), rows_.end(), event_row) - rows_.begin());
}

bool EventListModel::Keeps(uint64_t event_row) const {
  return !filtered_ || std::binary_search(rows_.begin(), rows_.end(), event_row);
}

int EventListModel::RowAtTime(TimestampNs ts_ns) const {
  if (!trace_ || rowCount() == 0) return 0;
  int row = RowOfEvent(trace_->events.LowerBound(ts_ns));
  return std::min(row, rowCount() - 1);
}

Event EventListModel::EventAt(int row) const {
  if (cache_ && cache_->first == row) return cache_->second;
  Event event = trace_->events.At(EventRow(row));
  cache_ = std::make_pair(row, event);
  return event;
}

int EventListModel::rowCount(const QModelIndex& parent) const {
  if (parent.isValid() || !trace_) return 0;
  uint64_t rows = filtered_ ? rows_.size() : trace_->events.size();
  return static_cast<int>(std::min<uint64_t>(rows, INT32_MAX));
}

int EventListModel::columnCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : kColumnCount;
}

QVariant EventListModel::data(const QModelIndex& index, int role) const {
  if (!trace_ || !index.isValid()) return {};
  if (role == Qt::TextAlignmentRole && index.column() == kCpu) {
    return QVariant::fromValue(Qt::AlignRight | Qt::AlignVCenter);
  }
  if (role != Qt::DisplayRole && role != Qt::ToolTipRole) return {};
  Event event = EventAt(index.row());
  switch (index.column()) {
    case kTime:
      return FormatTraceSeconds(event.ts_ns, 1);
    case kCpu:
      return event.cpu;
    case kTask:
      return EventTaskText(event, trace_->context);
    case kEvent:
      return EventNameText(event, trace_->context.strings);
    case kFields:
      return EventFieldsText(event, trace_->context);
  }
  return {};
}

QVariant EventListModel::headerData(int section, Qt::Orientation orientation, int role) const {
  if (orientation != Qt::Horizontal || role != Qt::DisplayRole) return {};
  static const char* const kNames[] = {"Time (s)", "CPU", "Task (pid)", "Event", "Fields"};
  return section >= 0 && section < kColumnCount ? QString(kNames[section]) : QString();
}

EventListPanel::EventListPanel(QWidget* parent)
    : QWidget(parent),
      model_(new EventListModel(this)),
      window_(new EventWindowModel(model_, this)),
      table_(new QTableView(this)),
      scroll_(new QScrollBar(Qt::Vertical, this)) {
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(0, 2, 0, 0);
  layout->setSpacing(2);
  auto* bar = new QHBoxLayout;
  bar->addWidget(new QLabel("Filter:"));
  filter_ = new QLineEdit(this);
  filter_->setPlaceholderText("cpu==3 comm~napi/ event==napi_poll");
  filter_->setClearButtonEnabled(true);
  bar->addWidget(filter_, 2);
  bar->addWidget(new QLabel("Search:"));
  search_ = new QLineEdit(this);
  search_->setPlaceholderText("text, irq==354, vec==NET_RX (Enter: next)");
  search_->setClearButtonEnabled(true);
  bar->addWidget(search_, 2);
  auto* previous = new QPushButton("◀", this);
  previous->setToolTip("Previous match (Shift+Enter)");
  auto* next = new QPushButton("▶", this);
  next->setToolTip("Next match (Enter)");
  bar->addWidget(previous);
  bar->addWidget(next);
  status_ = new QLabel(this);
  // The status takes the room left, never more: a longer text must not shrink the fields and
  // move the buttons under the next click. Cut when it does not fit; whole in its tooltip.
  status_->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred);
  bar->addWidget(status_, 1);
  layout->addLayout(bar);
  table_->setModel(window_);
  table_->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
  table_->setSelectionBehavior(QAbstractItemView::SelectRows);
  table_->setSelectionMode(QAbstractItemView::SingleSelection);
  table_->setEditTriggers(QAbstractItemView::NoEditTriggers);
  table_->setWordWrap(false);
  table_->setShowGrid(false);
  table_->verticalHeader()->hide();
  table_->verticalHeader()->setSectionResizeMode(QHeaderView::Fixed);
  table_->verticalHeader()->setDefaultSectionSize(QFontMetrics(table_->font()).height() + 4);
  table_->horizontalHeader()->setStretchLastSection(true);
  QFontMetrics metrics(table_->font());
  table_->setColumnWidth(EventListModel::kTime, metrics.horizontalAdvance("00000.000000000") + 16);
  table_->setColumnWidth(EventListModel::kCpu, metrics.horizontalAdvance("CPU ") + 16);
  table_->setColumnWidth(EventListModel::kTask, metrics.horizontalAdvance("irq/354-4848400 (12345)") + 16);
  table_->setColumnWidth(EventListModel::kEvent, metrics.horizontalAdvance("sched_wakeup_new") + 16);
  table_->setContextMenuPolicy(Qt::CustomContextMenu);
  // The table scrolls by whole rows within its window (at most the partly shown last row);
  // the panel's scroll bar spans the list and moves the window.
  table_->setVerticalScrollMode(QAbstractItemView::ScrollPerItem);
  table_->setVerticalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
  table_->installEventFilter(this);
  table_->viewport()->installEventFilter(this);
  scroll_->setRange(0, 0);
  auto* rows = new QHBoxLayout;
  rows->setSpacing(0);
  rows->addWidget(table_, 1);
  rows->addWidget(scroll_);
  layout->addLayout(rows, 1);

  connect(filter_, &QLineEdit::returnPressed, this, [this] { SetFilterText(filter_->text()); });
  connect(filter_, &QLineEdit::textChanged, this, [this](const QString& text) {
    if (text.isEmpty()) SetFilterText(text);
  });
  connect(search_, &QLineEdit::returnPressed, this, [this] { FindNext(); });
  connect(next, &QPushButton::clicked, this, [this] { FindNext(); });
  connect(previous, &QPushButton::clicked, this, [this] { FindPrevious(); });
  connect(scroll_, &QScrollBar::valueChanged, this, [this](int value) { SetTop(value); });
  // The table scrolled itself (a click on the partly shown last row): move the window instead.
  connect(table_->verticalScrollBar(), &QScrollBar::valueChanged, this, [this](int value) {
    if (value == 0) return;
    table_->verticalScrollBar()->setValue(0);
    SetTop(top_ + value);
  });
  connect(model_, &QAbstractItemModel::modelReset, this, [this] {
    current_ = -1;
    top_ = 0;
    UpdateWindow();
  });
  connect(table_->selectionModel(), &QItemSelectionModel::currentRowChanged, this,
          [this](const QModelIndex& current) {
            if (quiet_ || !current.isValid()) return;
            current_ = window_->ListRow(current.row());
            Event event = model_->EventAt(current_);
            emit EventSelected(event.ts_ns, event.cpu, event.pid);
          });
  connect(table_, &QTableView::customContextMenuRequested, this, [this](const QPoint& pos) {
    QModelIndex index = table_->indexAt(pos);
    if (!index.isValid() || !trace_) return;
    Event event = model_->EventAt(window_->ListRow(index.row()));
    QMenu menu(this);
    QString task = EventTaskText(event, trace_->context);
    QAction* pin = menu.addAction(QString("Pin %1 as a thread lane").arg(task));
    pin->setEnabled(event.pid != 0);
    connect(pin, &QAction::triggered, this, [this, event] { emit PinRequested(event.pid); });
    menu.addAction(QString("Filter on CPU %1").arg(event.cpu), this,
                   [this, event] { SetFilterText(QString("cpu==%1").arg(event.cpu)); });
    menu.addAction(QString("Filter on %1").arg(task), this,
                   [this, event] { SetFilterText(QString("common_pid==%1").arg(event.pid)); });
    menu.addAction(QString("Filter on %1 events").arg(EventNameText(event, trace_->context.strings)),
                   this, [this, event] {
                     SetFilterText("event==" + EventNameText(event, trace_->context.strings));
                   });
    menu.exec(table_->viewport()->mapToGlobal(pos));
  });
}

void EventListPanel::SetTrace(std::shared_ptr<const LoadedTrace> trace) {
  trace_ = std::move(trace);
  model_->SetTrace(trace_);
  filter_->clear();
  ShowStatus(status_, trace_ ? RowsText(*trace_) : QString());
}

bool EventListPanel::SetFilterText(const QString& text) {
  EventQuery query;
  QString error;
  if (!query.Parse(text, &error)) {
    ShowStatus(status_, error);
    return false;
  }
  if (filter_->text() != text) {
    filter_->blockSignals(true);
    filter_->setText(text);
    filter_->blockSignals(false);
  }
  // The list stays at the selected event (marker A): after filtering, the first kept row at or
  // after its time, not the trace's first match.
  std::optional<TimestampNs> selected;
  if (trace_ && current_ >= 0 && current_ < model_->rowCount()) {
    selected = model_->EventAt(current_).ts_ns;
  }
  model_->SetFilter(query);
  if (selected && model_->rowCount() > 0) SelectRow(model_->RowAtTime(*selected), false, true);
  if (trace_) {
    ShowStatus(status_, model_->filtered()
                            ? QString("%1 of %2").arg(model_->rowCount()).arg(RowsText(*trace_))
                            : RowsText(*trace_));
  }
  return true;
}

QString EventListPanel::FilterText() const { return filter_->text(); }

bool EventListPanel::Find(const QString& text, bool forward) {
  if (search_->text() != text) search_->setText(text);
  return forward ? FindNext() : FindPrevious();
}

bool EventListPanel::SearchQuery(EventQuery* query) {
  if (!trace_ || model_->rowCount() == 0) return false;
  QString error;
  if (query->Parse(search_->text(), &error)) return true;
  ShowStatus(status_, error);
  return false;
}

bool EventListPanel::SelectMatch(uint64_t event_row) {
  SelectRow(model_->RowOfEvent(event_row), true);
  ShowStatus(status_, "");
  return true;
}

bool EventListPanel::FindNext() {
  EventQuery query;
  if (!SearchQuery(&query)) return false;
  int current = current_;
  int rows = model_->rowCount();
  if (current + 1 < rows) {
    // Decode the trace's rows in order from the next list row to the end.
    uint64_t from = model_->EventRow(current + 1);
    std::optional<uint64_t> found;
    trace_->events.Scan(from, trace_->events.size(), [&](uint64_t event_row, const Event& event) {
      if (!model_->Keeps(event_row)) return true;
      if (!query.Matches(event, trace_->context)) return true;
      found = event_row;
      return false;
    });
    if (found) return SelectMatch(*found);
  }
  ShowStatus(status_, "no further match after the selected event");
  return false;
}

bool EventListPanel::FindPrevious() {
  EventQuery query;
  if (!SearchQuery(&query)) return false;
  int current = current_ >= 0 ? current_ : model_->rowCount();
  if (current <= 0) {
    ShowStatus(status_, "no further match before the selected event");
    return false;
  }
  uint64_t end = model_->EventRow(current - 1) + 1;
  while (end > 0) {
    uint64_t begin = end > kBackwardChunk ? end - kBackwardChunk : 0;
    std::optional<uint64_t> last;
    trace_->events.Scan(begin, end, [&](uint64_t event_row, const Event& event) {
      if (!model_->Keeps(event_row)) return true;
      if (query.Matches(event, trace_->context)) last = event_row;
      return true;
    });
    if (last) return SelectMatch(*last);
    end = begin;
  }
  ShowStatus(status_, "no further match before the selected event");
  return false;
}

void EventListPanel::SelectRow(int row, bool notify, bool center) {
  if (row < 0 || row >= model_->rowCount()) return;
  current_ = row;
  int visible = VisibleRows();
  if (center) {
    top_ = row - visible / 2;
  } else if (row < top_) {
    top_ = row;
  } else if (row >= top_ + visible) {
    top_ = row - visible + 1;
  }
  UpdateWindow();
  if (notify) {
    Event event = model_->EventAt(row);
    emit EventSelected(event.ts_ns, event.cpu, event.pid);
  }
}

int EventListPanel::VisibleRows() const {
  int row_height = std::max(table_->verticalHeader()->defaultSectionSize(), 1);
  return std::max(table_->viewport()->height() / row_height, 1);
}

void EventListPanel::SetTop(int top) {
  if (top == top_ && window_->first() == top_) return;
  top_ = top;
  UpdateWindow();
}

void EventListPanel::UpdateWindow() {
  int rows = model_->rowCount();
  int visible = VisibleRows();
  int last_top = std::max(rows - visible, 0);
  top_ = std::clamp(top_, 0, last_top);
  scroll_->blockSignals(true);
  scroll_->setRange(0, last_top);
  scroll_->setPageStep(visible);
  scroll_->setSingleStep(1);
  scroll_->setValue(top_);
  scroll_->blockSignals(false);
  // The rows that fit whole and the one partly shown below them.
  window_->SetWindow(top_, visible + 1);
  table_->verticalScrollBar()->blockSignals(true);
  table_->verticalScrollBar()->setValue(0);
  table_->verticalScrollBar()->blockSignals(false);
  SyncSelection();
}

void EventListPanel::SyncSelection() {
  bool was_quiet = quiet_;
  quiet_ = true;
  // The window already shows the row where it belongs: the table must not scroll to it.
  bool auto_scroll = table_->hasAutoScroll();
  table_->setAutoScroll(false);
  int row = current_ - window_->first();
  QItemSelectionModel* selection = table_->selectionModel();
  if (current_ >= 0 && row >= 0 && row < window_->count()) {
    QModelIndex index = window_->index(row, 0);
    if (selection->currentIndex() != index || !selection->isRowSelected(row)) {
      selection->setCurrentIndex(index,
                                 QItemSelectionModel::ClearAndSelect | QItemSelectionModel::Rows);
    }
  } else if (selection->currentIndex().isValid() || selection->hasSelection()) {
    selection->clear();
  }
  table_->setAutoScroll(auto_scroll);
  quiet_ = was_quiet;
}

bool EventListPanel::HandleKey(int key) {
  int rows = model_->rowCount();
  if (rows == 0) return false;
  int page = std::max(VisibleRows() - 1, 1);
  int from = current_ >= 0 ? current_ : top_ - 1;
  int to = from;
  switch (key) {
    case Qt::Key_Up: to = from - 1; break;
    case Qt::Key_Down: to = from + 1; break;
    case Qt::Key_PageUp: to = from - page; break;
    case Qt::Key_PageDown: to = from + page; break;
    case Qt::Key_Home: to = 0; break;
    case Qt::Key_End: to = rows - 1; break;
    default: return false;
  }
  to = std::clamp(to, 0, rows - 1);
  if (to != current_) SelectRow(to, true, false);
  return true;
}

bool EventListPanel::eventFilter(QObject* watched, QEvent* event) {
  if (watched == table_->viewport()) {
    if (event->type() == QEvent::Wheel &&
        static_cast<QWheelEvent*>(event)->angleDelta().y() != 0) {
      // The wheel scrolls the whole list, as the panel's scroll bar does.
      QCoreApplication::sendEvent(scroll_, event);
      return true;
    }
    if (event->type() == QEvent::Resize) UpdateWindow();
  } else if (watched == table_ && event->type() == QEvent::KeyPress) {
    auto* key = static_cast<QKeyEvent*>(event);
    if ((key->modifiers() & ~(Qt::ControlModifier | Qt::KeypadModifier)) == 0 &&
        HandleKey(key->key())) {
      return true;
    }
  }
  return QWidget::eventFilter(watched, event);
}

void EventListPanel::ShowTime(TimestampNs ts_ns) {
  if (!trace_ || model_->rowCount() == 0) return;
  SelectRow(model_->RowAtTime(ts_ns), false);
}

void EventListPanel::ScrollToTime(TimestampNs ts_ns) {
  if (!trace_ || model_->rowCount() == 0) return;
  SetTop(model_->RowAtTime(ts_ns));
}

std::optional<Event> EventListPanel::SelectedEvent() const {
  if (current_ < 0 || current_ >= model_->rowCount()) return std::nullopt;
  return model_->EventAt(current_);
}

int EventListPanel::TopRow() const { return model_->rowCount() > 0 ? top_ : -1; }

}  // namespace napiscope::gui
