#include "main_window.h"

#include <QFileDialog>
#include <QFontDatabase>
#include <QMenuBar>
#include <QMessageBox>
#include <QPlainTextEdit>

#include "napiscope/info_report.h"
#include "napiscope/loader.h"
#include "napiscope/trace_summary.h"

namespace napiscope::gui {

MainWindow::MainWindow(QWidget* parent) : QMainWindow(parent) {
  setWindowTitle("napiscope");
  summary_view_ = new QPlainTextEdit(this);
  summary_view_->setReadOnly(true);
  summary_view_->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
  summary_view_->setPlainText("Open a trace.dat or ftrace text file with File > Open.");
  setCentralWidget(summary_view_);
  QMenu* file = menuBar()->addMenu("&File");
  file->addAction("&Open...", QKeySequence::Open, this, &MainWindow::ChooseAndOpen);
  file->addAction("&Quit", QKeySequence::Quit, this, &QWidget::close);
  resize(1000, 700);
}

void MainWindow::ChooseAndOpen() {
  QString path = QFileDialog::getOpenFileName(this, "Open trace", QString(),
                                              "Traces (*.dat *.txt *.trace);;All files (*)");
  if (!path.isEmpty()) OpenTrace(path);
}

bool MainWindow::OpenTrace(const QString& path) {
  TraceContext context;
  TraceSummaryBuilder summary;
  absl::Status status = LoadTrace(path.toStdString(), context, summary);
  if (!status.ok()) {
    last_error_ = QString::fromStdString(std::string(status.message()));
    if (show_error_dialogs_) QMessageBox::critical(this, "napiscope", last_error_);
    return false;
  }
  last_error_.clear();
  summary_view_->setPlainText(QString::fromStdString(InfoToText(summary.Finish(context))));
  setWindowTitle(QString("napiscope - %1").arg(path));
  return true;
}

QString MainWindow::SummaryText() const { return summary_view_->toPlainText(); }

}  // namespace napiscope::gui
