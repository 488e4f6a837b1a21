// The napiscope-gui command line: FILE [--range FROM TO] [--cpus LIST] [--pin TASKS]
// [--buffer NAME] [--session FILE] [--screenshot OUT.png [--size WxH]]. Parsed before any
// QApplication exists, so --help and --version work without a display.
#pragma once

#include <QSize>
#include <QString>
#include <QStringList>
#include <optional>
#include <vector>

#include "napiscope/event.h"

namespace napiscope::gui {

/// What the command line asks for.
struct GuiOptions {
  QString file;        ///< trace to open, "" for none
  QString screenshot;  ///< render the window to this PNG and exit, "" for interactive
  std::optional<std::pair<QString, QString>> range;  ///< FROM and TO as given (see time_text.h)
  std::optional<std::vector<int>> cpus;              ///< --cpus: the CPUs to show
  QStringList pins;                                  ///< --pin: tasks to pin (comm prefix or pid)
  QString session;                                   ///< --session: restore this session file
  QString buffer;  ///< --buffer: the trace.dat buffer instance to read (LoadOptions::buffer)
  QSize size{1600, 1000};
  bool help = false;
  bool version = false;
};

/// Usage text for --help and errors.
QString GuiUsage();

/// The version line --version prints.
QString GuiVersion();

/// Parses the arguments after the program name; false with `error` set when they are wrong.
bool ParseGuiArguments(const QStringList& arguments, GuiOptions* options, QString* error);

/// Parses a CPU list as taskset and the CLI write it ("0-3,8"); false with `error` otherwise.
bool ParseCpuList(const QString& text, std::vector<int>* cpus, QString* error);

}  // namespace napiscope::gui
