#include "legend_widget.h"

#include <QPainter>

#include "palette.h"

namespace napiscope::gui {
namespace {

constexpr int kSwatch = 11;
constexpr int kSpacing = 12;
constexpr int kMargin = 4;

}  // namespace

LegendWidget::LegendWidget(QWidget* parent) : QWidget(parent) {
  QSizePolicy policy(QSizePolicy::Preferred, QSizePolicy::Fixed);
  policy.setHeightForWidth(true);
  setSizePolicy(policy);
}

void LegendWidget::SetTaskClasses(const std::vector<TaskClass>& task_classes) {
  groups_ = palette::Legend(task_classes);
  updateGeometry();
  update();
}

int LegendWidget::heightForWidth(int width) const { return Layout(width, nullptr); }

QSize LegendWidget::sizeHint() const { return QSize(900, Layout(900, nullptr)); }

void LegendWidget::paintEvent(QPaintEvent*) {
  QPainter painter(this);
  Layout(width(), &painter);
}

int LegendWidget::Layout(int width, QPainter* painter) const {
  QFontMetrics metrics(font());
  QFont bold = font();
  bold.setBold(true);
  QFontMetrics bold_metrics(bold);
  int line = std::max(metrics.height(), kSwatch) + 4;
  int x = kMargin;
  int y = kMargin;
  // Items never split from their swatch; a group title stays with its first item.
  auto place = [&](int item_width) {
    if (x + item_width > width - kMargin && x > kMargin) {
      x = kMargin;
      y += line;
    }
  };
  for (const LegendGroup& group : groups_) {
    if (!group.title.isEmpty()) {
      int title_width = bold_metrics.horizontalAdvance(group.title + ":") + 6;
      int first = group.entries.empty()
                      ? 0
                      : kSwatch + 4 + metrics.horizontalAdvance(group.entries[0].label);
      place(title_width + first);
      if (painter != nullptr) {
        painter->setFont(bold);
        painter->setPen(palette::Text());
        painter->drawText(QRect(x, y, title_width, line), Qt::AlignVCenter | Qt::AlignLeft,
                          group.title + ":");
        painter->setFont(font());
      }
      x += title_width;
    }
    for (const LegendEntry& entry : group.entries) {
      int item_width = kSwatch + 4 + metrics.horizontalAdvance(entry.label);
      place(item_width);
      if (painter != nullptr) {
        int swatch_height = entry.thin ? 4 : kSwatch;
        QRect swatch(x, y + (line - swatch_height) / 2, kSwatch, swatch_height);
        painter->fillRect(swatch, entry.color);
        if (entry.hatched) painter->fillRect(swatch, QBrush(palette::GapHatch(), Qt::BDiagPattern));
        if (!entry.thin) {
          painter->setPen(entry.color.darker(150));
          painter->drawRect(swatch.adjusted(0, 0, -1, -1));
        }
        painter->setPen(palette::Text());
        painter->drawText(QRect(x + kSwatch + 4, y, item_width, line),
                          Qt::AlignVCenter | Qt::AlignLeft, entry.label);
      }
      x += item_width + 8;
    }
    x += kSpacing;
  }
  return y + line + kMargin;
}

}  // namespace napiscope::gui
