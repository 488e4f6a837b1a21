// The hostile-input suite in the GUI (docs/robustness.md): a broken file ends in the error
// dialog with the CLI's one line, a usable one opens.
#include <QApplication>
#include <QMessageBox>
#include <QTemporaryDir>
#include <QTimer>

#include <gtest/gtest.h>

#include "main_window.h"
#include "support/hostile_files.h"
#include "support/test_support.h"

namespace napiscope::gui {
namespace {

TEST(HostileFiles, EachOpensOrEndsInOneLineNamingTheFile) {
  QTemporaryDir dir;
  for (const testing::HostileFile& file : testing::MakeHostileFiles(dir.path().toStdString())) {
    SCOPED_TRACE(file.name);
    MainWindow window;
    window.SetShowErrorDialogs(false);
    QString path = QString::fromStdString(file.path);
    bool opened = window.OpenTraceAndWait(path);
    EXPECT_EQ(opened, file.usable) << window.LastError().toStdString();
    if (!file.usable) {
      EXPECT_TRUE(window.LastError().startsWith(path + ": ")) << window.LastError().toStdString();
      EXPECT_TRUE(window.LastError().contains(QString::fromStdString(file.expect)));
      EXPECT_FALSE(window.LastError().contains('\n'));
      EXPECT_EQ(window.trace(), nullptr);
    }
  }
}

TEST(HostileFiles, ABrokenFileShowsTheErrorDialog) {
  QTemporaryDir dir;
  std::string broken = dir.filePath("truncated.dat").toStdString();
  std::string trace = testing::SmallTraceDat();
  testing::WriteFile(broken, trace.substr(0, trace.size() / 2));
  MainWindow window;  // error dialogs on, as for users
  QString dialog_text;
  // The dialog is modal: close it from a timer running in its event loop.
  QTimer closer;
  closer.setInterval(10);
  QObject::connect(&closer, &QTimer::timeout, [&] {
    if (auto* box = qobject_cast<QMessageBox*>(QApplication::activeModalWidget())) {
      dialog_text = box->text();
      box->accept();
    }
  });
  closer.start();
  EXPECT_FALSE(window.OpenTraceAndWait(QString::fromStdString(broken)));
  EXPECT_FALSE(dialog_text.isEmpty()) << "no error dialog";
  EXPECT_EQ(dialog_text, window.LastError());
  EXPECT_TRUE(dialog_text.startsWith(QString::fromStdString(broken) + ": truncated trace.dat"))
      << dialog_text.toStdString();
}

}  // namespace
}  // namespace napiscope::gui
