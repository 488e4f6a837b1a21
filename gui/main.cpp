#include <QApplication>
#include <QCommandLineParser>

#include "main_window.h"

int main(int argc, char** argv) {
  QApplication app(argc, argv);
  QApplication::setApplicationName("napiscope-gui");
  QCommandLineParser parser;
  parser.setApplicationDescription("napiscope: interrupts, softirqs and NAPI on a timeline");
  parser.addHelpOption();
  parser.addPositionalArgument("FILE", "trace.dat or ftrace text to open");
  parser.process(app);
  napiscope::gui::MainWindow window;
  window.show();
  if (!parser.positionalArguments().isEmpty()) window.OpenTrace(parser.positionalArguments().first());
  return app.exec();
}
