#include "event_search.h"

#include <QRegularExpression>
#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <optional>

#include "event_text.h"
#include "napiscope/format.h"

namespace napiscope::gui {
namespace {

std::string Lower(std::string text) {
  std::transform(text.begin(), text.end(), text.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return text;
}

std::optional<double> Number(const std::string& text) {
  if (text.empty()) return std::nullopt;
  char* end = nullptr;
  double value = std::strtod(text.c_str(), &end);
  if (end != text.c_str() + text.size()) return std::nullopt;
  return value;
}

}  // namespace

QString EventRowText(const Event& event, const TraceContext& context) {
  return QString("%1 [%2] %3 %4: %5")
      .arg(QString::fromStdString(FormatTimestamp(event.ts_ns)))
      .arg(event.cpu, 3, 10, QChar('0'))
      .arg(EventTaskText(event, context), EventNameText(event, context.strings),
           EventFieldsText(event, context));
}

bool EventQuery::Parse(const QString& input, QString* error) {
  conditions_.clear();
  text_.clear();
  static const QRegularExpression kCondition(
      "^([A-Za-z_][A-Za-z0-9_]*)\\s*(==|!=|~|>=|<=|>|<|=)\\s*(\\S+)$");
  QStringList plain;
  QString text = input;
  text.replace("&&", " ");
  // "key op value" may be written with spaces around the operator: join them first.
  static const QRegularExpression kSpacedOp("\\s*(==|!=|~|>=|<=|>|<)\\s*");
  text.replace(kSpacedOp, "\\1");
  for (const QString& token : text.split(' ', Qt::SkipEmptyParts)) {
    QRegularExpressionMatch match = kCondition.match(token);
    if (!match.hasMatch()) {
      if (token.contains(QRegularExpression("(==|!=|~|>=|<=)"))) {
        *error = QString("'%1' is not a condition like irq==354, vec==NET_RX or comm~napi/")
                     .arg(token);
        return false;
      }
      plain << token;
      continue;
    }
    Condition condition;
    condition.key = match.captured(1).toLower().toStdString();
    QString op = match.captured(2);
    condition.op = op == "!="   ? Op::kNotEqual
                   : op == "~"  ? Op::kContains
                   : op == "<"  ? Op::kLess
                   : op == "<=" ? Op::kLessEqual
                   : op == ">"  ? Op::kGreater
                   : op == ">=" ? Op::kGreaterEqual
                                : Op::kEqual;
    condition.value = Lower(match.captured(3).toStdString());
    if (std::optional<double> number = Number(condition.value)) {
      condition.numeric = true;
      condition.number = *number;
    } else if (condition.op != Op::kEqual && condition.op != Op::kNotEqual &&
               condition.op != Op::kContains) {
      *error = QString("'%1': %2 compares numbers").arg(token, op);
      return false;
    }
    conditions_.push_back(condition);
  }
  text_ = plain.join(' ').toLower();
  return true;
}

bool EventQuery::Holds(const Condition& condition, const Event& event,
                       const TraceContext& context) const {
  std::vector<std::string> keys = {condition.key};
  // "comm" is any comm the event names (the current task's, prev/next, the woken one).
  if (condition.key == "comm") keys = {"comm", "prev_comm", "next_comm", "child_comm", "task"};
  // "vec" also takes the vector's name (vec==NET_RX).
  if (condition.key == "vec" && !condition.numeric) keys = {"action"};
  bool any_value = false;
  for (const std::string& key : keys) {
    std::optional<std::string> value = EventFieldValue(key, event, context);
    if (!value) continue;
    any_value = true;
    std::string lower = Lower(*value);
    bool holds = false;
    switch (condition.op) {
      case Op::kEqual:
      case Op::kNotEqual: {
        std::optional<double> number = Number(lower);
        holds = condition.numeric && number ? *number == condition.number : lower == condition.value;
        if (condition.op == Op::kNotEqual) {
          if (holds) return false;
          continue;
        }
        break;
      }
      case Op::kContains:
        holds = lower.find(condition.value) != std::string::npos;
        break;
      case Op::kLess:
      case Op::kLessEqual:
      case Op::kGreater:
      case Op::kGreaterEqual: {
        std::optional<double> number = Number(lower);
        if (!number) break;
        holds = condition.op == Op::kLess        ? *number < condition.number
                : condition.op == Op::kLessEqual ? *number <= condition.number
                : condition.op == Op::kGreater   ? *number > condition.number
                                                 : *number >= condition.number;
        break;
      }
    }
    if (holds) return true;
  }
  return condition.op == Op::kNotEqual && any_value;
}

bool EventQuery::Matches(const Event& event, const TraceContext& context) const {
  for (const Condition& condition : conditions_) {
    if (!Holds(condition, event, context)) return false;
  }
  if (!text_.isEmpty() && !EventRowText(event, context).toLower().contains(text_)) return false;
  return true;
}

}  // namespace napiscope::gui
