// Four Qt Charts over the timeline's selected range: raise-to-entry delays per vector (CPU
// selectable), CPU time per CPU, thread activations same-CPU vs cross-CPU, NAPI work per poll.
// The statistics are computed on a worker thread (seconds on tens of millions of events), so
// the window draws and responds meanwhile; the charts are replaced when they are ready.
#pragma once

#include <QWidget>
#include <memory>

#include "loaded_trace.h"

class QChart;
class QChartView;
class QComboBox;
class QGridLayout;
class QScrollArea;
class QThread;
class QTimer;

namespace napiscope::gui {

/// The statistics tab; the numbers come from napiscope/timeline_stats.h.
class ChartsPanel : public QWidget {
  Q_OBJECT

 public:
  explicit ChartsPanel(QWidget* parent = nullptr);

  /// Shows statistics of `trace` over its whole span.
  void SetTrace(std::shared_ptr<const LoadedTrace> trace);

  /// Follows a new range; refreshes shortly after the last call (dragging stays fluid).
  void SetRange(TimestampNs from_ns, TimestampNs to_ns);

  /// Recomputes the charts now (in the background; WaitForRefresh blocks until shown).
  void Refresh();

  /// True while statistics are being computed (or a refresh is pending).
  bool refreshing() const { return worker_ != nullptr || refresh_timer_active(); }

  /// Blocks until the charts show the current trace, range and CPU (runs a pending refresh).
  void WaitForRefresh();

  /// The CPU the delay histogram shows (-1: all).
  void SetDelayCpu(int cpu);

  /// The chart views, in the order delay, CPU time, activations, NAPI work (for tests).
  QChartView* view(int index) const { return views_[index]; }

  /// The scroll area the charts are laid out in (for tests).
  QScrollArea* scroll_area() const { return scroll_; }

  ~ChartsPanel() override;

 protected:
  void resizeEvent(QResizeEvent* event) override;

 private:
  struct Request;
  struct Statistics;
  void Arrange();
  void Place(int columns);
  void Replace(int index, QChart* chart);
  void Show(const Request& request, const Statistics& statistics);
  void Finished(QThread* worker);
  bool refresh_timer_active() const;

  std::shared_ptr<const LoadedTrace> trace_;
  QThread* worker_ = nullptr;
  bool stale_ = false;  // the trace, range or CPU changed while the worker ran
  TimestampNs from_ns_ = 0;
  TimestampNs to_ns_ = 0;
  QComboBox* delay_cpu_;
  QTimer* refresh_timer_;
  QChartView* views_[4] = {};
  QWidget* delay_box_;  // the delay histogram with its CPU selector
  QScrollArea* scroll_;
  QGridLayout* grid_;
  int columns_ = 0;  // the columns Place laid the charts out in
};

}  // namespace napiscope::gui
