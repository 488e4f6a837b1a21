#include <QApplication>
#include <QStringList>
#include <cstdio>
#include <cstdlib>

#include "command_line.h"
#include "main_window.h"
#include "screenshot.h"
#include "session.h"

namespace {

// What the user can do instead of opening a window.
constexpr const char* kWithoutAWindow =
    "run it in a desktop session or over ssh -X; --screenshot OUT.png draws without one, and "
    "`napiscope report TRACE` needs none";

// What Qt's platform layer said while starting: why it could not, or warnings printed once
// it did (`line` as Qt prints it, `text` the message alone).
struct PlatformMessage {
  QString line;
  QString text;
};
QList<PlatformMessage> platform_messages;

// Installed while QApplication starts. Qt ends a failed platform start (an X server that does
// not answer, a gone ssh -X forwarding, a QT_QPA_PLATFORM plugin that is not there) with a
// fatal message advising to reinstall, then aborts: say what the platform layer reported
// first, in one line, and exit 1 instead. Other messages go to Qt's usual output.
void PlatformStartMessage(QtMsgType type, const QMessageLogContext& context,
                          const QString& message) {
  bool from_platform = context.category != nullptr && qstrncmp(context.category, "qt.qpa", 6) == 0;
  if (type != QtFatalMsg) {
    QString line = qFormatLogMessage(type, context, message);
    if (from_platform) {
      platform_messages.append({line, message.simplified()});
    } else {
      std::fprintf(stderr, "%s\n", qPrintable(line));
    }
    return;
  }
  QString reason =
      platform_messages.isEmpty() ? message.simplified() : platform_messages.front().text;
  std::fprintf(stderr, "napiscope-gui: cannot open a window (Qt: %s): %s\n", qPrintable(reason),
               kWithoutAWindow);
  std::fflush(stderr);
  std::_Exit(1);
}

}  // namespace

int main(int argc, char** argv) {
  using namespace napiscope::gui;
  // The arguments are read before QApplication exists: --help, --version and wrong arguments
  // need no display.
  QStringList arguments;
  for (int i = 1; i < argc; ++i) arguments.append(QString::fromLocal8Bit(argv[i]));
  GuiOptions options;
  QString error;
  if (!ParseGuiArguments(arguments, &options, &error)) {
    // One line, as every napiscope error; the usage is one --help away.
    std::fprintf(stderr, "napiscope-gui: %s (napiscope-gui --help lists the options)\n",
                 qPrintable(error));
    return 1;
  }
  if (options.help) {
    std::fputs(qPrintable(GuiUsage()), stdout);
    return 0;
  }
  if (options.version) {
    std::fputs(qPrintable(GuiVersion()), stdout);
    return 0;
  }
  // A session names its trace: `napiscope-gui --session FILE` opens it.
  if (options.file.isEmpty() && !options.session.isEmpty()) {
    SessionState session;
    if (!ReadSessionFile(options.session, &session, &error)) {
      std::fprintf(stderr, "napiscope-gui: %s\n", qPrintable(error));
      return 1;
    }
    options.file = session.trace_path;
  }
  // A screenshot needs no display: render offscreen unless the user chose a platform.
  if (!options.screenshot.isEmpty() && qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM")) {
    qputenv("QT_QPA_PLATFORM", "offscreen");
  }
  // Without a display Qt aborts with advice to reinstall: say what is missing instead.
  QByteArray platform = qgetenv("QT_QPA_PLATFORM");
  bool needs_x11 = platform.isEmpty() || platform.startsWith("xcb");
  if (needs_x11 && qEnvironmentVariableIsEmpty("DISPLAY") &&
      (!platform.isEmpty() || qEnvironmentVariableIsEmpty("WAYLAND_DISPLAY"))) {
    std::fprintf(stderr, "napiscope-gui: no display to open a window on (DISPLAY is not set): %s\n",
                 kWithoutAWindow);
    return 1;
  }
  QtMessageHandler qt_messages = qInstallMessageHandler(PlatformStartMessage);
  QApplication app(argc, argv);
  qInstallMessageHandler(qt_messages);
  for (const PlatformMessage& warning : platform_messages) {
    std::fprintf(stderr, "%s\n", qPrintable(warning.line));
  }
  QApplication::setOrganizationName("napiscope");
  QApplication::setApplicationName("napiscope-gui");
  if (!options.screenshot.isEmpty()) {
    if (!SaveScreenshot(options, &error)) {
      std::fprintf(stderr, "napiscope-gui: %s\n", qPrintable(error));
      return 1;
    }
    return 0;
  }
  MainWindow window;
  window.show();
  if (!options.file.isEmpty()) window.OpenTrace(options.file, options);
  return app.exec();
}
