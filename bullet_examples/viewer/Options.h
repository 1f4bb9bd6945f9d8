#pragma once
/// \file Options.h
/// What the command line asks of the viewer. Parsed before any window
/// exists, so that --help and --list-scenes work without a display.

#include <string>

namespace propimpact::viewer {

/// Every setting the command line can give.
struct ViewerOptions {
  std::string scene = "hanging-cradle";  ///< a SceneCatalog name (ignored when worldFile is set).
  std::string worldFile;                 ///< a .bullet file to show instead of a scene.
  std::string stockSolver = "bullet-si"; ///< the left world's solver (a scenes::solverNames() entry).
  std::string ordering = "most-approaching";  ///< the propagative solver's ordering policy.
  double cor = -1;                       ///< combined restitution; < 0 keeps the scene's or the file's.
  double hz = 240;                       ///< substeps per simulated second.
  double slowMotion = 1;                 ///< simulated seconds per displayed second (1/60 s per frame).
  bool pauseOnImpact = false;            ///< stop stepping after a substep with an impact.
  int width = 1280, height = 720;        ///< window size in pixels.
  int frames = 0;                        ///< > 0: run this many frames, then exit.
  std::string screenshot;                ///< PNG written after the last frame.
  std::string recordDir;                 ///< PNG of every recordEvery-th frame written here.
  int recordEvery = 1;                   ///< k of --record.
  std::string probeFile;                 ///< projected body centres of the last frame (for tests).
  bool hideUi = false;                   ///< no panels (labels and titles stay).
  bool hidden = false;                   ///< no visible window (capture only); implied by --frames.
};

/// Parses argv into \p options. Returns −1 to go on, or the exit code when
/// the command line was handled (help, list, error).
[[nodiscard]] int parseOptions(int argc, char** argv, ViewerOptions& options);

}  // namespace propimpact::viewer
