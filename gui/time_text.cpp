#include "time_text.h"

#include <algorithm>
#include <cstdlib>
#include <string>
#include <utility>

#include "napiscope/time_window.h"

namespace napiscope::gui {

bool ParseTraceTime(const QString& text, TimestampNs trace_start_ns, TimestampNs* ts_ns,
                    QString* error) {
  TimeBound bound;
  std::string why;
  if (!ParseTimeBound(text.trimmed().toStdString(), &bound, &why)) {
    *error = QString::fromStdString(why);
    return false;
  }
  *ts_ns = ResolveTimeBound(bound, trace_start_ns);
  return true;
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

OffsetUnit OffsetUnitOf(TimestampNs offset_ns, TimestampNs resolution_ns) {
  static constexpr std::pair<TimestampNs, const char*> kUnits[] = {
      {1'000'000'000, "s"}, {1'000'000, "ms"}, {1'000, "us"}, {1, "ns"}};
  OffsetUnit unit;
  for (auto [ns, name] : kUnits) {
    if (std::llabs(offset_ns) >= ns) {
      unit.ns = ns;
      unit.name = name;
      break;
    }
  }
  for (TimestampNs step = unit.ns; step > std::max<TimestampNs>(resolution_ns, 1); step /= 10) {
    ++unit.decimals;
  }
  return unit;
}

QString FormatOffset(TimestampNs offset_ns, TimestampNs resolution_ns) {
  OffsetUnit unit = OffsetUnitOf(offset_ns, resolution_ns);
  QString sign = offset_ns < 0 ? "-" : "+";
  double value = static_cast<double>(std::llabs(offset_ns)) / static_cast<double>(unit.ns);
  return sign + QString::number(value, 'f', unit.decimals) + unit.name;
}

}  // namespace napiscope::gui
