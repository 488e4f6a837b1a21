#include "screenshot.h"

#include <QApplication>
#include <QPixmap>

#include "charts_panel.h"
#include "main_window.h"
#include "timeline_view.h"

namespace napiscope::gui {

bool RenderWindow(MainWindow& window, const GuiOptions& options, QImage* image, QString* error) {
  const LoadedTrace* trace = window.trace();
  if (trace == nullptr) {
    *error = "no trace loaded";
    return false;
  }
  window.resize(options.size);
  window.show();
  QApplication::processEvents();
  window.FitTimelineHeight();
  if (!window.ApplyViewOptions(options, error)) return false;
  window.charts()->Refresh();  // now, not after the debounce: the picture is taken next
  window.charts()->WaitForRefresh();
  QApplication::processEvents();
  *image = window.grab().toImage();
  return true;
}

bool SaveScreenshot(const GuiOptions& options, QString* error) {
  MainWindow window;
  window.SetShowErrorDialogs(false);
  window.resize(options.size);
  if (!window.OpenTraceAndWait(options.file, options.buffer)) {
    *error = window.LastError();
    return false;
  }
  QImage image;
  if (!RenderWindow(window, options, &image, error)) return false;
  if (!image.save(options.screenshot, "PNG")) {
    *error = QString("%1: cannot write the PNG").arg(options.screenshot);
    return false;
  }
  return true;
}

}  // namespace napiscope::gui
