#include "command_line.h"

#include <QApplication>
#include <QFocusEvent>
#include <QImage>
#include <QTest>

#include <absl/strings/str_cat.h>
#include <gtest/gtest.h>

#include <algorithm>

#include "main_window.h"
#include "session.h"
#include "support/test_support.h"
#include "time_text.h"
#include "timeline_view.h"

namespace napiscope::gui {
namespace {

using napiscope::testing::RunCommand;

QString Data(const std::string& relative) {
  return QString::fromStdString(napiscope::testing::TestData(relative));
}

TEST(TraceTime, AbsoluteSecondsAndOffsetsFromTheStart) {
  constexpr TimestampNs kStart = 705'000'000'000;
  TimestampNs ts = 0;
  QString error;
  ASSERT_TRUE(ParseTraceTime("705.4123", kStart, &ts, &error));
  EXPECT_EQ(ts, 705'412'300'000);
  ASSERT_TRUE(ParseTraceTime("@705.437755", kStart, &ts, &error));
  EXPECT_EQ(ts, 705'437'755'000);
  ASSERT_TRUE(ParseTraceTime("+100ms", kStart, &ts, &error));
  EXPECT_EQ(ts, kStart + 100'000'000);
  ASSERT_TRUE(ParseTraceTime(" +1.5s ", kStart, &ts, &error));
  EXPECT_EQ(ts, kStart + 1'500'000'000);
  ASSERT_TRUE(ParseTraceTime("+300us", kStart, &ts, &error));
  EXPECT_EQ(ts, kStart + 300'000);
  // What the CLI's --from takes is absolute: "100ms" is 0.1 s of trace time, not an offset.
  ASSERT_TRUE(ParseTraceTime("100ms", kStart, &ts, &error));
  EXPECT_EQ(ts, 100'000'000);
  EXPECT_FALSE(ParseTraceTime("+abc", kStart, &ts, &error));
  EXPECT_TRUE(error.contains("'+abc' is not a time")) << error.toStdString();
  EXPECT_FALSE(ParseTraceTime("soon", kStart, &ts, &error));
}

TEST(TraceTime, FormatsAsManyDigitsAsTheResolutionNeeds) {
  EXPECT_EQ(FormatTraceSeconds(705'437'755'123, 1'000), "705.437755");
  EXPECT_EQ(FormatTraceSeconds(705'437'755'123, 100), "705.4377551");
  EXPECT_EQ(FormatTraceSeconds(705'437'755'123, 1), "705.437755123");
  EXPECT_EQ(FormatTraceSeconds(705'437'755'123, 10'000'000), "705.44");
  EXPECT_EQ(FormatOffset(2'341'523'000, 1'000), "+2.341523s");
  EXPECT_EQ(FormatOffset(150'020'000, 10'000), "+150.02ms");
  // Everything formatted parses back to the same instant at that resolution.
  TimestampNs ts = 0;
  QString error;
  ASSERT_TRUE(ParseTraceTime(FormatOffset(2'341'523'000, 1'000), 0, &ts, &error));
  EXPECT_EQ(ts, 2'341'523'000);
}

TEST(CommandLine, CpuListsPinsAndSession) {
  GuiOptions options;
  QString error;
  ASSERT_TRUE(
      ParseGuiArguments({"t.dat", "--cpus", "0-3,8", "--pin", "napi/va,irq/354", "--session",
                         "s.json", "--range", "+1ms", "705.5", "--buffer", "net"},
                        &options, &error))
      << error.toStdString();
  EXPECT_EQ(options.cpus, (std::vector<int>{0, 1, 2, 3, 8}));
  EXPECT_EQ(options.pins, (QStringList{"napi/va", "irq/354"}));
  EXPECT_EQ(options.session, "s.json");
  EXPECT_EQ(options.buffer, "net");
  EXPECT_EQ(options.range->first, "+1ms");
  EXPECT_FALSE(ParseGuiArguments({"--cpus", "3-1"}, &options, &error));
  EXPECT_TRUE(error.contains("3-1")) << error.toStdString();
}

// --size is bounded by what can be drawn (99999x99999 printed thousands of QPainter warnings
// and then failed to write), and --screenshot takes its trace from a --session too.
TEST(CommandLine, ScreenshotSizeIsBoundedAndASessionNamesTheTrace) {
  GuiOptions options;
  QString error;
  for (const char* size : {"99999x99999", "16385x1000", "199x150", "9999999999x200", "1600"}) {
    options = GuiOptions();
    EXPECT_FALSE(
        ParseGuiArguments({"t.dat", "--screenshot", "a.png", "--size", size}, &options, &error))
        << size;
    EXPECT_EQ(error.toStdString(),
              absl::StrCat("--size wants WxH from 200x150 to 16384x16384, not '", size, "'"));
  }
  options = GuiOptions();
  ASSERT_TRUE(ParseGuiArguments({"--screenshot", "a.png", "--size", "16384x150"}, &options,
                                &error) == false);
  EXPECT_EQ(error.toStdString(), "--screenshot needs a FILE to load (or a --session naming one)");
  options = GuiOptions();
  ASSERT_TRUE(ParseGuiArguments({"--session", "s.json", "--screenshot", "a.png"}, &options, &error))
      << error.toStdString();
  EXPECT_EQ(options.size, QSize(1600, 1000));

  // The session's trace is drawn, with the session's view.
  std::string dir = napiscope::testing::MakeTempDir();
  SessionState session;
  session.trace_path = QString::fromStdString(napiscope::testing::TestData("real/idle.dat"));
  QString session_file = QString::fromStdString(dir + "/s.json");
  ASSERT_TRUE(WriteSessionFile(session_file, session, &error)) << error.toStdString();
  std::string picture = dir + "/s.png";
  napiscope::testing::CommandResult drawn = RunCommand(
      absl::StrCat("env QT_QPA_PLATFORM=offscreen ", NAPISCOPE_GUI, " --session ",
                   session_file.toStdString(), " --screenshot ", picture, " --size 800x600"));
  EXPECT_EQ(drawn.exit_code, 0) << drawn.err;
  QImage image(QString::fromStdString(picture));
  EXPECT_EQ(image.size(), QSize(800, 600));
  // A session that is not one says so, not that a FILE is missing.
  napiscope::testing::WriteFile(dir + "/bad.json", "{bad json");
  napiscope::testing::CommandResult bad =
      RunCommand(absl::StrCat("env QT_QPA_PLATFORM=offscreen ", NAPISCOPE_GUI, " --session ", dir,
                              "/bad.json --screenshot ", picture));
  EXPECT_EQ(bad.exit_code, 1);
  EXPECT_EQ(bad.err.rfind("napiscope-gui: " + dir + "/bad.json", 0), 0u) << bad.err;
}

// A wrong argument is one line, with the likely option; the usage printed after it ran to 20
// lines.
TEST(CommandLine, AWrongArgumentIsOneLineWithTheLikelyOption) {
  napiscope::testing::CommandResult result =
      RunCommand(absl::StrCat("env -u DISPLAY ", NAPISCOPE_GUI, " --bufer net t.dat"));
  EXPECT_EQ(result.exit_code, 1);
  EXPECT_EQ(result.err,
            "napiscope-gui: unknown option '--bufer'; did you mean '--buffer'? (napiscope-gui "
            "--help lists the options)\n");
  result = RunCommand(absl::StrCat("env -u DISPLAY ", NAPISCOPE_GUI, " a.dat b.dat"));
  EXPECT_EQ(result.exit_code, 1);
  EXPECT_EQ(result.err,
            "napiscope-gui: one FILE only, got 'b.dat' too (napiscope-gui --help lists the "
            "options)\n");
}

// --help and --version are answered before Qt looks for a display.
TEST(CommandLine, HelpAndVersionNeedNoDisplay) {
  for (const char* flag : {"--help", "--version"}) {
    napiscope::testing::CommandResult result = RunCommand(
        absl::StrCat("env -u DISPLAY -u WAYLAND_DISPLAY QT_QPA_PLATFORM=xcb ", NAPISCOPE_GUI, " ",
                     flag));
    EXPECT_EQ(result.exit_code, 0) << flag << ": " << result.err;
    EXPECT_NE(result.out.find(std::string(flag) == "--help" ? "Usage: napiscope-gui" :
                                                              "napiscope-gui 0."),
              std::string::npos)
        << result.out;
  }
}

// Without a display the window cannot open: one line saying so and exit 1, where Qt aborted
// (SIGABRT) advising to reinstall. A screenshot still draws without one.
TEST(CommandLine, NoDisplayIsOneLineAndExitOneButAScreenshotStillDraws) {
  std::string trace = napiscope::testing::TestData("real/idle.dat");
  for (const char* platform : {"-u QT_QPA_PLATFORM", "QT_QPA_PLATFORM=xcb"}) {
    napiscope::testing::CommandResult result = RunCommand(absl::StrCat(
        "env -u DISPLAY -u WAYLAND_DISPLAY ", platform, " ", NAPISCOPE_GUI, " ", trace));
    EXPECT_EQ(result.exit_code, 1) << platform << ": " << result.err;
    EXPECT_EQ(result.err.rfind("napiscope-gui: no display to open a window on", 0), 0u)
        << result.err;
    EXPECT_EQ(std::count(result.err.begin(), result.err.end(), '\n'), 1) << result.err;
  }
  std::string picture = napiscope::testing::MakeTempDir() + "/idle.png";
  napiscope::testing::CommandResult drawn =
      RunCommand(absl::StrCat("env -u DISPLAY -u WAYLAND_DISPLAY -u QT_QPA_PLATFORM ",
                              NAPISCOPE_GUI, " ", trace, " --screenshot ", picture));
  EXPECT_EQ(drawn.exit_code, 0) << drawn.err;
  EXPECT_GT(napiscope::testing::ReadFile(picture).size(), 1000u);
}

// An X server that does not answer (a gone ssh -X forwarding) or a platform plugin that is not
// there: one line with what Qt's platform layer said and exit 1, where Qt aborted (SIGABRT)
// advising to reinstall.
TEST(CommandLine, AnUnreachableDisplayOrMissingPlatformIsOneLineAndExitOne) {
  std::string trace = napiscope::testing::TestData("real/idle.dat");
  struct Case {
    const char* environment;
    const char* said;
  };
  for (const Case& c :
       {Case{"-u QT_QPA_PLATFORM DISPLAY=:4093", "could not connect to display :4093"},
        Case{"QT_QPA_PLATFORM=nosuchplugin", "\"nosuchplugin\""}}) {
    napiscope::testing::CommandResult result = RunCommand(
        absl::StrCat("env -u WAYLAND_DISPLAY ", c.environment, " ", NAPISCOPE_GUI, " ", trace));
    EXPECT_EQ(result.exit_code, 1) << c.environment << ": " << result.err;
    EXPECT_EQ(result.err.rfind("napiscope-gui: cannot open a window (Qt: ", 0), 0u) << result.err;
    EXPECT_NE(result.err.find(c.said), std::string::npos) << result.err;
    EXPECT_NE(result.err.find("--screenshot OUT.png draws without one"), std::string::npos)
        << result.err;
    EXPECT_EQ(std::count(result.err.begin(), result.err.end(), '\n'), 1) << result.err;
  }
}

TEST(MainWindowOptions, RangeIsHonouredInTheWindow) {
  MainWindow window;
  window.SetShowErrorDialogs(false);
  GuiOptions options;
  options.range = std::make_pair(QString("+100ms"), QString("+102ms"));
  window.OpenTrace(Data("real/veth-threaded-napi.dat"), options);
  window.WaitForLoad();
  ASSERT_NE(window.trace(), nullptr) << window.LastError().toStdString();
  TimestampNs start = window.trace()->timeline.start_ns();
  EXPECT_EQ(window.timeline()->state().from_ns, start + 100'000'000);
  EXPECT_EQ(window.timeline()->state().to_ns, start + 102'000'000);
  // The header shows the ends with the digits a 2 ms view needs (2 us resolution).
  QString header = window.HeaderText();
  EXPECT_TRUE(header.contains("+100.000ms")) << header.toStdString();
  EXPECT_TRUE(header.contains(FormatTraceSeconds(start + 100'000'000, 2'000)))
      << header.toStdString();
}

TEST(MainWindowOptions, TheTimelineHasTheFocusAfterOpeningAndTheFocusingClickSetsNoMarker) {
  MainWindow window;
  window.SetShowErrorDialogs(false);
  window.resize(1200, 800);
  window.show();
  window.activateWindow();
  ASSERT_TRUE(QTest::qWaitForWindowActive(&window));
  ASSERT_TRUE(window.OpenTraceAndWait(Data("real/veth-threaded-napi.dat")));
  EXPECT_TRUE(window.timeline()->hasFocus());
  // W zooms in without a click: the key goes to the focus widget.
  TimestampNs span = window.timeline()->state().to_ns - window.timeline()->state().from_ns;
  QTest::keyClick(QApplication::focusWidget(), Qt::Key_W);
  EXPECT_LT(window.timeline()->state().to_ns - window.timeline()->state().from_ns, span);
  // Focus elsewhere, then a click that brings it back sets no marker; the next click does.
  window.timeline()->clearFocus();
  ASSERT_FALSE(window.timeline()->hasFocus());
  QFocusEvent focus_in(QEvent::FocusIn, Qt::MouseFocusReason);
  QApplication::sendEvent(window.timeline(), &focus_in);
  QPoint inside(window.timeline()->Layout().time_left() + 200, 60);
  QTest::mouseClick(window.timeline(), Qt::LeftButton, Qt::NoModifier, inside);
  EXPECT_FALSE(window.timeline()->state().marker_a.has_value());
  QTest::mouseClick(window.timeline(), Qt::LeftButton, Qt::NoModifier, inside);
  EXPECT_TRUE(window.timeline()->state().marker_a.has_value());
}

}  // namespace
}  // namespace napiscope::gui
