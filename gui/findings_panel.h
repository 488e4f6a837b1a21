// The findings of the report (severity, sentence, CPU, when); selecting one asks the timeline
// to zoom to its window and highlight its CPU, threads and vectors.
#pragma once

#include <QWidget>
#include <optional>
#include <vector>

#include "napiscope/findings.h"
#include "napiscope/timeline.h"

class QTextBrowser;
class QTreeWidget;

namespace napiscope::gui {

/// What selecting a finding shows on the timeline.
struct FindingFocus {
  std::vector<int> cpus;                                      ///< CPUs to highlight
  std::optional<std::pair<TimestampNs, TimestampNs>> window;  ///< the finding's time window
  TimelineFilter named;  ///< pids, IRQs and vectors its evidence names
};

/// Where a finding points on a timeline with `cpus` CPUs: its CPU (all when it names none),
/// its window when it has one, and the "vec"/"vecs", "irq"/"irqs", "pid"/"pids" of its evidence.
FindingFocus FocusOf(const Finding& finding, int cpus);

/// A list of findings, most severe first (as the report sorts them).
class FindingsPanel : public QWidget {
  Q_OBJECT

 public:
  explicit FindingsPanel(QWidget* parent = nullptr);

  /// Shows `findings`; `origin_ns` is the trace start (times are shown from it).
  void SetFindings(const std::vector<Finding>& findings, TimestampNs origin_ns);

  /// Number of findings shown.
  int count() const { return static_cast<int>(findings_.size()); }

  /// Selects the `index`-th finding (as a click does); -1 clears the selection.
  void Select(int index);

 signals:
  /// A finding was selected (index into the list given to SetFindings).
  void FindingSelected(int index);
  /// The selection was cleared.
  void SelectionCleared();

 private:
  /// Shows finding `index` whole with its evidence, or every sentence when index < 0.
  void ShowDetails(int index);

  QTreeWidget* tree_;
  QTextBrowser* details_;
  std::vector<Finding> findings_;
};

}  // namespace napiscope::gui
