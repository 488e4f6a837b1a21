// The findings of the report (severity, sentence, CPU, when); selecting one asks the timeline
// to zoom to its window and highlight its CPU, threads and vectors.
#pragma once

#include <QWidget>
#include <optional>
#include <vector>

#include "napiscope/findings.h"
#include "napiscope/timeline.h"

class QLabel;
class QPushButton;
class QTextBrowser;
class QTreeWidget;

namespace napiscope::gui {

/// What selecting a finding shows on the timeline.
struct FindingFocus {
  std::vector<int> cpus;                                      ///< CPUs to highlight
  std::optional<std::pair<TimestampNs, TimestampNs>> window;  ///< the finding's time window
  TimelineFilter named;       ///< the tasks, IRQ and vector it names
  std::vector<int32_t> pins;  ///< threads to pin as lanes: those a ping-pong/placement names
};

/// Where a finding points: its CPU (all of `active_cpus`, those with events, when it names none),
/// its window when it has one, and the vector, IRQ and tasks it names (`TasksNamed`);
/// a ping-pong or placement finding (rule "*-pingpong", "*-placement") pins the threads it
/// names (at most 4) and points at its other_cpus (where woken, where it ran), not every CPU.
FindingFocus FocusOf(const Finding& finding, const std::vector<int>& active_cpus);

/// A list of findings, most severe first (as the report sorts them).
class FindingsPanel : public QWidget {
  Q_OBJECT

 public:
  explicit FindingsPanel(QWidget* parent = nullptr);

  /// Shows `findings`; `origin_ns` is the trace start (times are shown from it); `scope` says
  /// which range they describe ("whole trace", "A–B: +1.2ms … +3.4ms").
  void SetFindings(const std::vector<Finding>& findings, TimestampNs origin_ns,
                   const QString& scope = "the whole trace");

  /// The range the findings shown describe.
  QString Scope() const { return scope_text_; }

  /// Shows that findings of a range are being computed.
  void SetBusy(const QString& scope);

  /// Number of findings shown.
  int count() const { return static_cast<int>(findings_.size()); }

  /// Selects the `index`-th finding (as a click does); -1 clears the selection.
  void Select(int index);

 signals:
  /// A finding was selected (index into the list given to SetFindings).
  void FindingSelected(int index);
  /// The selection was cleared.
  void SelectionCleared();
  /// The user asked for the findings of markers A-B (or the view when they are not set).
  void RangeRequested();
  /// The user asked for the findings of the whole trace again.
  void WholeTraceRequested();

 private:
  /// Shows finding `index` whole with its evidence, or every sentence when index < 0.
  void ShowDetails(int index);

  QLabel* scope_;
  QPushButton* range_button_;
  QPushButton* whole_button_;
  QString scope_text_;
  QTreeWidget* tree_;
  QTextBrowser* details_;
  std::vector<Finding> findings_;
};

}  // namespace napiscope::gui
