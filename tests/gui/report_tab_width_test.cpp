// Issue 66: the Report tab showed the report as the CLI prints it at 120 columns, cut at ~90 by
// a narrower pane; it is wrapped to the pane's width, and again when the pane changes.
#include <QApplication>
#include <QFontMetrics>
#include <QPlainTextEdit>
#include <QTabWidget>

#include <gtest/gtest.h>

#include "main_window.h"
#include "support/test_support.h"

namespace napiscope::gui {
namespace {

// The Report tab, made the current one (as a click on it does).
QPlainTextEdit* ShowReportPane(MainWindow& window) {
  for (QTabWidget* tabs : window.findChildren<QTabWidget*>()) {
    for (int i = 0; i < tabs->count(); ++i) {
      if (tabs->tabText(i) != "Report") continue;
      tabs->setCurrentIndex(i);
      QApplication::processEvents();
      return qobject_cast<QPlainTextEdit*>(tabs->widget(i));
    }
  }
  return nullptr;
}

// Columns the pane shows, and the longest line of its text.
std::pair<int, int> ShownAndLongest(QPlainTextEdit* pane) {
  int char_width = pane->fontMetrics().horizontalAdvance(QLatin1Char('0'));
  int shown = pane->viewport()->width() / char_width;
  int longest = 0;
  for (const QString& line : pane->toPlainText().split('\n')) {
    longest = std::max(longest, static_cast<int>(line.size()));
  }
  return {shown, longest};
}

TEST(ReportTab, WrapsToThePanesWidthAndAgainWhenItChanges) {
  MainWindow window;
  window.SetShowErrorDialogs(false);
  window.resize(1900, 800);  // a 1920-pixel screen: the pane shows ~90 columns
  window.show();
  ASSERT_TRUE(window.OpenTraceAndWait(
      QString::fromStdString(testing::TestData("real/veth-threaded-napi.dat"))));
  // Loaded while another tab showed: wrapped when the Report tab comes up at its width.
  QPlainTextEdit* pane = ShowReportPane(window);
  ASSERT_NE(pane, nullptr);
  auto [shown, longest] = ShownAndLongest(pane);
  ASSERT_GT(shown, 40);
  ASSERT_LT(shown, 120);  // narrower than the CLI's default: the case that was cut
  EXPECT_LE(longest, shown);
  EXPECT_TRUE(pane->toPlainText().contains("softirq raise-to-entry latency"));

  window.resize(2800, 800);
  QApplication::processEvents();
  auto [wider, wider_longest] = ShownAndLongest(pane);
  EXPECT_GT(wider, shown);
  EXPECT_LE(wider_longest, wider);
  EXPECT_GT(wider_longest, longest);  // re-wrapped to the wider pane
}

}  // namespace
}  // namespace napiscope::gui
