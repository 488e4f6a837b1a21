#include "session.h"

#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QSaveFile>
#include <string_view>

#include "time_text.h"

namespace napiscope::gui {
namespace {

constexpr int kFormatVersion = 1;

QJsonValue Time(TimestampNs ts_ns) { return FormatTraceSeconds(ts_ns, 1); }

template <typename T>
QJsonArray Numbers(const std::vector<T>& values) {
  QJsonArray array;
  for (T value : values) array.append(static_cast<qint64>(value));
  return array;
}

}  // namespace

QByteArray SessionToJson(const SessionState& session) {
  QJsonObject root;
  root["napiscope_session"] = kFormatVersion;
  root["trace"] = session.trace_path;
  root["from"] = Time(session.from_ns);
  root["to"] = Time(session.to_ns);
  if (session.marker_a) root["marker_a"] = Time(*session.marker_a);
  if (session.marker_b) root["marker_b"] = Time(*session.marker_b);
  root["pinned_pids"] = Numbers(session.pinned_pids);
  root["hidden_cpus"] = Numbers(session.hidden_cpus);
  root["expanded_cpus"] = Numbers(session.expanded_cpus);
  root["task_filter"] = session.task_filter;
  root["irq_filter"] = session.irq_filter.number;
  root["irq_filter_x86_vector"] = session.irq_filter.x86_vector;
  root["vec_filter"] = session.vec_filter;
  root["event_filter"] = session.event_filter;
  root["scroll_y"] = session.scroll_y;
  return QJsonDocument(root).toJson(QJsonDocument::Indented);
}

bool SessionFromJson(const QByteArray& json, SessionState* session, QString* error) {
  QJsonParseError parse_error;
  QJsonDocument document = QJsonDocument::fromJson(json, &parse_error);
  if (document.isNull() || !document.isObject()) {
    *error = "not a napiscope session (JSON: " + parse_error.errorString() + ")";
    return false;
  }
  QJsonObject root = document.object();
  if (root["napiscope_session"].toInt() != kFormatVersion) {
    *error = "not a napiscope session (no \"napiscope_session\": 1)";
    return false;
  }
  SessionState result;
  result.trace_path = root["trace"].toString();
  auto time = [&](const char* key, TimestampNs* ts_ns) {
    QString text = root[key].toString();
    QString why;
    if (ParseTraceTime(text, 0, ts_ns, &why) && !text.startsWith('+')) return true;
    *error = QString("\"%1\": '%2' is not a trace time in seconds").arg(key, text);
    return false;
  };
  if (!time("from", &result.from_ns) || !time("to", &result.to_ns)) return false;
  for (const char* key : {"marker_a", "marker_b"}) {
    if (!root.contains(key)) continue;
    TimestampNs ts_ns = 0;
    if (!time(key, &ts_ns)) return false;
    (std::string_view(key) == "marker_a" ? result.marker_a : result.marker_b) = ts_ns;
  }
  for (const QJsonValue& value : root["pinned_pids"].toArray()) {
    result.pinned_pids.push_back(value.toInt());
  }
  for (const QJsonValue& value : root["hidden_cpus"].toArray()) {
    result.hidden_cpus.push_back(value.toInt());
  }
  for (const QJsonValue& value : root["expanded_cpus"].toArray()) {
    result.expanded_cpus.push_back(value.toInt());
  }
  result.task_filter = root["task_filter"].toString();
  result.irq_filter = {root["irq_filter"].toInt(-1), root["irq_filter_x86_vector"].toBool(false)};
  result.vec_filter = root["vec_filter"].toInt(-1);
  result.event_filter = root["event_filter"].toString();
  result.scroll_y = root["scroll_y"].toInt();
  *session = result;
  return true;
}

bool ReadSessionFile(const QString& path, SessionState* session, QString* error) {
  QFile file(path);
  if (!file.open(QIODevice::ReadOnly)) {
    *error = QString("%1: %2").arg(path, file.errorString());
    return false;
  }
  QString why;
  if (!SessionFromJson(file.read(1 << 20), session, &why)) {
    *error = QString("%1: %2").arg(path, why);
    return false;
  }
  return true;
}

bool WriteSessionFile(const QString& path, const SessionState& session, QString* error) {
  // Never over the trace it names; and whole or not at all (a full disk leaves the old file).
  QFileInfo target(path);
  if (target.exists() &&
      target.canonicalFilePath() == QFileInfo(session.trace_path).canonicalFilePath()) {
    *error = QString("%1: is the trace itself; save the session under another name").arg(path);
    return false;
  }
  QSaveFile file(path);
  if (!file.open(QIODevice::WriteOnly) || file.write(SessionToJson(session)) < 0 ||
      !file.commit()) {
    *error = QString("%1: %2").arg(path, file.errorString());
    return false;
  }
  return true;
}

QString SessionPathWithSuffix(const QString& chosen) {
  if (chosen.isEmpty() || !QFileInfo(chosen).suffix().isEmpty()) return chosen;
  return chosen + ".json";
}

}  // namespace napiscope::gui
