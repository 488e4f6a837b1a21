// The napiscope-gui command line: FILE [--screenshot OUT.png [--range FROM TO] [--size WxH]].
#pragma once

#include <QSize>
#include <QString>
#include <QStringList>
#include <optional>

#include "napiscope/event.h"

namespace napiscope::gui {

/// What the command line asks for.
struct GuiOptions {
  QString file;        ///< trace to open, "" for none
  QString screenshot;  ///< render the window to this PNG and exit, "" for interactive
  std::optional<std::pair<QString, QString>> range;  ///< FROM and TO as given
  QSize size{1600, 1000};
  bool help = false;
};

/// Usage text for --help and errors.
QString GuiUsage();

/// Parses the arguments after the program name; false with `error` set when they are wrong.
bool ParseGuiArguments(const QStringList& arguments, GuiOptions* options, QString* error);

/// A time on the command line: an offset from the trace start with a unit ("250ms", "1.5s",
/// "300us", "1200ns"; no unit means seconds), or an absolute trace timestamp in seconds after
/// '@' ("@705.427646", as ftrace prints them).
bool ParseTimeArgument(const QString& text, TimestampNs trace_start_ns, TimestampNs* ts_ns,
                       QString* error);

}  // namespace napiscope::gui
