#include "findings_panel.h"

#include <QApplication>
#include <QLabel>
#include <QScreen>
#include <QTest>
#include <QTreeWidget>
#include <QSignalSpy>
#include <QTextBrowser>

#include <gtest/gtest.h>

namespace napiscope::gui {
namespace {

TEST(FindingFocus, PointsAtTheCpuWindowAndWhatTheFindingNames) {
  Finding finding;
  finding.cpu = 1;
  finding.start_ns = 1000;
  finding.end_ns = 5000;
  finding.vec = 3;
  finding.irq = {30, false};
  finding.pid = 1500;
  finding.other_pids = {-1, 1600};
  // The evidence is for people; what it holds is not read for the focus.
  finding.evidence = {{"vec", 7}, {"irq", 31}, {"pid", 1700}, {"name", "NET_RX"}};
  FindingFocus focus = FocusOf(finding, {0, 1, 2, 3});
  EXPECT_EQ(focus.cpus, std::vector<int>{1});
  ASSERT_TRUE(focus.window);
  EXPECT_EQ(focus.window->first, 1000);
  EXPECT_EQ(focus.window->second, 5000);
  EXPECT_EQ(focus.named.vecs, std::vector<uint32_t>{3});
  EXPECT_EQ(focus.named.irqs, std::vector<int32_t>{30});
  EXPECT_EQ(focus.named.pids, (std::vector<int32_t>{1500, 1600}));
}

// An x86 vector's number names the vector, not a device IRQ of that number.
TEST(FindingFocus, AnX86VectorIsNamedApartFromDeviceIrqs) {
  Finding finding;
  finding.irq = {251, true};
  FindingFocus focus = FocusOf(finding, {0});
  EXPECT_TRUE(focus.named.irqs.empty());
  EXPECT_EQ(focus.named.x86_vectors, std::vector<int32_t>{251});
}

TEST(FindingFocus, AFindingAboutNoCpuAndNoTimeHighlightsTheCpusWithEventsAndDoesNotZoom) {
  Finding finding;
  finding.rule = "analysis-unavailable";
  finding.evidence = {{"analysis", "irq_thread_pingpong"}};
  FindingFocus focus = FocusOf(finding, {2, 5, 7});
  EXPECT_EQ(focus.cpus, (std::vector<int>{2, 5, 7}));
  EXPECT_FALSE(focus.window);
  EXPECT_TRUE(focus.named.empty());
}

// Issue 66: "napi/va-260 ran on another CPU than the one that woke it in 1001 of 1002
// activations" tinted every CPU and pinned nothing; like a ping-pong finding it pins its thread,
// zooms to its slowest cross-CPU activation and points at the CPUs it names.
TEST(FindingFocus, APlacementFindingPinsItsThreadAndPointsAtItsCpus) {
  Finding finding;
  finding.rule = "napi-thread-placement";
  finding.pid = 260;
  finding.other_cpus = {3, 1, 5};  // woken on CPU3 (where to pin it), ran on CPU1 and CPU5
  finding.start_ns = 2000;
  finding.end_ns = 9000;
  FindingFocus focus = FocusOf(finding, {0, 1, 2, 3, 4, 5, 6, 7});
  EXPECT_EQ(focus.pins, std::vector<int32_t>{260});
  EXPECT_EQ(focus.cpus, (std::vector<int>{1, 3, 5}));
  ASSERT_TRUE(focus.window);
  EXPECT_EQ(focus.window->first, 2000);
  EXPECT_EQ(focus.window->second, 9000);
  finding.rule = "irq-thread-pingpong";
  EXPECT_EQ(FocusOf(finding, {0, 1, 2, 3, 4, 5, 6, 7}).cpus, (std::vector<int>{1, 3, 5}));
  // Other findings about no CPU still point at every CPU with events, and pin nothing.
  finding.rule = "softirq-latency";
  EXPECT_EQ(FocusOf(finding, {0, 1, 2}).cpus, (std::vector<int>{0, 1, 2}));
  EXPECT_TRUE(FocusOf(finding, {0, 1, 2}).pins.empty());
}

// Issue 66: after "Findings of A–B" (fewer findings than the list showed, its 4th selected) a
// stale blank 4th row stayed until clicked. The rows on screen (the window's backing store, not a
// fresh render) are the new findings only.
TEST(FindingsPanel, FewerFindingsLeaveNoStaleRowOnScreen) {
  FindingsPanel panel;
  panel.resize(900, 500);
  panel.show();
  ASSERT_TRUE(QTest::qWaitForWindowExposed(&panel));
  std::vector<Finding> five(5);
  for (size_t i = 0; i < five.size(); ++i) five[i].summary = "whole trace finding " + std::to_string(i);
  panel.SetFindings(five, 0);
  panel.Select(3);
  QApplication::processEvents();
  auto* tree = panel.findChild<QTreeWidget*>();
  ASSERT_NE(tree, nullptr);
  panel.SetBusy("A–B");
  QApplication::processEvents();
  std::vector<Finding> three(five.begin(), five.begin() + 3);
  for (Finding& finding : three) finding.summary = "range " + finding.summary;
  panel.SetFindings(three, 0, "A–B");
  QApplication::processEvents();
  ASSERT_EQ(tree->topLevelItemCount(), 3);
  for (int row = 0; row < 3; ++row) {
    EXPECT_FALSE(tree->topLevelItem(row)->text(3).isEmpty()) << row;
  }
  QImage shown = panel.screen()->grabWindow(panel.winId()).toImage().convertToFormat(
      QImage::Format_RGB32);
  QImage fresh = panel.grab().toImage().convertToFormat(QImage::Format_RGB32);
  ASSERT_EQ(shown.size(), fresh.size());
  QRect rows(tree->viewport()->mapTo(&panel, QPoint(0, 0)), tree->viewport()->size());
  int differ = 0;
  for (int y = rows.top(); y <= rows.bottom(); ++y) {
    for (int x = rows.left(); x <= rows.right(); ++x) differ += shown.pixel(x, y) != fresh.pixel(x, y);
  }
  EXPECT_EQ(differ, 0) << "pixels of the list on screen that a fresh paint does not have";
}

TEST(FindingsPanel, SelectingARowSignalsItsIndex) {
  FindingsPanel panel;
  Finding first;
  first.summary = "first";
  Finding second;
  second.summary = "second";
  second.severity = Severity::kWarning;
  panel.SetFindings({first, second}, 0);
  QSignalSpy selected(&panel, &FindingsPanel::FindingSelected);
  panel.Select(1);
  ASSERT_EQ(selected.count(), 1);
  EXPECT_EQ(selected.at(0).at(0).toInt(), 1);
  QSignalSpy cleared(&panel, &FindingsPanel::SelectionCleared);
  panel.Select(-1);
  EXPECT_EQ(cleared.count(), 1);
}

// "1 findings of the whole trace": a count of one is singular.
TEST(FindingsPanel, TheHeadlineCountsInWords) {
  FindingsPanel panel;
  auto headline = [&panel] {
    for (const QLabel* label : panel.findChildren<QLabel*>()) {
      if (label->text().contains(" of ")) return label->text();
    }
    return QString();
  };
  panel.SetFindings({Finding()}, 0, "the whole trace");
  EXPECT_EQ(headline().toStdString(), "<b>1 finding</b> of the whole trace");
  panel.SetFindings({Finding(), Finding()}, 0, "the whole trace");
  EXPECT_EQ(headline().toStdString(), "<b>2 findings</b> of the whole trace");
}

// The pane under the list gives the selected finding's evidence in words (the HTML report's
// labels and values), not its JSON.
TEST(FindingsPanel, TheDetailsGiveTheEvidenceInWords) {
  FindingsPanel panel;
  Finding finding;
  finding.summary = "NAPI va used its whole budget";
  finding.rule = "napi-budget-exhausted";
  finding.evidence = {{"exhausted_share", 0.4646192156048973},
                      {"polls_by_context", {{"napi_kthread", 4819}}},
                      {"max_at_ns", 705340040123}};
  panel.SetFindings({finding}, 0);
  panel.Select(0);
  const QTextBrowser* details = panel.findChild<QTextBrowser*>();
  ASSERT_NE(details, nullptr);
  std::string text = details->toPlainText().toStdString();
  EXPECT_NE(text.find("exhausted share"), std::string::npos) << text;
  EXPECT_NE(text.find("46.5%"), std::string::npos) << text;
  EXPECT_NE(text.find("napi_kthread 4819"), std::string::npos) << text;
  EXPECT_NE(text.find("705.340040"), std::string::npos) << text;
  EXPECT_EQ(text.find("0.4646"), std::string::npos) << text;
  EXPECT_EQ(text.find('{'), std::string::npos) << text;
}

}  // namespace
}  // namespace napiscope::gui
