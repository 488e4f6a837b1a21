// Fills many small rectangles of one colour with one QPainter call instead of one each, with
// the pixels fillRect would give them.
#pragma once

#include <QColor>
#include <QPainter>
#include <QRect>
#include <QVector>

namespace napiscope::gui {

/// Rectangles queued for `painter`, drawn in the order queued: each is filled as
/// painter.fillRect(rect, colour) fills it. Where the painter allows it (no antialiasing, at most
/// a whole-pixel translation, the rectangle at non-negative coordinates) a rectangle is queued
/// as the pixel rectangle Qt's raster engine fills for it (its edges rounded to the nearest
/// pixel) and a run of one colour is drawn in one call; otherwise it is filled at once.
class FillBatch {
 public:
  explicit FillBatch(QPainter& painter);
  ~FillBatch() { Flush(); }
  FillBatch(const FillBatch&) = delete;
  FillBatch& operator=(const FillBatch&) = delete;

  /// Fills `rect` with `color`, now or at the next Flush.
  void Fill(const QRectF& rect, const QColor& color);

  /// Draws what is queued. Call it before drawing anything else with the painter.
  void Flush();

 private:
  QPainter& painter_;
  bool batchable_ = false;
  QColor color_;
  QVector<QRect> rects_;
};

}  // namespace napiscope::gui
