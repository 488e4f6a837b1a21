#include "fill_batch.h"

#include <cmath>

namespace napiscope::gui {

FillBatch::FillBatch(QPainter& painter) : painter_(painter) {
  // fillRect rounds a rectangle's edges after the device transform, drawRects translates whole
  // pixel rectangles: the same pixels under a translation by whole, non-negative pixels.
  const QTransform& device = painter.deviceTransform();
  batchable_ = !painter.testRenderHint(QPainter::Antialiasing) &&
               device.type() <= QTransform::TxTranslate && device.dx() >= 0 && device.dy() >= 0 &&
               device.dx() == std::floor(device.dx()) && device.dy() == std::floor(device.dy());
}

void FillBatch::Fill(const QRectF& rect, const QColor& color) {
  bool positive = rect.left() >= 0 && rect.top() >= 0 && rect.width() > 0 && rect.height() > 0;
  if (!batchable_ || !positive) {
    Flush();
    painter_.fillRect(rect, color);
    return;
  }
  if (!rects_.isEmpty() && color != color_) Flush();
  color_ = color;
  // The raster engine's fill of a QRectF without antialiasing: each edge to the nearest pixel.
  int x1 = qRound(rect.left());
  int y1 = qRound(rect.top());
  int x2 = qRound(rect.right());
  int y2 = qRound(rect.bottom());
  if (x2 > x1 && y2 > y1) rects_.append(QRect(x1, y1, x2 - x1, y2 - y1));
}

void FillBatch::Flush() {
  if (rects_.isEmpty()) return;
  QPen pen = painter_.pen();
  QBrush brush = painter_.brush();
  painter_.setPen(Qt::NoPen);
  painter_.setBrush(color_);
  painter_.drawRects(rects_);
  painter_.setPen(pen);
  painter_.setBrush(brush);
  rects_.clear();
}

}  // namespace napiscope::gui
