#include "propimpact/scenes/Scenes.h"

#include <BulletDynamics/ConstraintSolver/btPoint2PointConstraint.h>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <stdexcept>

namespace propimpact::scenes {
namespace {

constexpr double kPi = 3.14159265358979323846;
constexpr double kGravity = 9.81;

/// splitmix64: a tiny portable generator, so scenes are identical on every
/// standard library (std::uniform_*_distribution is implementation-defined).
std::uint64_t splitmix(std::uint64_t& state) {
  std::uint64_t z = (state += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30U)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27U)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31U);
}

/// Uniform in [0, 1).
double uniform(std::uint64_t& state) { return double(splitmix(state) >> 11U) * 0x1.0p-53; }

BodySpec ball(double mass, const btVector3& position, double cor) {
  BodySpec spec;
  spec.mass = btScalar(mass);
  spec.position = position;
  spec.restitution = bodyRestitution(cor);
  spec.friction = 0;
  return spec;
}

/// A static box whose top face is y = 0.
btRigidBody* addFloor(World& world, double halfX, double halfZ, double cor, double friction) {
  BodySpec floor;
  floor.mass = 0;
  floor.position = btVector3(0, -1, 0);
  floor.restitution = bodyRestitution(cor);
  floor.friction = btScalar(friction);
  return world.addBox(btVector3(btScalar(halfX), 1, btScalar(halfZ)), floor);
}

void require(bool condition, const char* what) {
  if (!condition) throw std::invalid_argument(what);
}

}  // namespace

btScalar bodyRestitution(double cor) { return btScalar(std::sqrt(std::clamp(cor, 0.0, 1.0))); }

SceneBodies build(World& world, const CradleLine& scene) {
  require(scene.count >= 2 && scene.incoming >= 1 && scene.incoming < scene.count, "CradleLine: bad ball counts");
  require(scene.v0 > 0 && scene.dt > 0 && scene.radius > 0 && scene.mass > 0, "CradleLine: non-positive parameter");
  require(scene.phase > 0 && scene.phase <= 1 && scene.preSteps >= 0, "CradleLine: phase must be in (0, 1]");
  world.setGravity(btVector3(0, 0, 0));
  const double diameter = 2 * scene.radius;
  const double gap = (scene.preSteps - scene.phase) * scene.v0 * scene.dt;
  SceneBodies out;
  for (int i = 0; i < scene.count; ++i) {
    const bool moving = i < scene.incoming;
    const double x = moving ? -(scene.incoming - i) * diameter - gap : (i - scene.incoming) * diameter;
    BodySpec spec = ball(scene.mass, btVector3(btScalar(x), 0, 0), scene.cor);
    if (moving) spec.linearVelocity = btVector3(btScalar(scene.v0), 0, 0);
    out.bodies.push_back(world.addSphere(btScalar(scene.radius), spec));
  }
  out.firstContactStep = scene.preSteps + 1;
  return out;
}

SceneBodies build(World& world, const HangingCradle& scene) {
  require(scene.count >= 1 && scene.radius > 0 && scene.mass > 0 && scene.length > scene.radius,
          "HangingCradle: bad parameter");
  world.setGravity(btVector3(0, btScalar(-kGravity), 0));
  SceneBodies out;
  const double pitch = 2 * scene.radius + scene.spacing;
  for (int i = 0; i < scene.count; ++i) {
    const btVector3 anchor = scene.origin + btVector3(btScalar(i * pitch), btScalar(scene.length), 0);
    const double angle = i == 0 ? scene.releaseAngle : 0.0;
    const btVector3 position = anchor + btVector3(btScalar(-scene.length * std::sin(angle)),
                                                  btScalar(-scene.length * std::cos(angle)), 0);
    btRigidBody* body = world.addSphere(btScalar(scene.radius), ball(scene.mass, position, scene.cor));
    world.addConstraint(std::make_unique<btPoint2PointConstraint>(*body, anchor - position));
    out.bodies.push_back(body);
  }
  return out;
}

SceneBodies build(World& world, const BouncingBall& scene) {
  require(scene.radius > 0 && scene.mass > 0 && scene.height >= 0, "BouncingBall: bad parameter");
  world.setGravity(btVector3(0, btScalar(-kGravity), 0));
  addFloor(world, 20, 20, scene.cor, scene.friction);
  BodySpec spec = ball(scene.mass, btVector3(0, btScalar(scene.radius + scene.height), 0), scene.cor);
  spec.friction = btScalar(scene.friction);
  return SceneBodies{{world.addSphere(btScalar(scene.radius), spec)}, 0};
}

double touchingTheta(const BilliardsBreak& scene) {
  // Law of cosines on the triangle of centres with |ab| = ra + rb.
  const double ac = scene.ra + scene.rc, bc = scene.rb + scene.rc, ab = scene.ra + scene.rb;
  return std::acos(std::clamp((ac * ac + bc * bc - ab * ab) / (2 * ac * bc), -1.0, 1.0));
}

SceneBodies build(World& world, const BilliardsBreak& scene) {
  require(scene.ra > 0 && scene.rb > 0 && scene.rc > 0 && scene.density > 0 && scene.speed > 0 && scene.dt > 0,
          "BilliardsBreak: bad parameter");
  require(scene.theta >= touchingTheta(scene) - 1e-12 && scene.theta <= kPi + 1e-12, "BilliardsBreak: theta out of range");
  world.setGravity(btVector3(0, 0, 0));
  const double half = scene.theta / 2;
  const auto massOf = [&](double r) { return scene.density * 4.0 / 3.0 * kPi * r * r * r; };
  const btVector3 a((scene.ra + scene.rc) * std::cos(half), (scene.ra + scene.rc) * std::sin(half), 0);
  btVector3 b((scene.rb + scene.rc) * std::cos(half), -(scene.rb + scene.rc) * std::sin(half), 0);
  if (scene.theta <= touchingTheta(scene) + 1e-9) {
    // At the touching minimum a and b must touch in Bullet too, whatever the
    // rounding of cos/sin: close their gap to a 1e-9 relative overlap.
    const btVector3 ab = b - a;
    b = a + ab * btScalar((scene.ra + scene.rb) * (1 - 1e-9) / double(ab.length()));
  }
  const btVector3 c(btScalar(-(scene.preSteps - scene.phase) * scene.speed * scene.dt), 0, 0);
  const auto planar = [&](BodySpec spec) {
    spec.linearFactor = btVector3(1, 1, 0);
    spec.angularFactor = btVector3(0, 0, 1);
    return spec;
  };
  btRigidBody* bodyA = nullptr;
  btRigidBody* bodyB = nullptr;
  const auto addA = [&] { bodyA = world.addSphere(btScalar(scene.ra), planar(ball(massOf(scene.ra), a, scene.cor))); };
  const auto addB = [&] { bodyB = world.addSphere(btScalar(scene.rb), planar(ball(massOf(scene.rb), b, scene.cor))); };
  if (scene.bFirst) {
    addB();
    addA();
  } else {
    addA();
    addB();
  }
  BodySpec cue = planar(ball(massOf(scene.rc), c, scene.cor));
  cue.linearVelocity = btVector3(btScalar(scene.speed), 0, 0);
  btRigidBody* bodyC = world.addSphere(btScalar(scene.rc), cue);
  return SceneBodies{{bodyA, bodyB, bodyC}, scene.preSteps + 1};
}

SceneBodies build(World& world, const Pile& scene) {
  require(scene.count >= 0, "Pile: negative count");
  world.setGravity(btVector3(0, btScalar(-kGravity), 0));
  const double half = 6, wallHeight = 10, thickness = 0.5;
  addFloor(world, half, half, scene.cor, 0.5);
  BodySpec wall;
  wall.mass = 0;
  wall.restitution = bodyRestitution(scene.cor);
  for (int side = 0; side < 4; ++side) {
    const double offset = half + thickness;
    const bool alongX = side < 2;
    const double sign = side % 2 == 0 ? 1.0 : -1.0;
    wall.position = alongX ? btVector3(btScalar(sign * offset), btScalar(wallHeight / 2), 0)
                           : btVector3(0, btScalar(wallHeight / 2), btScalar(sign * offset));
    const btVector3 halfExtents = alongX ? btVector3(btScalar(thickness), btScalar(wallHeight / 2), btScalar(half + 2 * thickness))
                                         : btVector3(btScalar(half + 2 * thickness), btScalar(wallHeight / 2), btScalar(thickness));
    world.addBox(halfExtents, wall);
  }
  SceneBodies out;
  std::uint64_t state = scene.seed;
  const int perRow = 10;
  for (int i = 0; i < scene.count; ++i) {
    const int layer = i / (perRow * perRow), inLayer = i % (perRow * perRow);
    const double x = -4.95 + 1.1 * (inLayer % perRow) + 0.05 * (uniform(state) - 0.5);
    const double z = -4.95 + 1.1 * (inLayer / perRow) + 0.05 * (uniform(state) - 0.5);
    const double y = 1.0 + 1.2 * layer;
    BodySpec spec = ball(1.0, btVector3(btScalar(x), btScalar(y), btScalar(z)), scene.cor);
    spec.friction = btScalar(0.5);
    out.bodies.push_back(world.addSphere(btScalar(0.5), spec));
  }
  return out;
}

SceneBodies build(World& world, const Chain& scene) {
  require(scene.count >= 1 && scene.radius > 0 && scene.v0 > 0 && scene.dt > 0, "Chain: bad parameter");
  require(scene.phase > 0 && scene.phase <= 1, "Chain: phase must be in (0, 1]");
  world.setGravity(btVector3(0, 0, 0));
  const int total = scene.count + 1;
  std::vector<int> order(static_cast<std::size_t>(total));
  std::iota(order.begin(), order.end(), 0);
  if (scene.order == Chain::Order::Reverse) std::reverse(order.begin(), order.end());
  if (scene.order == Chain::Order::Shuffled) {
    std::uint64_t state = scene.seed;
    for (std::size_t i = order.size() - 1; i > 0; --i)
      std::swap(order[i], order[static_cast<std::size_t>(splitmix(state) % (i + 1))]);
  }
  const double diameter = 2 * scene.radius;
  const double gap = (1 - scene.phase) * scene.v0 * scene.dt;
  SceneBodies out;
  out.bodies.assign(static_cast<std::size_t>(total), nullptr);
  for (int i : order) {
    const double x = i == 0 ? -diameter - gap : (i - 1) * diameter;
    BodySpec spec = ball(1.0, btVector3(btScalar(x), 0, 0), scene.cor);
    if (i == 0) spec.linearVelocity = btVector3(btScalar(scene.v0), 0, 0);
    out.bodies[static_cast<std::size_t>(i)] = world.addSphere(btScalar(scene.radius), spec);
  }
  out.firstContactStep = 2;
  return out;
}

SceneBodies build(World& world, const BoxStack& scene) {
  require(scene.count >= 0 && scene.halfExtent > 0 && scene.mass > 0, "BoxStack: bad parameter");
  world.setGravity(btVector3(0, btScalar(-kGravity), 0));
  addFloor(world, 20, 20, scene.cor, scene.friction);
  SceneBodies out;
  const btScalar h = btScalar(scene.halfExtent);
  for (int i = 0; i < scene.count; ++i) {
    BodySpec spec;
    spec.mass = btScalar(scene.mass);
    spec.position = btVector3(0, h + 2 * h * btScalar(i), 0);
    spec.restitution = bodyRestitution(scene.cor);
    spec.friction = btScalar(scene.friction);
    out.bodies.push_back(world.addBox(btVector3(h, h, h), spec));
  }
  return out;
}

SceneBodies build(World& world, const Gas& scene) {
  require(scene.count >= 0 && scene.radius > 0 && scene.mass > 0 && scene.halfSize > 0 && scene.speed >= 0,
          "Gas: bad parameter");
  int perAxis = 1;
  while (perAxis * perAxis * perAxis < scene.count) ++perAxis;
  const double spacing = 2 * scene.halfSize / perAxis;
  require(spacing > 2 * scene.radius, "Gas: spheres do not fit the box");
  world.setGravity(btVector3(0, 0, 0));
  BodySpec wall;
  wall.mass = 0;
  wall.restitution = bodyRestitution(scene.cor);
  wall.friction = 0;
  const double thickness = 0.5;
  const btScalar outer = btScalar(scene.halfSize + 2 * thickness);
  for (int axis = 0; axis < 3; ++axis)
    for (int sign = -1; sign <= 1; sign += 2) {
      btVector3 halfExtents{outer, outer, outer};
      halfExtents[axis] = btScalar(thickness);
      wall.position = btVector3(0, 0, 0);
      wall.position[axis] = btScalar(sign * (scene.halfSize + thickness));
      world.addBox(halfExtents, wall);
    }
  SceneBodies out;
  std::uint64_t state = scene.seed;
  for (int i = 0; i < scene.count; ++i) {
    const int ix = i % perAxis, iy = (i / perAxis) % perAxis, iz = i / (perAxis * perAxis);
    const auto at = [&](int k) { return btScalar(-scene.halfSize + spacing * (k + 0.5)); };
    BodySpec spec = ball(scene.mass, btVector3(at(ix), at(iy), at(iz)), scene.cor);
    const double z = 2 * uniform(state) - 1, phi = 2 * kPi * uniform(state), rho = std::sqrt(1 - z * z);
    spec.linearVelocity = btVector3(btScalar(scene.speed * rho * std::cos(phi)), btScalar(scene.speed * rho * std::sin(phi)),
                                    btScalar(scene.speed * z));
    out.bodies.push_back(world.addSphere(btScalar(scene.radius), spec));
  }
  return out;
}

SceneBodies build(World& world, const Incline& scene) {
  require(scene.angle >= 0 && scene.angle < kPi / 2 && scene.size > 0 && scene.mass > 0 && scene.height >= 0 &&
              scene.friction >= 0,
          "Incline: bad parameter");
  world.setGravity(btVector3(0, btScalar(-kGravity), 0));
  const double s = std::sin(scene.angle), c = std::cos(scene.angle);
  const double halfThickness = 1;
  BodySpec incline;
  incline.mass = 0;
  incline.orientation = btQuaternion(btVector3(0, 0, 1), btScalar(scene.angle));
  incline.position = btVector3(btScalar(halfThickness * s), btScalar(-halfThickness * c), 0);  // top face through 0
  incline.restitution = bodyRestitution(scene.cor);
  incline.friction = 1;
  // Long enough downhill that nothing slides off in the few seconds a study watches.
  world.addBox(btVector3(60, btScalar(halfThickness), 10), incline);
  const bool sphere = scene.shape == Incline::Shape::Sphere;
  // Distance from the centre to the lowest point along −n: r, or the cube's support a(sin θ + cos θ).
  const double clearance = sphere ? scene.size : scene.size * (s + c);
  BodySpec spec;
  spec.mass = btScalar(scene.mass);
  spec.position = btVector3(0, btScalar(clearance / c + scene.height), 0);
  spec.restitution = bodyRestitution(scene.cor);
  spec.friction = btScalar(scene.friction);
  const btScalar size = btScalar(scene.size);
  return SceneBodies{{sphere ? world.addSphere(size, spec) : world.addBox(btVector3(size, size, size), spec)}, 0};
}

}  // namespace propimpact::scenes
