// The timeline widget: paints with TimelinePainter and handles navigation — wheel zoom at the
// cursor, drag to pan, W/S/A/D (as in Perfetto), double-click to zoom to an interval, markers
// A (click) and B (shift-click), hover tooltips.
#pragma once

#include <QImage>
#include <QWidget>
#include <memory>

class QScrollBar;

#include "loaded_trace.h"
#include "timeline_painter.h"

namespace napiscope::gui {

/// Shows one LoadedTrace; everything it draws comes from the core's Timeline.
class TimelineView : public QWidget {
  Q_OBJECT

 public:
  explicit TimelineView(QWidget* parent = nullptr);

  /// Shows `trace` zoomed to fit; null clears the view.
  void SetTrace(std::shared_ptr<const LoadedTrace> trace);
  const LoadedTrace* trace() const { return trace_.get(); }

  /// Shows [from_ns, to_ns], clamped to the trace (at least 100 ns wide).
  void SetRange(TimestampNs from_ns, TimestampNs to_ns);
  /// Shows the whole trace.
  void ZoomToFit();
  /// Shows markers A-B (with a twentieth of their distance around them); false when not both set.
  bool ZoomToMarkers();
  /// Zooms by `factor` (< 1 zooms in) keeping the time at widget x `anchor_x` in place.
  void Zoom(double factor, double anchor_x);
  /// Pans by `fraction` of the visible span (negative: left).
  void Pan(double fraction);

  /// Hides or shows a CPU's lanes.
  void SetCpuVisible(int cpu, bool visible);
  bool CpuVisible(int cpu) const;
  /// Shows only `cpus` (all when empty).
  void ShowOnlyCpus(const std::vector<int>& cpus);
  /// Shows the CPUs with events only (LoadedTrace::active_cpus): every CPU when all have some.
  void ShowCpusWithEvents();

  /// Four lane rows (true) or the compact row (false) for `cpu`; SetAllExpanded for all CPUs.
  void SetCpuExpanded(int cpu, bool expanded);
  bool CpuExpanded(int cpu) const;
  void SetAllExpanded(bool expanded);

  /// Pins `pid` as a thread lane under the ruler (no-op when pinned); Unpin removes it.
  void Pin(int32_t pid);
  void Unpin(int32_t pid);
  const std::vector<int32_t>& PinnedPids() const { return state_.pinned_pids; }
  /// The lane data of a pinned task (null when not pinned).
  const ThreadLaneData* ThreadLane(int32_t pid) const { return threads_.Find(pid); }

  /// Scrolls the CPU rows (the ruler stays) so that `cpu` is shown whole.
  void ScrollToCpu(int cpu);
  /// Scrolls the CPU rows to `scroll_y` pixels (clamped).
  void SetScroll(int scroll_y);

  /// Filter: `mask` from Timeline::MatchingItems, empty for none.
  void SetItemMask(ItemMask mask);

  /// Highlights the CPUs, window and named items (Timeline::NamedItems) of a finding; empty
  /// values clear it.
  void SetHighlight(std::vector<int> cpus,
                    std::optional<std::pair<TimestampNs, TimestampNs>> window,
                    std::vector<uint8_t> emphasis);

  /// Markers; nullopt clears.
  void SetMarkers(std::optional<TimestampNs> a, std::optional<TimestampNs> b);

  /// The range statistics follow: between the markers when both are set, else the visible one.
  std::pair<TimestampNs, TimestampNs> SelectedRange() const;

  const TimelineViewState& state() const { return state_; }

  /// The geometry for the current width.
  TimelineLayout Layout() const;

  /// Height the ruler and all CPU rows need unscrolled.
  int ContentHeight() const;

  QSize sizeHint() const override;

  /// Keeps the last frame (without markers) and repaints from it while only the markers, the
  /// focus or a drag band change; on by default. Off, every repaint draws the frame anew (the
  /// window bench times those).
  void SetFrameCacheEnabled(bool enabled);

 signals:
  /// CPUs were hidden or shown (the CPUs menu follows).
  void CpuVisibilityChanged();
  /// A task was pinned or unpinned.
  void PinsChanged();
  /// The visible range changed.
  void RangeChanged(TimestampNs from_ns, TimestampNs to_ns);
  /// A marker moved or was cleared.
  void MarkersChanged();
  /// The range statistics follow changed (visible range or markers).
  void SelectedRangeChanged(TimestampNs from_ns, TimestampNs to_ns);

 protected:
  void paintEvent(QPaintEvent* event) override;
  void mousePressEvent(QMouseEvent* event) override;
  void mouseMoveEvent(QMouseEvent* event) override;
  void mouseReleaseEvent(QMouseEvent* event) override;
  void mouseDoubleClickEvent(QMouseEvent* event) override;
  void wheelEvent(QWheelEvent* event) override;
  void keyPressEvent(QKeyEvent* event) override;
  bool event(QEvent* event) override;
  void focusInEvent(QFocusEvent* event) override;
  void focusOutEvent(QFocusEvent* event) override;
  void resizeEvent(QResizeEvent* event) override;
  void contextMenuEvent(QContextMenuEvent* event) override;

 private:
  void UpdateScrollBar();
  void ShowContextMenu(QPoint pos, QPoint global_pos);
  int LayoutWidth() const;
  TimeAxis Axis() const;
  void EmitSelected();

  // True when the cached frame shows the current state, size and trace.
  bool FrameCacheValid() const;

  std::shared_ptr<const LoadedTrace> trace_;
  TimelineViewState state_;
  bool frame_cache_enabled_ = true;
  QImage frame_cache_;               // the last frame without markers
  TimelineViewState frame_state_;    // what it showed
  const LoadedTrace* frame_trace_ = nullptr;
  QFont frame_font_;
  QScrollBar* scroll_bar_;
  ThreadLanes threads_;
  QPoint press_pos_;
  TimestampNs press_from_ns_ = 0;
  bool dragging_ = false;
  bool pressed_ = false;
  bool focusing_click_ = false;  // the press that gave the focus sets no marker
  // Right-drag or Ctrl+drag draws a range to zoom to: from press_pos_ to select_x_.
  bool selecting_ = false;
  Qt::MouseButton select_button_ = Qt::NoButton;
  int select_x_ = 0;
};

}  // namespace napiscope::gui
