#include "command_line.h"

#include <QRegularExpression>
#include <algorithm>

#include "napiscope/suggest.h"
#include "qt_text.h"

namespace napiscope::gui {

QString GuiUsage() {
  return "Usage: napiscope-gui [FILE] [--range FROM TO] [--cpus LIST] [--pin TASKS]\n"
         "                    [--buffer NAME] [--session FILE] [--screenshot OUT.png [--size "
         "WxH]]\n"
         "\n"
         "Shows what IRQs, softirqs and NAPI polling did to each CPU of a trace.dat or ftrace\n"
         "text file.\n"
         "\n"
         "  --range FROM TO       the time range to show: absolute trace seconds as trace-cmd\n"
         "                        prints them (705.4123, as `napiscope report --from`) or\n"
         "                        offsets from the trace start (+100ms, +1.5s, +300us)\n"
         "  --cpus LIST           the CPUs to show, e.g. 0-3,8 (View > CPUs shows the others)\n"
         "  --pin TASKS           pin tasks as thread lanes: comm prefixes or pids, comma\n"
         "                        separated (napi/va,irq/354,1234)\n"
         "  --buffer NAME         the trace.dat buffer instance to read (trace-cmd record -B);\n"
         "                        default the top buffer, or the only instance with events\n"
         "  --session FILE        restore markers, pins, filters, hidden CPUs and the view\n"
         "                        saved with File > Save session\n"
         "  --screenshot OUT.png  render the window offscreen after loading FILE, save, exit\n"
         "  --size WxH            window size for --screenshot (default 1600x1000, at most\n"
         "                        16384x16384)\n"
         "  --version             print the version and exit\n"
         "  -h, --help            print this help and exit\n";
}

QString GuiVersion() { return QString("napiscope-gui %1\n").arg(NAPISCOPE_VERSION); }

bool ParseCpuList(const QString& text, std::vector<int>* cpus, QString* error) {
  cpus->clear();
  static const QRegularExpression kPart("^(\\d{1,4})(?:-(\\d{1,4}))?$");
  for (const QString& part : text.split(',')) {
    QRegularExpressionMatch match = kPart.match(part.trimmed());
    int first = match.captured(1).toInt();
    int last = match.captured(2).isEmpty() ? first : match.captured(2).toInt();
    if (!match.hasMatch() || last < first) {
      *error = QString("--cpus wants a CPU list like 0-3,8, not '%1'").arg(text);
      return false;
    }
    for (int cpu = first; cpu <= last; ++cpu) cpus->push_back(cpu);
  }
  std::sort(cpus->begin(), cpus->end());
  cpus->erase(std::unique(cpus->begin(), cpus->end()), cpus->end());
  return true;
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
    } else if (arg == "--version") {
      options->version = true;
    } else if (arg == "--screenshot") {
      if (!value(1)) return false;
      options->screenshot = arguments[++i];
    } else if (arg == "--range") {
      if (!value(2)) return false;
      options->range = std::make_pair(arguments[i + 1], arguments[i + 2]);
      i += 2;
    } else if (arg == "--cpus") {
      if (!value(1)) return false;
      std::vector<int> cpus;
      if (!ParseCpuList(arguments[++i], &cpus, error)) return false;
      options->cpus = cpus;
    } else if (arg == "--pin") {
      if (!value(1)) return false;
      for (const QString& task : arguments[++i].split(',', Qt::SkipEmptyParts)) {
        options->pins.append(task.trimmed());
      }
    } else if (arg == "--buffer") {
      if (!value(1)) return false;
      options->buffer = arguments[++i];
    } else if (arg == "--session") {
      if (!value(1)) return false;
      options->session = arguments[++i];
    } else if (arg == "--size") {
      if (!value(1)) return false;
      QRegularExpressionMatch match = QRegularExpression("^(\\d+)x(\\d+)$").match(arguments[++i]);
      // At most what QImage draws on (32767 a side) with room to spare: 16384x16384 is 1 GiB.
      auto side = [&](int n, int least) {
        int pixels = match.captured(n).toInt();  // 0 past an int: refused below
        return pixels >= least && pixels <= 16384;
      };
      if (!match.hasMatch() || !side(1, 200) || !side(2, 150)) {
        *error =
            QString("--size wants WxH from 200x150 to 16384x16384, not '%1'").arg(arguments[i]);
        return false;
      }
      options->size = QSize(match.captured(1).toInt(), match.captured(2).toInt());
    } else if (arg.startsWith("-") && arg.size() > 1 && !arg.startsWith("+")) {
      *error = QString("unknown option '%1'%2")
                   .arg(arg, Str(DidYouMean(arg.toStdString(),
                                            {"--range", "--cpus", "--pin", "--buffer", "--session",
                                             "--screenshot", "--size", "--version", "--help"})));
      return false;
    } else if (options->file.isEmpty()) {
      options->file = arg;
    } else {
      *error = QString("one FILE only, got '%1' too").arg(arg);
      return false;
    }
  }
  if (!options->screenshot.isEmpty() && options->file.isEmpty() && options->session.isEmpty()) {
    *error = "--screenshot needs a FILE to load (or a --session naming one)";
    return false;
  }
  return true;
}

}  // namespace napiscope::gui
