#include "event_window.h"

#include <algorithm>

#include "event_list.h"

namespace napiscope::gui {

EventWindowModel::EventWindowModel(const EventListModel* source, QObject* parent)
    : QAbstractTableModel(parent), source_(source) {}

void EventWindowModel::SetWindow(int first, int count) {
  int rows = source_->rowCount();
  first = std::clamp(first, 0, std::max(rows - 1, 0));
  count = std::clamp(count, 0, rows - first);
  if (count == count_) {
    first_ = first;
    if (count_ > 0) emit dataChanged(index(0, 0), index(count_ - 1, columnCount() - 1));
    return;
  }
  beginResetModel();
  first_ = first;
  count_ = count;
  endResetModel();
}

int EventWindowModel::rowCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : count_;
}

int EventWindowModel::columnCount(const QModelIndex& parent) const {
  return source_->columnCount(parent);
}

QVariant EventWindowModel::data(const QModelIndex& index, int role) const {
  if (!index.isValid() || index.row() >= count_) return {};
  int row = first_ + index.row();
  if (row >= source_->rowCount()) return {};  // the list was reset before the window
  return source_->data(source_->index(row, index.column()), role);
}

QVariant EventWindowModel::headerData(int section, Qt::Orientation orientation, int role) const {
  return source_->headerData(section, orientation, role);
}

}  // namespace napiscope::gui
