#include "Options.h"

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <propimpact/scenes/Solvers.h>

#include "SceneCatalog.h"

namespace propimpact::viewer {
namespace {

std::vector<std::string> stockSolverNames() {
  std::vector<std::string> names;
  for (const std::string& name : scenes::solverNames())
    if (name != "propagative") names.push_back(name);
  return names;
}

void addSceneOptions(CLI::App& app, ViewerOptions& o) {
  std::vector<std::string> names;
  for (const SceneInfo& info : sceneCatalog()) names.push_back(info.name);
  app.add_option("--scene", o.scene, "scene of the shared scene library (see --list-scenes)")
      ->check(CLI::IsMember(names))
      ->capture_default_str();
  app.add_option("--world", o.worldFile, ".bullet file to show instead of a scene (with its stored velocities)")
      ->check(CLI::ExistingFile);
  app.add_option("--stock", o.stockSolver, "stock Bullet solver on the left")
      ->check(CLI::IsMember(stockSolverNames()))
      ->capture_default_str();
  app.add_option("--ordering", o.ordering, "propagative ordering policy")
      ->check(CLI::IsMember(orderingNames()))
      ->capture_default_str();
  app.add_option("--cor", o.cor, "combined restitution of every contact (default: the scene's or the file's)")
      ->check(CLI::Range(0.0, 1.0));
  app.add_option("--hz", o.hz, "substeps per simulated second")->check(CLI::Range(10.0, 10000.0))->capture_default_str();
  app.add_option("--slow", o.slowMotion, "slow motion: simulated seconds per shown second")
      ->check(CLI::Range(0.001, 10.0))
      ->capture_default_str();
  app.add_flag("--pause-on-impact", o.pauseOnImpact, "stop after a substep in which the propagative solver resolved an impact");
}

void addCaptureOptions(CLI::App& app, ViewerOptions& o) {
  app.add_option("--width", o.width, "window width (pixels)")->check(CLI::Range(320, 8192))->capture_default_str();
  app.add_option("--height", o.height, "window height (pixels)")->check(CLI::Range(200, 8192))->capture_default_str();
  app.add_option("--frames", o.frames, "run this many frames (1/60 s each, times --slow), then exit")
      ->check(CLI::PositiveNumber);
  app.add_option("--screenshot", o.screenshot, "write the last frame to this PNG file (with --frames)");
  app.add_option("--record", o.recordDir, "write every k-th frame to DIR/frame-NNNNN.png");
  app.add_option("--record-every", o.recordEvery, "k of --record")->check(CLI::PositiveNumber)->capture_default_str();
  app.add_option("--probe", o.probeFile, "write the projected body centres of the last frame (for tests)");
  app.add_flag("--no-ui", o.hideUi, "hide the panels (the 3-D views fill the window)");
  app.add_flag("--hidden", o.hidden, "no visible window (implied by --frames)");
}

}  // namespace

int parseOptions(int argc, char** argv, ViewerOptions& options) {
  CLI::App app{
      "propimpact-viewer: one scene under stock Bullet (left) and the propagative impact solver (right), "
      "stepped in lock-step. Mouse: right-drag orbits, middle-drag pans, wheel zooms, left click shoots a ball. "
      "Keys: space pauses, N steps one substep, R resets. Headless: xvfb-run -a propimpact-viewer --frames N "
      "--screenshot out.png"};
  bool listScenes = false;
  app.add_flag("--list-scenes", listScenes, "print the scene names and exit");
  addSceneOptions(app, options);
  addCaptureOptions(app, options);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& error) {
    return app.exit(error);
  }
  if (listScenes) {
    for (const SceneInfo& info : sceneCatalog()) fmt::print("{:16} {}\n", info.name, info.description);
    return 0;
  }
  if ((!options.screenshot.empty() || !options.probeFile.empty()) && options.frames <= 0) {
    fmt::print(stderr, "propimpact-viewer: --screenshot and --probe need --frames N\n");
    return 2;
  }
  if (options.frames > 0) options.hidden = true;
  return -1;
}

}  // namespace propimpact::viewer
