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
  if (batchable_ && !PrepareDirectWrites()) pixels_ = nullptr;
}

bool FillBatch::PrepareDirectWrites() {
  // An opaque fill of a 32-bit image, composed over what is there with full opacity, sets each
  // pixel to the colour: the image's bytes can be written instead of asking the engine.
  QPaintDevice* device = painter_.device();
  if (device == nullptr || device->devType() != QInternal::Image) return false;
  auto* image = static_cast<QImage*>(device);
  if (image->format() != QImage::Format_ARGB32_Premultiplied &&
      image->format() != QImage::Format_RGB32 && image->format() != QImage::Format_ARGB32) {
    return false;
  }
  if (painter_.compositionMode() != QPainter::CompositionMode_SourceOver ||
      painter_.opacity() != 1.0) {
    return false;
  }
  offset_ = QPoint(static_cast<int>(painter_.deviceTransform().dx()),
                   static_cast<int>(painter_.deviceTransform().dy()));
  writable_ = image->rect();
  if (painter_.hasClipping()) {
    QRegion clip = painter_.clipRegion();
    if (clip.rectCount() > 1) return false;
    writable_ &= clip.boundingRect().translated(offset_);
  }
  // The buffer the painter draws into: constBits, since bits() would copy a shared image and
  // leave the painter's pixels elsewhere.
  pixels_ = const_cast<uchar*>(std::as_const(*image).constBits());
  bytes_per_line_ = image->bytesPerLine();
  return true;
}

void FillBatch::Fill(const QRectF& rect, const QColor& color) {
  bool positive = rect.left() >= 0 && rect.top() >= 0 && rect.width() > 0 && rect.height() > 0;
  if (!batchable_ || !positive) {
    Flush();
    painter_.fillRect(rect, color);
    return;
  }
  // The raster engine's fill of a QRectF without antialiasing: each edge to the nearest pixel.
  int x1 = qRound(rect.left());
  int y1 = qRound(rect.top());
  int x2 = qRound(rect.right());
  int y2 = qRound(rect.bottom());
  if (x2 <= x1 || y2 <= y1) return;
  QRect pixels(x1, y1, x2 - x1, y2 - y1);
  if (pixels_ != nullptr && color.alpha() == 255) {
    Flush();
    WritePixels(pixels, color.rgba());
    return;
  }
  if (!rects_.isEmpty() && color != color_) Flush();
  color_ = color;
  rects_.append(pixels);
}

void FillBatch::WritePixels(const QRect& rect, QRgb pixel) {
  QRect target = rect.translated(offset_) & writable_;
  if (target.isEmpty()) return;
  for (int y = target.top(); y <= target.bottom(); ++y) {
    auto* line = reinterpret_cast<QRgb*>(pixels_ + y * bytes_per_line_);
    std::fill(line + target.left(), line + target.left() + target.width(), pixel);
  }
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
