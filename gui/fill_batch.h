// Fills many small rectangles of one colour with one QPainter call instead of one each, or
// straight into the image's pixels, with the pixels fillRect would give them.
#pragma once

#include <QColor>
#include <QPainter>
#include <QRect>
#include <QVector>

namespace napiscope::gui {

/// Rectangles queued for `painter`, drawn in the order queued: each is filled as
/// painter.fillRect(rect, colour) fills it. Where the painter allows it (no antialiasing, at most
/// a whole-pixel translation, the rectangle at non-negative coordinates) a rectangle becomes
/// the pixel rectangle Qt's raster engine fills for it (its edges rounded to the nearest
/// pixel). An opaque one on a 32-bit image with at most a rectangular clip is written into the
/// image's pixels at once; others are queued and a run of one colour drawn in one call;
/// anything else is filled at once.
class FillBatch {
 public:
  explicit FillBatch(QPainter& painter);
  ~FillBatch() { Flush(); }
  FillBatch(const FillBatch&) = delete;
  FillBatch& operator=(const FillBatch&) = delete;

  /// Fills `rect` with `color`, now or at the next Flush.
  void Fill(const QRectF& rect, const QColor& color) { Fill(rect, color.rgba()); }
  /// The same with the colour as 0xAARRGGBB (a frame's many fills convert their colour once).
  void Fill(const QRectF& rect, QRgb color);

  /// Draws what is queued. Call it before drawing anything else with the painter.
  void Flush();

 private:
  /// Prepares writing into the painter's image (sets pixels_) where the painter allows it.
  void PrepareDirectWrites();
  /// Writes `pixel` into the device pixels of [x1, x2) x [y1, y2) (logical coordinates)
  /// inside the clip.
  void WritePixels(int x1, int y1, int x2, int y2, QRgb pixel);

  QPainter& painter_;
  bool batchable_ = false;
  QRgb color_ = 0;
  QVector<QRect> rects_;
  // Direct writes: the image's first byte and bytes per line, the device translation, and the
  // device pixels that may be written (the clip within the image), as [left, right) x [top,
  // bottom).
  uchar* pixels_ = nullptr;
  qsizetype bytes_per_line_ = 0;
  int offset_x_ = 0;
  int offset_y_ = 0;
  int writable_left_ = 0;
  int writable_top_ = 0;
  int writable_right_ = 0;
  int writable_bottom_ = 0;
};

}  // namespace napiscope::gui
