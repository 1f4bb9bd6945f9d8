// `export`: a scene of the shared library written as a .bullet file, so that
// `world` (or anyone's Bullet) can replay it with its velocities.
#include <fmt/format.h>

#include <algorithm>
#include <stdexcept>

#include <propimpact/scenes/Scenes.h>

#include "Studies.h"
#include <propimpact/scenes/WorldFile.h>

namespace propimpact::compare {
namespace {

/// Applies the options that are set (count > 0, cor ≥ 0, speed > 0) to a scene field.
template <class T>
void setIf(bool given, T& field, T value) {
  if (given) field = value;
}

std::string buildCradles(scenes::World& world, const ExportOptions& o) {
  if (o.scene == "cradle") {
    scenes::CradleLine s;
    setIf(o.count > 0, s.count, o.count);
    setIf(o.cor >= 0, s.cor, o.cor);
    setIf(o.speed > 0, s.v0, o.speed);
    s.dt = 1.0 / o.hz;
    s.phase = o.phase;
    (void)scenes::build(world, s);
    return fmt::format("line cradle: {} balls, v0 {} m/s, COR {}, placed for {} Hz phase {}", s.count, s.v0, s.cor,
                       o.hz, s.phase);
  }
  if (o.scene == "hanging-cradle") {
    scenes::HangingCradle s;
    setIf(o.count > 0, s.count, o.count);
    setIf(o.cor >= 0, s.cor, o.cor);
    (void)scenes::build(world, s);
    return fmt::format("hanging cradle: {} pendulums, release {} rad, COR {}", s.count, s.releaseAngle, s.cor);
  }
  scenes::Chain s;
  setIf(o.count > 0, s.count, o.count);
  setIf(o.cor >= 0, s.cor, o.cor);
  setIf(o.speed > 0, s.v0, o.speed);
  s.dt = 1.0 / o.hz;
  s.phase = o.phase;
  (void)scenes::build(world, s);
  return fmt::format("chain: {} resting balls and a striker at {} m/s, COR {}", s.count, s.v0, s.cor);
}

std::string buildOthers(scenes::World& world, const ExportOptions& o) {
  if (o.scene == "bounce") {
    scenes::BouncingBall s;
    setIf(o.cor >= 0, s.cor, o.cor);
    (void)scenes::build(world, s);
    return fmt::format("bouncing ball: dropped from {} m, COR {}", s.height, s.cor);
  }
  if (o.scene == "billiards") {
    scenes::BilliardsBreak s;
    setIf(o.cor >= 0, s.cor, o.cor);
    setIf(o.speed > 0, s.speed, o.speed);
    s.dt = 1.0 / o.hz;
    s.phase = o.phase;
    (void)scenes::build(world, s);
    return fmt::format("billiard break: theta {} rad, cue {} m/s, COR {}", s.theta, s.speed, s.cor);
  }
  if (o.scene == "pile") {
    scenes::Pile s;
    setIf(o.count > 0, s.count, o.count);
    setIf(o.cor >= 0, s.cor, o.cor);
    s.seed = o.seed;
    (void)scenes::build(world, s);
    return fmt::format("pile: {} spheres dropped in a box, COR {}", s.count, s.cor);
  }
  if (o.scene == "box-stack") {
    scenes::BoxStack s;
    setIf(o.count > 0, s.count, o.count);
    setIf(o.cor >= 0, s.cor, o.cor);
    (void)scenes::build(world, s);
    return fmt::format("box stack: {} boxes, COR {}", s.count, s.cor);
  }
  scenes::Gas s;
  setIf(o.count > 0, s.count, o.count);
  setIf(o.cor >= 0, s.cor, o.cor);
  setIf(o.speed > 0, s.speed, o.speed);
  s.seed = o.seed;
  (void)scenes::build(world, s);
  return fmt::format("gas: {} spheres at {} m/s in a closed box, zero gravity, COR {}", s.count, s.speed, s.cor);
}

}  // namespace

const std::vector<std::string>& exportSceneNames() {
  static const std::vector<std::string> names = {"cradle",    "hanging-cradle", "chain",     "bounce",
                                                 "billiards", "pile",           "box-stack", "gas"};
  return names;
}

std::string exportScene(const ExportOptions& options) {
  if (!(options.hz > 0) || !(options.phase > 0 && options.phase <= 1))
    throw std::invalid_argument("export: need --hz > 0 and --phase in (0, 1]");
  const auto& names = exportSceneNames();
  if (std::find(names.begin(), names.end(), options.scene) == names.end())
    throw std::invalid_argument("export: unknown scene '" + options.scene + "'");
  scenes::World world("bullet-si");
  const bool cradleLike = options.scene == "cradle" || options.scene == "hanging-cradle" || options.scene == "chain";
  const std::string what = cradleLike ? buildCradles(world, options) : buildOthers(world, options);
  scenes::writeWorldFile(world.dynamics(), options.output);
  return what;
}

}  // namespace propimpact::compare
