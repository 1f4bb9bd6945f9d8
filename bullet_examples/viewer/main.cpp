// propimpact-viewer: one scene under stock Bullet and the propagative solver,
// side by side. The command line is read before any window is opened, so that
// --help works without a display and a missing display is one clear line.
#include <fmt/format.h>

#include <cstdio>
#include <exception>

#include "Options.h"
#include "ViewerApp.h"
#include "Window.h"

int main(int argc, char** argv) {
  propimpact::viewer::ViewerOptions options;
  if (const int handled = propimpact::viewer::parseOptions(argc, argv, options); handled >= 0) return handled;
  try {
    return propimpact::viewer::runViewer(options);
  } catch (const propimpact::viewer::DisplayError& error) {
    fmt::print(stderr, "propimpact-viewer: {}\n", error.what());
    return 3;
  } catch (const std::exception& error) {
    fmt::print(stderr, "propimpact-viewer: {}\n", error.what());
    return 1;
  }
}
