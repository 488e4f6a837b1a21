#include "command_line.h"

#include <QRegularExpression>
#include <cmath>

namespace napiscope::gui {

QString GuiUsage() {
  return "Usage: napiscope-gui [FILE] [--screenshot OUT.png [--range FROM TO] [--size WxH]]\n"
         "\n"
         "Shows what IRQs, softirqs and NAPI polling did to each CPU of a trace.dat or ftrace\n"
         "text file.\n"
         "\n"
         "  --screenshot OUT.png  render the window offscreen after loading FILE, save, exit\n"
         "  --range FROM TO       the time range to show: offsets from the trace start with a\n"
         "                        unit (250ms, 1.5s, 300us, 1200ns) or @SECONDS absolute\n"
         "  --size WxH            window size for --screenshot (default 1600x1000)\n";
}

bool ParseGuiArguments(const QStringList& arguments, GuiOptions* options, QString* error) {
  for (int i = 0; i < arguments.size(); ++i) {
    const QString& arg = arguments[i];
    auto value = [&](int count) {
      if (i + count < arguments.size()) return true;
      *error = QString("%1 needs %2").arg(arg, count == 1 ? "a value" : "two values");
      return false;
    };
    if (arg == "-h" || arg == "--help") {
      options->help = true;
    } else if (arg == "--screenshot") {
      if (!value(1)) return false;
      options->screenshot = arguments[++i];
    } else if (arg == "--range") {
      if (!value(2)) return false;
      options->range = std::make_pair(arguments[i + 1], arguments[i + 2]);
      i += 2;
    } else if (arg == "--size") {
      if (!value(1)) return false;
      QRegularExpressionMatch match = QRegularExpression("^(\\d+)x(\\d+)$").match(arguments[++i]);
      if (!match.hasMatch() || match.captured(1).toInt() < 200 || match.captured(2).toInt() < 150) {
        *error = QString("--size wants WxH, at least 200x150, not '%1'").arg(arguments[i]);
        return false;
      }
      options->size = QSize(match.captured(1).toInt(), match.captured(2).toInt());
    } else if (arg.startsWith("-") && arg.size() > 1) {
      *error = QString("unknown option '%1'").arg(arg);
      return false;
    } else if (options->file.isEmpty()) {
      options->file = arg;
    } else {
      *error = QString("one FILE only, got '%1' too").arg(arg);
      return false;
    }
  }
  if (!options->screenshot.isEmpty() && options->file.isEmpty()) {
    *error = "--screenshot needs a FILE to load";
    return false;
  }
  return true;
}

bool ParseTimeArgument(const QString& text, TimestampNs trace_start_ns, TimestampNs* ts_ns,
                       QString* error) {
  QRegularExpressionMatch match =
      QRegularExpression("^(@?)([0-9]*\\.?[0-9]+)\\s*(ns|us|ms|s)?$").match(text.trimmed());
  if (!match.hasMatch()) {
    *error = QString("'%1' is not a time (examples: 250ms, 1.5s, @705.427646)").arg(text);
    return false;
  }
  long double value = match.captured(2).toDouble();
  bool absolute = !match.captured(1).isEmpty();
  QString unit = match.captured(3);
  if (absolute && !unit.isEmpty() && unit != "s") {
    *error = QString("'%1': an absolute @time is in seconds").arg(text);
    return false;
  }
  long double scale = unit == "ns" ? 1 : unit == "us" ? 1e3 : unit == "ms" ? 1e6 : 1e9;
  auto ns = static_cast<TimestampNs>(std::llround(value * scale));
  *ts_ns = absolute ? ns : trace_start_ns + ns;
  return true;
}

}  // namespace napiscope::gui
