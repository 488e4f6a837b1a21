// --screenshot: load a trace, show a range, render the whole window to a PNG.
#pragma once

#include <QImage>
#include <QString>

#include "command_line.h"

namespace napiscope::gui {

class MainWindow;

/// Renders `window` (already loaded) at `options.size` with `options.range` to an image.
bool RenderWindow(MainWindow& window, const GuiOptions& options, QImage* image, QString* error);

/// Loads options.file, renders the window and saves options.screenshot; `error` says why not.
bool SaveScreenshot(const GuiOptions& options, QString* error);

}  // namespace napiscope::gui
