#include "time_text.h"

#include <algorithm>
#include <cstdlib>
#include <string>

#include "napiscope/format.h"

namespace napiscope::gui {

bool ParseTraceTime(const QString& text, TimestampNs trace_start_ns, TimestampNs* ts_ns,
                    QString* error) {
  QString trimmed = text.trimmed();
  std::string body = trimmed.toStdString();
  if (!body.empty() && body[0] == '+') {
    TimestampNs offset_ns = 0;
    if (ParseDuration(std::string_view(body).substr(1), &offset_ns)) {
      *ts_ns = trace_start_ns + offset_ns;
      return true;
    }
  } else {
    if (!body.empty() && body[0] == '@') body.erase(0, 1);
    if (ParseTimestamp(body, ts_ns)) return true;
  }
  *error = QString(
               "'%1' is not a time: absolute trace seconds as trace-cmd prints them (705.4123) or "
               "an offset from the trace start (+100ms, +1.5s, +300us)")
               .arg(text);
  return false;
}

int SecondDecimals(TimestampNs resolution_ns) {
  int decimals = 0;
  for (TimestampNs step = 1'000'000'000; step > std::max<TimestampNs>(resolution_ns, 1) &&
                                         decimals < 9;
       step /= 10) {
    ++decimals;
  }
  return decimals;
}

QString FormatTraceSeconds(TimestampNs ts_ns, TimestampNs resolution_ns) {
  int decimals = SecondDecimals(resolution_ns);
  TimestampNs divisor = 1;
  for (int i = decimals; i < 9; ++i) divisor *= 10;
  TimestampNs rounded = (ts_ns + divisor / 2) / divisor;  // in units of 10^-decimals s
  TimestampNs scale = 1'000'000'000 / divisor;
  QString text = QString::number(rounded / scale);
  if (decimals > 0) {
    text += '.' + QString::number(rounded % scale).rightJustified(decimals, '0');
  }
  return text;
}

QString FormatOffset(TimestampNs offset_ns, TimestampNs resolution_ns) {
  struct Unit {
    TimestampNs ns;
    const char* name;
  };
  static constexpr Unit kUnits[] = {
      {1'000'000'000, "s"}, {1'000'000, "ms"}, {1'000, "us"}, {1, "ns"}};
  const Unit* unit = &kUnits[3];
  for (const Unit& candidate : kUnits) {
    if (std::llabs(offset_ns) >= candidate.ns) {
      unit = &candidate;
      break;
    }
  }
  int decimals = 0;
  for (TimestampNs step = unit->ns; step > std::max<TimestampNs>(resolution_ns, 1); step /= 10) {
    ++decimals;
  }
  QString sign = offset_ns < 0 ? "-" : "+";
  double value = static_cast<double>(std::llabs(offset_ns)) / static_cast<double>(unit->ns);
  return sign + QString::number(value, 'f', decimals) + unit->name;
}

}  // namespace napiscope::gui
