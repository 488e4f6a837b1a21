// The colour legend above the timeline, drawn from palette::Legend().
#pragma once

#include <QWidget>

namespace napiscope::gui {

/// Swatches and names of every colour the timeline uses, wrapped to the widget's width.
class LegendWidget : public QWidget {
  Q_OBJECT

 public:
  explicit LegendWidget(QWidget* parent = nullptr);

  bool hasHeightForWidth() const override { return true; }
  int heightForWidth(int width) const override;
  QSize sizeHint() const override;

 protected:
  void paintEvent(QPaintEvent* event) override;

 private:
  /// Lays the legend out for `width`; paints when `painter` is set. Returns the height used.
  int Layout(int width, class QPainter* painter) const;
};

}  // namespace napiscope::gui
