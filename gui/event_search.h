// Searches and filters of the event list: plain text (found anywhere in the row as shown) or
// field conditions `irq==354`, `vec==NET_RX`, `comm~napi/`, `cpu!=3`, `work>=64`, all of which
// must hold (separated by spaces or "&&").
#pragma once

#include <QString>
#include <string>
#include <vector>

#include "napiscope/event_sink.h"

namespace napiscope::gui {

/// A parsed search.
class EventQuery {
 public:
  /// Parses `text`; false with a one-line `error` when a condition is malformed.
  bool Parse(const QString& text, QString* error);

  /// True when nothing was asked (every event matches).
  bool empty() const { return conditions_.empty() && text_.isEmpty(); }

  /// True when `event` matches.
  bool Matches(const Event& event, const TraceContext& context) const;

 private:
  enum class Op { kEqual, kNotEqual, kContains, kLess, kLessEqual, kGreater, kGreaterEqual };
  struct Condition {
    std::string key;
    Op op = Op::kEqual;
    std::string value;  // lower case for kContains and names
    bool numeric = false;
    double number = 0;
  };
  bool Holds(const Condition& condition, const Event& event, const TraceContext& context) const;

  std::vector<Condition> conditions_;
  QString text_;  // plain text, matched case-insensitively against the row
};

/// The row as one line (time, CPU, task, event, fields) as plain-text searches see it.
QString EventRowText(const Event& event, const TraceContext& context);

}  // namespace napiscope::gui
