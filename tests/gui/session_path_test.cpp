// Issue 66: a session saved as "sess1" could not be reopened from File > Open session, whose
// filter lists *.json: a name chosen without an extension is saved with ".json".
#include <QDir>
#include <QFileInfo>
#include <QTemporaryDir>

#include <gtest/gtest.h>

#include "session.h"

namespace napiscope::gui {
namespace {

TEST(SessionPath, ANameWithoutAnExtensionIsSavedAsJsonAndListedByTheOpenFilter) {
  EXPECT_EQ(SessionPathWithSuffix("/tmp/sess1"), "/tmp/sess1.json");
  EXPECT_EQ(SessionPathWithSuffix("/tmp/a.dir/sess1"), "/tmp/a.dir/sess1.json");
  EXPECT_EQ(SessionPathWithSuffix("/tmp/sess1.json"), "/tmp/sess1.json");
  EXPECT_EQ(SessionPathWithSuffix("/tmp/sess1.session"), "/tmp/sess1.session");  // chosen
  EXPECT_EQ(SessionPathWithSuffix(""), "");  // the dialog cancelled

  QTemporaryDir dir;
  ASSERT_TRUE(dir.isValid());
  SessionState session;
  session.trace_path = dir.filePath("trace.dat");
  session.from_ns = 1'000;
  session.to_ns = 2'000;
  QString saved = SessionPathWithSuffix(dir.filePath("sess1"));
  QString error;
  ASSERT_TRUE(WriteSessionFile(saved, session, &error)) << error.toStdString();
  // What File > Open session's "napiscope sessions (*.json)" lists in that folder.
  QStringList listed = QDir(dir.path()).entryList({"*.json"}, QDir::Files);
  ASSERT_EQ(listed, QStringList{"sess1.json"});
  SessionState read;
  ASSERT_TRUE(ReadSessionFile(dir.filePath(listed[0]), &read, &error)) << error.toStdString();
  EXPECT_EQ(read.from_ns, 1'000);
  EXPECT_EQ(read.to_ns, 2'000);
}

}  // namespace
}  // namespace napiscope::gui
