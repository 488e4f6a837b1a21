#include <QApplication>
#include <QTimer>
#include <cstdio>

#include "command_line.h"
#include "main_window.h"
#include "screenshot.h"

int main(int argc, char** argv) {
  using namespace napiscope::gui;
  // A screenshot needs no display: render offscreen unless the user chose a platform.
  for (int i = 1; i < argc; ++i) {
    if (QByteArray(argv[i]) == "--screenshot" && qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM")) {
      qputenv("QT_QPA_PLATFORM", "offscreen");
    }
  }
  QApplication app(argc, argv);
  QApplication::setOrganizationName("napiscope");
  QApplication::setApplicationName("napiscope-gui");
  GuiOptions options;
  QString error;
  if (!ParseGuiArguments(QApplication::arguments().mid(1), &options, &error)) {
    std::fprintf(stderr, "napiscope-gui: %s\n\n%s", qPrintable(error), qPrintable(GuiUsage()));
    return 1;
  }
  if (options.help) {
    std::fputs(qPrintable(GuiUsage()), stdout);
    return 0;
  }
  if (!options.screenshot.isEmpty()) {
    if (!SaveScreenshot(options, &error)) {
      std::fprintf(stderr, "napiscope-gui: %s\n", qPrintable(error));
      return 1;
    }
    return 0;
  }
  MainWindow window;
  window.show();
  if (!options.file.isEmpty()) window.OpenTrace(options.file);
  return app.exec();
}
