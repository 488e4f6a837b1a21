// The event list: every event kept compactly and given back exactly, fields printed as
// trace-cmd report prints them, searches and filters, and the list and timeline following
// each other.
#include "event_list.h"

#include <QApplication>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QRegularExpression>
#include <QScrollBar>
#include <QSignalSpy>
#include <QTableView>
#include <QTest>
#include <QWheelEvent>
#include <map>

#include <absl/strings/str_cat.h>
#include <gtest/gtest.h>

#include "event_search.h"
#include "event_text.h"
#include "event_window.h"
#include "gui_test_support.h"
#include "main_window.h"
#include "napiscope/loader.h"
#include "support/test_support.h"
#include "timeline_view.h"

namespace napiscope::gui {
namespace {

class Collect : public EventSink {
 public:
  void OnEvent(const Event& event) override { events.push_back(event); }
  std::vector<Event> events;
};

// Everything the loader delivers comes back from the index, in the same order, field for field.
TEST(EventIndex, GivesBackEveryEventExactly) {
  for (const char* file : {"scenarios/softirq_contexts.dat", "scenarios/napi_budget.dat",
                           "scenarios/missed_events_gap.dat", "real/veth-threaded-napi.dat"}) {
    TraceContext context;
    Collect collect;
    EventIndex index;
    FanoutSink fanout;
    fanout.Add(&collect);
    fanout.Add(&index);
    ASSERT_TRUE(LoadTrace(napiscope::testing::TestData(file), context, fanout).ok()) << file;
    ASSERT_EQ(index.size(), collect.events.size()) << file;
    for (size_t row = 0; row < collect.events.size(); ++row) {
      const Event& want = collect.events[row];
      Event got = index.At(row);
      ASSERT_EQ(got.ts_ns, want.ts_ns) << file << " row " << row;
      ASSERT_EQ(got.cpu, want.cpu) << file << " row " << row;
      ASSERT_EQ(got.pid, want.pid) << file << " row " << row;
      ASSERT_EQ(got.flags, want.flags) << file << " row " << row;
      ASSERT_EQ(got.kind, want.kind) << file << " row " << row;
      ASSERT_EQ(got.name, want.name) << file << " row " << row;
      ASSERT_TRUE(SameEventContent(got, want)) << file << " row " << row;
    }
    // Scan decodes the same events in order.
    size_t scanned = 0;
    index.Scan(0, index.size(), [&](uint64_t row, const Event& event) {
      EXPECT_EQ(row, scanned);
      EXPECT_TRUE(SameEventContent(event, collect.events[scanned])) << row;
      ++scanned;
      return true;
    });
    EXPECT_EQ(scanned, collect.events.size());
    // LowerBound finds the first event at or after a time.
    const Event& middle = collect.events[collect.events.size() / 2];
    uint64_t row = index.LowerBound(middle.ts_ns);
    EXPECT_EQ(collect.events[row].ts_ns, middle.ts_ns);
    EXPECT_TRUE(row == 0 || collect.events[row - 1].ts_ns < middle.ts_ns);
    EXPECT_EQ(index.LowerBound(collect.events.back().ts_ns + 1), index.size());
  }
}

// The memory target is 24 bytes per event for the whole GUI; the index takes a third of it.
TEST(EventIndex, KeepsAnEventInAboutEightBytes) {
  TraceContext context;
  EventIndex index;
  ASSERT_TRUE(LoadTrace(napiscope::testing::TestData("real/veth-threaded-napi.dat"), context, index)
                  .ok());
  double per_event = static_cast<double>(index.BytesUsed()) / static_cast<double>(index.size());
  EXPECT_LT(per_event, 10.0);
  EXPECT_GT(per_event, 2.0);  // a real measure, not a constant
}

// The Fields column is what `trace-cmd report` prints after the event name.
TEST(EventText, FieldsAreWhatTraceCmdReportPrints) {
  napiscope::testing::CommandResult version = napiscope::testing::RunCommand("trace-cmd --version");
  if (version.exit_code != 0 && version.out.find("trace-cmd") == std::string::npos) {
    GTEST_SKIP() << "trace-cmd is not installed";
  }
  static const QRegularExpression kLine("\\[(\\d+)\\]\\s+(\\d+\\.\\d+):\\s+(\\w+):\\s+(.*)$");
  int compared = 0;
  for (const char* file : {"scenarios/softirq_contexts.dat", "scenarios/napi_budget.dat",
                           "scenarios/rt_wake_latency.dat", "scenarios/irq_threads_bouncing.dat"}) {
    std::string path = napiscope::testing::TestData(file);
    napiscope::testing::CommandResult report =
        napiscope::testing::RunCommand("trace-cmd report '" + path + "'");
    ASSERT_EQ(report.exit_code, 0) << report.err;
    std::map<QString, QStringList> want;  // "cpu ts name" -> fields
    for (const QString& line : QString::fromStdString(report.out).split('\n')) {
      QRegularExpressionMatch match = kLine.match(line);
      if (!match.hasMatch()) continue;
      QString name = match.captured(3);
      if (name.startsWith("net") || name == "sched_process_exit") continue;  // skbaddr, group_dead
      want[QString("%1 %2 %3").arg(match.captured(1).toInt()).arg(match.captured(2), name)]
          << match.captured(4).trimmed();
    }
    auto trace = testing::LoadTestTrace(file);
    ASSERT_NE(trace, nullptr);
    std::map<QString, QStringList> got;
    trace->events.Scan(0, trace->events.size(), [&](uint64_t, const Event& event) {
      QString name = EventNameText(event, trace->context.strings);
      if (name.startsWith("net") || name == "sched_process_exit" ||
          event.kind == EventKind::kMissedEvents) {
        return true;
      }
      TimestampNs us = (event.ts_ns + 500) / 1000;  // trace-cmd prints rounded microseconds
      QString ts = QString("%1.%2").arg(us / 1'000'000).arg(us % 1'000'000, 6, 10, QChar('0'));
      got[QString("%1 %2 %3").arg(event.cpu).arg(ts, name)] << EventFieldsText(event, trace->context);
      return true;
    });
    for (auto& [key, fields] : want) {
      fields.sort();
      QStringList mine = got[key];
      mine.sort();
      EXPECT_EQ(mine, fields) << file << ": " << key.toStdString();
      compared += static_cast<int>(fields.size());
    }
  }
  EXPECT_GT(compared, 100);
}

TEST(EventQuery, ConditionsAndText) {
  auto trace = testing::LoadTestTrace("scenarios/softirq_contexts.dat");
  ASSERT_NE(trace, nullptr);
  auto count = [&](const QString& text) {
    EventQuery query;
    QString error;
    EXPECT_TRUE(query.Parse(text, &error)) << error.toStdString();
    int matches = 0;
    trace->events.Scan(0, trace->events.size(), [&](uint64_t, const Event& event) {
      matches += query.Matches(event, trace->context);
      return true;
    });
    return matches;
  };
  int all = static_cast<int>(trace->events.size());
  EXPECT_EQ(count(""), all);
  // Three softirq events per TIMER run on CPU3 (raise, entry, exit), counted directly.
  int timer = 0;
  int irq354 = 0;
  trace->events.Scan(0, trace->events.size(), [&](uint64_t, const Event& event) {
    bool softirq = event.kind == EventKind::kSoftirqRaise || event.kind == EventKind::kSoftirqEntry ||
                   event.kind == EventKind::kSoftirqExit;
    timer += softirq && event.softirq.vec == kTimer;
    irq354 += (event.kind == EventKind::kIrqHandlerEntry || event.kind == EventKind::kIrqHandlerExit) &&
              event.irq.irq == 354;
    return true;
  });
  ASSERT_GT(timer, 0);
  ASSERT_GT(irq354, 0);
  EXPECT_EQ(count("vec==TIMER"), timer);
  EXPECT_EQ(count("vec==1"), timer);
  EXPECT_EQ(count("vec == timer"), timer);
  EXPECT_EQ(count("irq==354"), irq354);
  EXPECT_EQ(count("irq==354 && cpu==2"), irq354);  // IRQ 354 fires on CPU 2 in this scenario
  EXPECT_EQ(count("irq==354 cpu==0"), 0);
  EXPECT_GT(count("comm~ksoftirqd/"), 0);
  EXPECT_LT(count("comm~ksoftirqd/"), all);
  EXPECT_GT(count("action=NET_RX"), 0);
  EXPECT_EQ(count("NET_RX"), count("action==NET_RX"));  // plain text finds the printed fields
  EventQuery bad;
  QString error;
  EXPECT_FALSE(bad.Parse("work>=lots", &error));
  EXPECT_TRUE(error.contains("compares numbers")) << error.toStdString();
}

TEST(EventList, SearchJumpsToMatchesAndFiltersKeepOnlyThem) {
  auto trace = testing::LoadTestTrace("scenarios/softirq_contexts.dat");
  ASSERT_NE(trace, nullptr);
  EventListPanel panel;
  panel.resize(1000, 400);
  panel.SetTrace(trace);
  ASSERT_EQ(static_cast<uint64_t>(panel.model()->rowCount()), trace->events.size());
  ASSERT_TRUE(panel.Find("vec==TIMER", true));
  std::optional<Event> first = panel.SelectedEvent();
  ASSERT_TRUE(first);
  EXPECT_EQ(first->kind, EventKind::kSoftirqRaise);
  EXPECT_EQ(first->softirq.vec, kTimer);
  ASSERT_TRUE(panel.FindNext());
  std::optional<Event> second = panel.SelectedEvent();
  ASSERT_TRUE(second);
  EXPECT_GE(second->ts_ns, first->ts_ns);
  EXPECT_EQ(second->softirq.vec, kTimer);
  ASSERT_TRUE(panel.FindPrevious());
  EXPECT_EQ(panel.SelectedEvent()->ts_ns, first->ts_ns);
  EXPECT_FALSE(panel.FindPrevious());  // none before the first
  EXPECT_FALSE(panel.Find("work>=lots", true));  // malformed: refused, the selection kept
  EXPECT_EQ(panel.SelectedEvent()->ts_ns, first->ts_ns);
  ASSERT_TRUE(panel.Find("vec==TIMER", true));  // and a good search goes on from there
  EXPECT_EQ(panel.SelectedEvent()->ts_ns, second->ts_ns);

  ASSERT_TRUE(panel.SetFilterText("cpu==3"));
  EXPECT_EQ(static_cast<uint32_t>(panel.model()->rowCount()), trace->events.size(3));
  for (int row = 0; row < panel.model()->rowCount(); ++row) {
    ASSERT_EQ(panel.model()->EventAt(row).cpu, 3);
  }
  EXPECT_EQ(panel.model()->data(panel.model()->index(0, EventListModel::kCpu), Qt::DisplayRole),
            QVariant(3));
  ASSERT_TRUE(panel.SetFilterText(""));
  EXPECT_EQ(static_cast<uint64_t>(panel.model()->rowCount()), trace->events.size());
}

// Issue 66: a search with no further match says so and stays on the last match: no wrap to the
// trace's first match, nor an offer to.
TEST(EventList, ASearchWithNoFurtherMatchSaysSoAndStays) {
  auto trace = testing::LoadTestTrace("scenarios/softirq_contexts.dat");
  ASSERT_NE(trace, nullptr);
  EventListPanel panel;
  panel.resize(1000, 400);
  panel.SetTrace(trace);
  ASSERT_TRUE(panel.Find("vec==TIMER", true));
  std::optional<Event> first = panel.SelectedEvent();
  ASSERT_TRUE(first);
  int matches = 1;
  while (panel.FindNext()) ++matches;
  ASSERT_GT(matches, 1);
  std::optional<Event> last = panel.SelectedEvent();
  ASSERT_TRUE(last);
  EXPECT_GT(last->ts_ns, first->ts_ns);
  auto status = [&panel] {
    for (const QLabel* label : panel.findChildren<QLabel*>()) {
      if (label->toolTip().contains("match")) return label->toolTip();
    }
    return QString();
  };
  EXPECT_EQ(status().toStdString(), "no further match after the selected event");
  EXPECT_FALSE(panel.FindNext());  // again: still the last match, not the first
  EXPECT_EQ(panel.SelectedEvent()->ts_ns, last->ts_ns);
  EXPECT_EQ(status().toStdString(), "no further match after the selected event");
  while (panel.FindPrevious()) {
  }
  EXPECT_EQ(panel.SelectedEvent()->ts_ns, first->ts_ns);
  EXPECT_EQ(status().toStdString(), "no further match before the selected event");
}

// The time text of list row `row`, as the list model gives it.
QVariant TimeText(const EventListModel& model, int row) {
  return model.data(model.index(row, EventListModel::kTime), Qt::DisplayRole);
}

// The table holds a window of about a screenful of rows (no per-row geometry in Qt's header),
// and keys, the wheel, clicks, the scroll bar and searches reach every row through it, the
// last one included.
TEST(EventList, TableShowsAWindowThatReachesEveryRow) {
  auto trace = testing::LoadTestTrace("real/veth-threaded-napi.dat");
  ASSERT_NE(trace, nullptr);
  EventListPanel panel;
  panel.resize(1000, 400);
  panel.show();
  ASSERT_TRUE(QTest::qWaitForWindowExposed(&panel));
  panel.SetTrace(trace);
  QTableView* table = panel.table();
  EventWindowModel* window = panel.window_model();
  const EventListModel& list = *panel.model();
  const int rows = list.rowCount();
  const int visible = panel.VisibleRows();
  ASSERT_GT(rows, 10000);
  ASSERT_GT(visible, 3);
  // A window: the rows that fit and one partly shown, nothing per row of the list.
  EXPECT_EQ(window->count(), visible + 1);
  EXPECT_EQ(table->model()->rowCount(), visible + 1);
  EXPECT_LE(table->verticalHeader()->count(), visible + 1);
  EXPECT_EQ(panel.scroll_bar()->maximum(), rows - visible);
  EXPECT_EQ(panel.scroll_bar()->pageStep(), visible);
  QSignalSpy selected(&panel, &EventListPanel::EventSelected);

  // The scroll bar moves the window; at its end the last row of the list is the last shown.
  panel.scroll_bar()->setValue(panel.scroll_bar()->maximum());
  EXPECT_EQ(panel.TopRow(), rows - visible);
  EXPECT_EQ(window->first(), rows - visible);
  EXPECT_EQ(window->count(), visible);
  EXPECT_EQ(table->model()->data(table->model()->index(visible - 1, EventListModel::kTime),
                                 Qt::DisplayRole),
            TimeText(list, rows - 1));

  // End selects the last event; Up the one before; Home the first, scrolled back to the top.
  table->setFocus();
  QTest::keyClick(table, Qt::Key_End);
  ASSERT_TRUE(panel.SelectedEvent());
  EXPECT_EQ(panel.CurrentRow(), rows - 1);
  EXPECT_EQ(panel.SelectedEvent()->ts_ns, trace->events.TimestampAt(trace->events.size() - 1));
  EXPECT_EQ(table->currentIndex().row(), visible - 1);
  ASSERT_EQ(selected.count(), 1);
  EXPECT_EQ(selected.last().at(0).value<TimestampNs>(), panel.SelectedEvent()->ts_ns);
  QTest::keyClick(table, Qt::Key_Up);
  EXPECT_EQ(panel.CurrentRow(), rows - 2);
  EXPECT_EQ(table->currentIndex().row(), visible - 2);
  QTest::keyClick(table, Qt::Key_Home);
  EXPECT_EQ(panel.CurrentRow(), 0);
  EXPECT_EQ(panel.TopRow(), 0);
  EXPECT_EQ(table->currentIndex().row(), 0);
  // Down past the last whole row moves the window by one row.
  for (int i = 0; i < visible; ++i) QTest::keyClick(table, Qt::Key_Down);
  EXPECT_EQ(panel.CurrentRow(), visible);
  EXPECT_EQ(panel.TopRow(), 1);
  EXPECT_EQ(table->currentIndex().row(), visible - 1);
  EXPECT_EQ(panel.SelectedEvent()->ts_ns, trace->events.TimestampAt(visible));
  QTest::keyClick(table, Qt::Key_PageDown);
  EXPECT_EQ(panel.CurrentRow(), 2 * visible - 1);

  // The wheel scrolls the list (the selected row scrolls out of the window, stays selected).
  int top = panel.TopRow();
  QPoint inside = table->viewport()->rect().center();
  QWheelEvent wheel(inside, table->viewport()->mapToGlobal(inside), QPoint(), QPoint(0, -120),
                    Qt::NoButton, Qt::NoModifier, Qt::NoScrollPhase, false);
  QApplication::sendEvent(table->viewport(), &wheel);
  EXPECT_GT(panel.TopRow(), top);
  EXPECT_EQ(panel.scroll_bar()->value(), panel.TopRow());
  EXPECT_EQ(panel.CurrentRow(), 2 * visible - 1);

  // A click selects the row under it, in list rows.
  panel.scroll_bar()->setValue(rows / 2);
  QModelIndex third = table->model()->index(2, EventListModel::kEvent);
  QTest::mouseClick(table->viewport(), Qt::LeftButton, Qt::NoModifier,
                    table->visualRect(third).center());
  EXPECT_EQ(panel.CurrentRow(), rows / 2 + 2);
  EXPECT_EQ(panel.SelectedEvent()->ts_ns, trace->events.TimestampAt(rows / 2 + 2));
  EXPECT_EQ(selected.last().at(0).value<TimestampNs>(), trace->events.TimestampAt(rows / 2 + 2));

  // Searches from the last row backwards and jumps to a time at the very end.
  Event last = trace->events.At(trace->events.size() - 1);
  QTest::keyClick(table, Qt::Key_End);
  ASSERT_TRUE(panel.Find(QString("cpu==%1").arg(last.cpu), false));
  int found = panel.CurrentRow();
  EXPECT_LT(found, rows - 1);
  EXPECT_EQ(panel.SelectedEvent()->cpu, last.cpu);
  EXPECT_GE(found, panel.TopRow());
  EXPECT_LT(found, panel.TopRow() + visible);
  EXPECT_EQ(table->currentIndex().row(), found - panel.TopRow());
  for (int row = found + 1; row < rows - 1; ++row) {
    ASSERT_NE(list.EventAt(row).cpu, last.cpu) << row;
  }
  panel.ShowTime(last.ts_ns);
  EXPECT_EQ(panel.SelectedEvent()->ts_ns, last.ts_ns);
  EXPECT_EQ(panel.TopRow(), rows - visible);

  // A filter gives a new list, still shown through a window, and keeps the selected event
  // (it matches the filter).
  ASSERT_TRUE(panel.SetFilterText(QString("cpu==%1").arg(last.cpu)));
  ASSERT_TRUE(panel.SelectedEvent().has_value());
  EXPECT_EQ(panel.SelectedEvent()->ts_ns, last.ts_ns);
  EXPECT_EQ(panel.scroll_bar()->maximum(), std::max(list.rowCount() - visible, 0));
  EXPECT_LE(table->model()->rowCount(), visible + 1);
  QTest::keyClick(table, Qt::Key_End);
  EXPECT_EQ(panel.SelectedEvent()->ts_ns, last.ts_ns);
}

TEST(EventList, FollowsTheTimelineAndMovesIt) {
  MainWindow window;
  window.SetShowErrorDialogs(false);
  window.resize(1400, 900);
  ASSERT_TRUE(window.OpenTraceAndWait(
      QString::fromStdString(napiscope::testing::TestData("scenarios/softirq_contexts.dat"))));
  EventListPanel* list = window.events();
  // Selecting an event puts marker A on it.
  ASSERT_TRUE(list->Find("vec==TIMER", true));
  Event event = *list->SelectedEvent();
  ASSERT_TRUE(window.timeline()->state().marker_a);
  EXPECT_EQ(*window.timeline()->state().marker_a, event.ts_ns);
  EXPECT_LE(window.timeline()->state().from_ns, event.ts_ns);
  EXPECT_GE(window.timeline()->state().to_ns, event.ts_ns);
  // Marker A set on the timeline selects the first event at or after it.
  TimestampNs later = event.ts_ns + 50'000;
  window.timeline()->SetMarkers(later, std::nullopt);
  std::optional<Event> selected = list->SelectedEvent();
  ASSERT_TRUE(selected);
  EXPECT_GE(selected->ts_ns, later);
  uint64_t row = window.trace()->events.LowerBound(later);
  EXPECT_EQ(selected->ts_ns, window.trace()->events.TimestampAt(row));
  if (row > 0) {
    EXPECT_LT(window.trace()->events.TimestampAt(row - 1), later);
  }
}

}  // namespace
}  // namespace napiscope::gui
