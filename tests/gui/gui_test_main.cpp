// GoogleTest main for the GUI tests: one QApplication for all tests, offscreen unless the
// environment chose a platform, settings in a directory of this process's own (ctest runs the
// tests as parallel processes; shared settings let one test's recent files reach another).
#include <gtest/gtest.h>
#include <QApplication>
#include <QSettings>
#include <QStandardPaths>
#include <QTemporaryDir>

int main(int argc, char** argv) {
  if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM")) qputenv("QT_QPA_PLATFORM", "offscreen");
  QStandardPaths::setTestModeEnabled(true);
  QApplication app(argc, argv);
  QApplication::setOrganizationName("napiscope-tests");
  QApplication::setApplicationName("napiscope-gui-tests");
  QTemporaryDir settings_dir;
  if (!settings_dir.isValid()) return 1;
  QSettings::setPath(QSettings::NativeFormat, QSettings::UserScope, settings_dir.path());
  QSettings::setPath(QSettings::IniFormat, QSettings::UserScope, settings_dir.path());
  ::testing::InitGoogleTest(&argc, argv);
  return RUN_ALL_TESTS();
}
