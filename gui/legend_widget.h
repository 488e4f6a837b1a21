// The colour legend above the timeline, drawn from palette::Legend().
#pragma once

#include <QWidget>
#include <vector>

#include "palette.h"

namespace napiscope::gui {

/// Swatches and names of every colour the timeline uses, wrapped to the widget's width.
class LegendWidget : public QWidget {
  Q_OBJECT

 public:
  explicit LegendWidget(QWidget* parent = nullptr);

  /// Shows only the task kinds `task_classes` (those the trace shows); all before a trace.
  void SetTaskClasses(const std::vector<TaskClass>& task_classes);
  /// The groups drawn.
  const std::vector<LegendGroup>& groups() const { return groups_; }

  bool hasHeightForWidth() const override { return true; }
  int heightForWidth(int width) const override;
  QSize sizeHint() const override;

 protected:
  void paintEvent(QPaintEvent* event) override;

 private:
  /// Lays the legend out for `width`; paints when `painter` is set. Returns the height used.
  int Layout(int width, class QPainter* painter) const;

  std::vector<LegendGroup> groups_ = palette::Legend();
};

}  // namespace napiscope::gui
