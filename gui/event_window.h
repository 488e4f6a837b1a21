// The rows of the event list a table shows at once: a window of about a screenful over the
// whole list (an EventListModel of up to 2^31 rows). Qt's item views keep geometry per row
// (a QHeaderView keeps one section per row, 8 bytes each, and lays them all out when a model
// is set: 160 MB and a second for 20M events); over a window they keep it for its rows only.
// The panel moves the window with its own scroll bar that spans the whole list.
#pragma once

#include <QAbstractTableModel>

namespace napiscope::gui {

class EventListModel;

/// Rows [first, first + count) of an EventListModel, as a table model of `count` rows.
class EventWindowModel : public QAbstractTableModel {
  Q_OBJECT

 public:
  explicit EventWindowModel(const EventListModel* source, QObject* parent = nullptr);

  /// Shows `count` rows of the list from `first`, both clamped to the list's rows. Moving a
  /// window of the same size only reports its data changed (no reset, the view's geometry is
  /// kept); another size resets the model.
  void SetWindow(int first, int count);

  /// The list row shown in row 0, and the rows shown.
  int first() const { return first_; }
  int count() const { return count_; }

  /// List row of window row `row`.
  int ListRow(int row) const { return first_ + row; }

  int rowCount(const QModelIndex& parent = {}) const override;
  int columnCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role) const override;
  QVariant headerData(int section, Qt::Orientation orientation, int role) const override;

 private:
  const EventListModel* source_;
  int first_ = 0;
  int count_ = 0;
};

}  // namespace napiscope::gui
