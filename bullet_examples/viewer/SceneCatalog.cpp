#include "SceneCatalog.h"

#include <propimpact/scenes/Scenes.h>

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace propimpact::viewer {
namespace {

/// Free flight before the first contact of the scenes placed for it: long
/// enough to see the bodies move, short enough not to wait.
constexpr double kApproachSeconds = 0.5;

constexpr OrderingPolicy kPolicies[] = {OrderingPolicy::MostApproaching, OrderingPolicy::LeastApproaching,
                                         OrderingPolicy::IndexOrder, OrderingPolicy::ReverseIndexOrder,
                                         OrderingPolicy::SeededRandom};

int approachSteps(double dt) { return std::max(1, int(std::lround(kApproachSeconds / dt))); }

BuiltScene buildLines(const std::string& name, scenes::World& world, double dt) {
  if (name == "cradle") {
    scenes::CradleLine s;
    s.count = 5;
    s.incoming = 1;
    s.dt = dt;
    s.preSteps = approachSteps(dt);
    (void)scenes::build(world, s);
    return {s.cor};
  }
  if (name == "chain") {
    scenes::Chain s;
    s.dt = dt;
    (void)scenes::build(world, s);
    return {s.cor};
  }
  scenes::BilliardsBreak s;
  s.dt = dt;
  s.preSteps = approachSteps(dt);
  (void)scenes::build(world, s);
  return {s.cor};
}

BuiltScene buildOthers(const std::string& name, scenes::World& world) {
  if (name == "hanging-cradle") {
    scenes::HangingCradle s;
    (void)scenes::build(world, s);
    return {s.cor};
  }
  if (name == "bounce") {
    scenes::BouncingBall s;
    s.height = 3;
    (void)scenes::build(world, s);
    // The ball alone at the start would fill the view and then fall out of it: frame the drop.
    return {s.cor, true, btVector3(-2, 0, -1), btVector3(2, btScalar(s.height + 2 * s.radius), 1)};
  }
  if (name == "pile") {
    scenes::Pile s;
    (void)scenes::build(world, s);
    return {s.cor};
  }
  if (name == "box-stack") {
    scenes::BoxStack s;
    (void)scenes::build(world, s);
    return {s.cor};
  }
  scenes::Gas s;
  s.count = 27;
  s.radius = 0.4;
  (void)scenes::build(world, s);
  return {s.cor};
}

}  // namespace

const std::vector<SceneInfo>& sceneCatalog() {
  static const std::vector<SceneInfo> catalog = {
      {"hanging-cradle", "Newton's cradle: five pendulums, the first released from 0.5 rad"},
      {"cradle", "five balls on a line in zero gravity, one hits the four at rest"},
      {"chain", "a striker hits a chain of ten touching balls"},
      {"billiards", "billiard break: the cue ball hits two balls at once (plane)"},
      {"bounce", "a ball dropped from 3 m onto a floor"},
      {"pile", "100 spheres dropped into a box (COR 0.5)"},
      {"box-stack", "ten boxes stacked on a floor"},
      {"gas", "27 spheres flying in a closed box, zero gravity, COR 1"},
  };
  return catalog;
}

BuiltScene buildScene(const std::string& name, scenes::World& world, double dt) {
  if (name == "cradle" || name == "chain" || name == "billiards") return buildLines(name, world, dt);
  if (name == "hanging-cradle" || name == "bounce" || name == "pile" || name == "box-stack" || name == "gas")
    return buildOthers(name, world);
  throw std::invalid_argument("unknown scene '" + name + "'");
}

const std::vector<std::string>& orderingNames() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> out;
    for (const OrderingPolicy policy : kPolicies) out.emplace_back(toString(policy));
    return out;
  }();
  return names;
}

OrderingPolicy orderingFromName(const std::string& name) {
  for (const OrderingPolicy policy : kPolicies)
    if (name == toString(policy)) return policy;
  throw std::invalid_argument("unknown ordering policy '" + name + "'");
}

}  // namespace propimpact::viewer
