#include "fill_batch.h"

#include <QImage>
#include <QPaintDevice>
#include <QRegion>
#include <algorithm>
#include <cmath>
#include <utility>

namespace napiscope::gui {

FillBatch::FillBatch(QPainter& painter) : painter_(painter) {
  // fillRect rounds a rectangle's edges after the device transform, drawRects translates whole
  // pixel rectangles: the same pixels under a translation by whole, non-negative pixels.
  const QTransform& device = painter.deviceTransform();
  batchable_ = !painter.testRenderHint(QPainter::Antialiasing) &&
               device.type() <= QTransform::TxTranslate && device.dx() >= 0 && device.dy() >= 0 &&
               device.dx() == std::floor(device.dx()) && device.dy() == std::floor(device.dy());
  if (batchable_) PrepareDirectWrites();
}

void FillBatch::PrepareDirectWrites() {
  // An opaque fill of a 32-bit image, composed over what is there with full opacity, sets each
  // pixel to the colour: the image's bytes can be written instead of asking the engine.
  QPaintDevice* device = painter_.device();
  if (device == nullptr || device->devType() != QInternal::Image) return;
  auto* image = static_cast<QImage*>(device);
  if (image->format() != QImage::Format_ARGB32_Premultiplied &&
      image->format() != QImage::Format_RGB32 && image->format() != QImage::Format_ARGB32) {
    return;
  }
  if (painter_.compositionMode() != QPainter::CompositionMode_SourceOver ||
      painter_.opacity() != 1.0) {
    return;
  }
  QPoint offset(static_cast<int>(painter_.deviceTransform().dx()),
                static_cast<int>(painter_.deviceTransform().dy()));
  QRect writable = image->rect();
  if (painter_.hasClipping()) {
    QRegion clip = painter_.clipRegion();
    if (clip.rectCount() > 1) return;
    writable &= clip.boundingRect().translated(offset);
  }
  offset_x_ = offset.x();
  offset_y_ = offset.y();
  writable_left_ = writable.left();
  writable_top_ = writable.top();
  writable_right_ = writable.left() + writable.width();
  writable_bottom_ = writable.top() + writable.height();
  // The buffer the painter draws into: constBits, since bits() would copy a shared image and
  // leave the painter's pixels elsewhere.
  pixels_ = const_cast<uchar*>(std::as_const(*image).constBits());
  bytes_per_line_ = image->bytesPerLine();
}

void FillBatch::Fill(const QRectF& rect, QRgb color) {
  bool positive = rect.left() >= 0 && rect.top() >= 0 && rect.width() > 0 && rect.height() > 0;
  if (!batchable_ || !positive) {
    Flush();
    painter_.fillRect(rect, QColor::fromRgba(color));
    return;
  }
  // The raster engine's fill of a QRectF without antialiasing: each edge to the nearest pixel.
  int x1 = qRound(rect.left());
  int y1 = qRound(rect.top());
  int x2 = qRound(rect.right());
  int y2 = qRound(rect.bottom());
  if (x2 <= x1 || y2 <= y1) return;
  if (pixels_ != nullptr && qAlpha(color) == 255) {
    Flush();
    WritePixels(x1, y1, x2, y2, color);
    return;
  }
  if (!rects_.isEmpty() && color != color_) Flush();
  color_ = color;
  rects_.append(QRect(x1, y1, x2 - x1, y2 - y1));
}

void FillBatch::WritePixels(int x1, int y1, int x2, int y2, QRgb pixel) {
  int left = std::max(x1 + offset_x_, writable_left_);
  int right = std::min(x2 + offset_x_, writable_right_);
  int top = std::max(y1 + offset_y_, writable_top_);
  int bottom = std::min(y2 + offset_y_, writable_bottom_);
  if (left >= right || top >= bottom) return;
  uchar* line = pixels_ + static_cast<qsizetype>(top) * bytes_per_line_;
  for (int y = top; y < bottom; ++y, line += bytes_per_line_) {
    auto* row = reinterpret_cast<QRgb*>(line);
    std::fill(row + left, row + right, pixel);
  }
}

void FillBatch::Flush() {
  if (rects_.isEmpty()) return;
  QPen pen = painter_.pen();
  QBrush brush = painter_.brush();
  painter_.setPen(Qt::NoPen);
  painter_.setBrush(QColor::fromRgba(color_));
  painter_.drawRects(rects_);
  painter_.setPen(pen);
  painter_.setBrush(brush);
  rects_.clear();
}

}  // namespace napiscope::gui
