// The event list under the timeline, as KernelShark shows it: time, CPU, task (pid), event and
// fields as `trace-cmd report` prints them. Rows are decoded on demand from the EventIndex (no
// object per event); a filter keeps the matching rows' numbers (4 bytes each). Search by text
// or conditions (irq==354, vec==NET_RX, comm~napi/) with next / previous match.
#pragma once

#include <QAbstractTableModel>
#include <QWidget>
#include <memory>
#include <optional>
#include <vector>

#include "event_search.h"
#include "loaded_trace.h"

class QLabel;
class QLineEdit;
class QScrollBar;
class QTableView;

namespace napiscope::gui {

class EventWindowModel;

/// The rows of the list: every event, or those a filter keeps.
class EventListModel : public QAbstractTableModel {
  Q_OBJECT

 public:
  enum Column { kTime, kCpu, kTask, kEvent, kFields, kColumnCount };

  explicit EventListModel(QObject* parent = nullptr);

  /// Shows the events of `trace` (null: none), unfiltered.
  void SetTrace(std::shared_ptr<const LoadedTrace> trace);

  /// Keeps only the events `query` matches (an empty query keeps all).
  void SetFilter(const EventQuery& query);
  bool filtered() const { return filtered_; }

  /// Row of the list -> row of the trace's EventIndex, and back (the first list row at or
  /// after it).
  uint64_t EventRow(int row) const;
  int RowOfEvent(uint64_t event_row) const;

  /// True when the list shows event row `event_row` (always without a filter).
  bool Keeps(uint64_t event_row) const;

  /// The first list row at or after `ts_ns` (rowCount() - 1 at most).
  int RowAtTime(TimestampNs ts_ns) const;

  /// The event of list row `row`.
  Event EventAt(int row) const;

  int rowCount(const QModelIndex& parent = {}) const override;
  int columnCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role) const override;
  QVariant headerData(int section, Qt::Orientation orientation, int role) const override;

 private:
  std::shared_ptr<const LoadedTrace> trace_;
  bool filtered_ = false;
  std::vector<uint32_t> rows_;  // event rows a filter keeps
  mutable std::optional<std::pair<int, Event>> cache_;  // the last row decoded
};

/// The list with its filter and search boxes. The table shows a window of the list's rows
/// (EventWindowModel) and the panel's scroll bar moves it over the whole list: no per-row
/// geometry, whatever the number of events.
class EventListPanel : public QWidget {
  Q_OBJECT

 public:
  explicit EventListPanel(QWidget* parent = nullptr);

  void SetTrace(std::shared_ptr<const LoadedTrace> trace);

  /// Applies a filter (as typed in the Filter box); false with the error shown when malformed.
  bool SetFilterText(const QString& text);
  QString FilterText() const;

  /// Sets the search and selects the next match after the current row (or the previous one);
  /// false when there is none (or the search is malformed).
  bool Find(const QString& text, bool forward);
  /// Next / previous match of the search box.
  bool FindNext();
  bool FindPrevious();

  /// Scrolls to and selects the first event at or after `ts_ns` without emitting EventSelected.
  void ShowTime(TimestampNs ts_ns);
  /// Scrolls so that the first event at or after `ts_ns` is the top row (nothing selected).
  void ScrollToTime(TimestampNs ts_ns);

  /// The selected row's event, if any.
  std::optional<Event> SelectedEvent() const;
  /// The first row shown at the top (-1 when the list is empty).
  int TopRow() const;
  /// The selected list row, -1 when none.
  int CurrentRow() const { return current_; }
  /// Rows that fit whole in the table.
  int VisibleRows() const;

  EventListModel* model() const { return model_; }
  /// The table: it shows the rows of window_model() only.
  QTableView* table() const { return table_; }
  EventWindowModel* window_model() const { return window_; }
  /// The scroll bar over the whole list (its value is TopRow()).
  QScrollBar* scroll_bar() const { return scroll_; }
  QLineEdit* search_box() const { return search_; }

 signals:
  /// The user selected an event (click, keys, search).
  void EventSelected(napiscope::TimestampNs ts_ns, int cpu, int pid);
  /// The user asked to pin the task of an event (context menu).
  void PinRequested(int pid);

 protected:
  bool eventFilter(QObject* watched, QEvent* event) override;

 private:
  // Selects list row `row`; `center` scrolls it to the middle, else just into view.
  void SelectRow(int row, bool notify, bool center = true);
  // The search box's query, when rows are listed and it parses (else false, its error shown).
  bool SearchQuery(EventQuery* query);
  // Selects the row of trace event `event_row`, a search's match; true.
  bool SelectMatch(uint64_t event_row);
  // Shows the rows from `top` (clamped so the last page is full).
  void SetTop(int top);
  // Sizes and places the window and the scroll bar after a move, a resize or a reset.
  void UpdateWindow();
  // Marks the current row in the table when the window shows it.
  void SyncSelection();
  bool HandleKey(int key);

  std::shared_ptr<const LoadedTrace> trace_;
  EventListModel* model_;
  EventWindowModel* window_;
  QTableView* table_;
  QScrollBar* scroll_;
  int top_ = 0;       // list row at the top of the table
  int current_ = -1;  // selected list row
  QLineEdit* filter_;
  QLineEdit* search_;
  QLabel* status_;
  bool quiet_ = false;  // selection changes made by ShowTime do not notify
};

}  // namespace napiscope::gui
