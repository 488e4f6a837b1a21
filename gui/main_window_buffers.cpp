// MainWindow: the choice of a trace's buffer instance (trace-cmd record -B), in File > Buffer
// and, when a load fails for want of it, in a dialog.
#include <QActionGroup>
#include <QInputDialog>
#include <QLabel>
#include <QMenu>

#include "main_window.h"

namespace napiscope::gui {

void MainWindow::ShowLoadError(const QString& message, const QStringList& buffers) {
  if (buffers.isEmpty()) {
    ShowError(message);
    return;
  }
  QString path = loading_path_;
  GuiOptions options = pending_options_;
  RebuildBufferMenu(path, buffers, QString());
  SetLoading(false);
  last_error_ = message;
  status_->setText(message + " (File > Buffer)");
  if (!show_error_dialogs_) return;
  bool chosen = false;
  QString buffer =
      QInputDialog::getItem(this, "napiscope", message + "\n\nWhich buffer instance to read?",
                            buffers, 0, false, &chosen);
  if (!chosen) return;
  options.buffer = buffer;
  OpenTrace(path, options);
}

void MainWindow::OfferBuffersOf(const LoadedTrace& trace) {
  const TraceMeta& meta = trace.context.meta;
  QStringList buffers;
  if (!meta.buffer.empty() || !meta.buffer_instances.empty()) {
    for (const std::string& name : meta.buffer_instances) {
      buffers.append(QString::fromStdString(name));
    }
    if (!meta.buffer.empty()) buffers.append(QString::fromStdString(meta.buffer));
    buffers.sort();
    buffers.prepend(QString());  // the top buffer
  }
  RebuildBufferMenu(QString::fromStdString(trace.path), buffers,
                    QString::fromStdString(meta.buffer));
}

void MainWindow::RebuildBufferMenu(const QString& path, const QStringList& buffers,
                                   const QString& current) {
  buffer_menu_->clear();
  auto* group = new QActionGroup(buffer_menu_);
  for (const QString& buffer : buffers) {
    QAction* action = buffer_menu_->addAction(buffer.isEmpty() ? "Top buffer" : buffer);
    action->setCheckable(true);
    action->setChecked(buffer == current && trace_ && trace_->path == path.toStdString());
    action->setData(buffer);
    group->addAction(action);
    connect(action, &QAction::triggered, this, [this, path, buffer] {
      GuiOptions options;
      options.buffer = buffer;
      OpenTrace(path, options);
    });
  }
  buffer_menu_->setEnabled(!buffers.isEmpty());
}

}  // namespace napiscope::gui
