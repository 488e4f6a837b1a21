// Sessions: what the user set up on a trace (view, markers, pinned threads, filters, hidden and
// expanded CPUs), saved as a small JSON file and restored with --session FILE or File > Open
// session. Times are absolute trace seconds, as trace-cmd prints them.
#pragma once

#include <QByteArray>
#include <QString>
#include <optional>
#include <vector>

#include "napiscope/event.h"
#include "napiscope/interrupt_id.h"

namespace napiscope::gui {

/// Everything a session restores.
struct SessionState {
  QString trace_path;  ///< the trace it was saved on (absolute)
  TimestampNs from_ns = 0;
  TimestampNs to_ns = 0;
  std::optional<TimestampNs> marker_a;
  std::optional<TimestampNs> marker_b;
  std::vector<int32_t> pinned_pids;
  std::vector<int> hidden_cpus;
  std::vector<int> expanded_cpus;
  QString task_filter;   ///< the toolbar's task box
  InterruptId irq_filter;  ///< the IRQ or x86 vector filtered on; none: all
  int vec_filter = -1;   ///< -1: all
  QString event_filter;  ///< the event list's filter
  int scroll_y = 0;

  bool operator==(const SessionState&) const = default;
};

/// The session as indented JSON.
QByteArray SessionToJson(const SessionState& session);

/// Parses a session; false with a one-line `error` (naming what is wrong) otherwise.
bool SessionFromJson(const QByteArray& json, SessionState* session, QString* error);

/// Reads `path` with SessionFromJson; errors name the file.
bool ReadSessionFile(const QString& path, SessionState* session, QString* error);

/// Writes `session` to `path`; errors name the file.
bool WriteSessionFile(const QString& path, const SessionState& session, QString* error);

/// The file File > Save session writes for the name chosen: one without an extension gets
/// ".json", so that File > Open session (which lists *.json) shows it ("sess1" -> "sess1.json").
QString SessionPathWithSuffix(const QString& chosen);

}  // namespace napiscope::gui
