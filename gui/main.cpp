#include <QApplication>
#include <QStringList>
#include <cstdio>

#include "command_line.h"
#include "main_window.h"
#include "screenshot.h"
#include "session.h"

int main(int argc, char** argv) {
  using namespace napiscope::gui;
  // The arguments are read before QApplication exists: --help, --version and wrong arguments
  // need no display.
  QStringList arguments;
  for (int i = 1; i < argc; ++i) arguments.append(QString::fromLocal8Bit(argv[i]));
  GuiOptions options;
  QString error;
  if (!ParseGuiArguments(arguments, &options, &error)) {
    std::fprintf(stderr, "napiscope-gui: %s\n\n%s", qPrintable(error), qPrintable(GuiUsage()));
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
    std::fputs(
        "napiscope-gui: no display to open a window on (DISPLAY is not set): run it in a "
        "desktop session or over ssh -X; --screenshot OUT.png draws without one, and "
        "`napiscope report TRACE` needs none\n",
        stderr);
    return 1;
  }
  QApplication app(argc, argv);
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
