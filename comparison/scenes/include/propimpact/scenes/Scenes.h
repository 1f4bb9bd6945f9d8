#pragma once
/// \file Scenes.h
/// The scenes every study, test, example and benchmark builds: one parameter
/// struct per scene and one build() overload that adds it to a World.
///
/// Conventions: x is the line of the cradles, y is up; restitution is set per
/// body to sqrt(COR) so that Bullet's combined coefficient (the product of
/// the two bodies') is the COR; friction, damping and sleeping are off unless
/// a parameter says otherwise.

#include <cstdint>
#include <vector>

#include "propimpact/scenes/World.h"

namespace propimpact::scenes {

/// What build() made: the dynamic bodies of interest in a documented order.
struct SceneBodies {
  std::vector<btRigidBody*> bodies;  ///< scene-specific order (see each struct).
  int firstContactStep = 0;          ///< 1-based World::step() call whose collision detection first sees the impact (0: not predicted).
};

/// Per-body restitution giving a combined (product) coefficient \p cor.
[[nodiscard]] btScalar bodyRestitution(double cor);

/// Equal spheres on a line along x in zero gravity. The first \p incoming
/// balls touch each other and move at +v0; the last count − incoming touch
/// each other (centres 2r apart) at rest.
///
/// First-contact placement. Bullet's step is: collision detection on the
/// current positions, then the solver, then position integration x += v·dt.
/// Sphere–sphere makes no speculative points, so the first manifold point
/// appears at the first step whose *starting* positions overlap. With a gap
/// g0 = (preSteps − φ)·v0·dt between the incoming group and the resting one,
/// the gap after k free steps is g0 − k·v0·dt; it is first negative at
/// k = preSteps, i.e. in step preSteps + 1, with depth φ·v0·dt
/// (m_distance1 = −φ·v0·dt).
struct CradleLine {
  int count = 3;              ///< number of balls (≥ 2).
  int incoming = 1;           ///< number of moving balls (1 ≤ incoming < count).
  double radius = 0.5;        ///< m.
  double mass = 1;            ///< kg.
  double v0 = 1;              ///< impact speed (m/s, > 0).
  double cor = 1;             ///< combined coefficient of restitution.
  double dt = 1.0 / 60;       ///< the step World::step() will be called with.
  double phase = 0.5;         ///< φ ∈ (0, 1]: detection depth as a fraction of v0·dt.
  int preSteps = 1;           ///< free-flight steps before the detecting step (≥ 0).
};
/// Adds a CradleLine; bodies are the balls from −x to +x (incoming first).
SceneBodies build(World& world, const CradleLine& scene);

/// Newton's cradle of pendulums: balls on massless strings (btPoint2PointConstraint
/// to fixed points in the world) under gravity −9.81 y. At rest the balls hang
/// touching; the first ball starts pulled back by \p releaseAngle.
struct HangingCradle {
  int count = 5;              ///< number of pendulums.
  double radius = 0.5;        ///< m.
  double mass = 1;            ///< kg.
  double length = 4;          ///< string length, anchor to ball centre (m).
  double releaseAngle = 0.5;  ///< initial angle of the first ball (rad).
  double cor = 1;             ///< combined coefficient of restitution.
  double spacing = 0;         ///< extra gap between hanging balls (m); > 0 gives a no-touch control.
  btVector3 origin{0, 0, 0};  ///< offset of the whole cradle (m): several independent cradles in one world.
};
/// Adds a HangingCradle; bodies are the balls from −x to +x. Anchors are at
/// y = length above each ball's rest position; the first anchor is at
/// origin + (0, length, 0).
SceneBodies build(World& world, const HangingCradle& scene);

/// A sphere dropped onto a static box floor whose top face is y = 0, gravity −9.81 y.
struct BouncingBall {
  double radius = 0.5;        ///< m.
  double mass = 1;            ///< kg.
  double height = 10;         ///< initial height of the ball's lowest point above the floor (m).
  double cor = 1;             ///< combined coefficient of restitution.
  double friction = 0;        ///< per body.
};
/// Adds a BouncingBall; bodies = {ball}.
SceneBodies build(World& world, const BouncingBall& scene);

/// Planar billiard break (seed 000, Fig. 4): cue ball c moving along +x hits
/// a and b simultaneously; θ is the angle at c between the lines to a and b,
/// and +x is its bisector. Linear factor (1,1,0), angular factor (0,0,1),
/// zero gravity, no friction. At contact, a sits at c + (ra+rc)(cos θ/2, sin θ/2)
/// and b at c + (rb+rc)(cos θ/2, −sin θ/2); c starts (preSteps − φ)·v·dt
/// behind so that both contacts are first detected in step preSteps + 1.
struct BilliardsBreak {
  double theta = 1.5707963267948966; ///< rad, from touchingTheta() to π.
  double ra = 0.5, rb = 0.5, rc = 0.5; ///< radii (m).
  double density = 1;         ///< masses are density·(4/3)πr³ (proportional to volume).
  double speed = 1;           ///< cue ball speed (m/s).
  double cor = 1;             ///< combined coefficient of restitution.
  double dt = 1.0 / 60;       ///< the step World::step() will be called with.
  double phase = 0.5;         ///< detection depth fraction along the cue's travel.
  int preSteps = 1;           ///< free-flight steps before the detecting step.
  bool bFirst = false;        ///< create b before a (the creation order some solvers depend on).
};
/// The smallest θ of a BilliardsBreak: a and b touch each other.
[[nodiscard]] double touchingTheta(const BilliardsBreak& scene);
/// Adds a BilliardsBreak; bodies = {a, b, c} whatever the creation order.
SceneBodies build(World& world, const BilliardsBreak& scene);

/// Spheres (r = 0.5, friction 0.5) dropped in a grid into a 12 × 12 m box
/// with walls, gravity −9.81 y.
struct Pile {
  int count = 100;            ///< number of spheres.
  double cor = 0.5;           ///< combined coefficient of restitution.
  std::uint32_t seed = 1;     ///< jitter of the drop positions.
};
/// Adds a Pile; bodies are the spheres in creation order.
SceneBodies build(World& world, const Pile& scene);

/// Chain of equal touching balls on a line (zero gravity); one more ball hits
/// the −x end at v0. Body creation order is forward, reverse or shuffled, which
/// must not change a correct solver's answer.
struct Chain {
  /// Order the balls are created in.
  enum class Order { Forward, Reverse, Shuffled };
  int count = 10;             ///< resting balls (the striker comes on top).
  double radius = 0.5;        ///< m.
  double v0 = 1;              ///< striker speed (m/s).
  double cor = 1;             ///< combined coefficient of restitution.
  double dt = 1.0 / 60;       ///< the step World::step() will be called with.
  double phase = 0.5;         ///< detection depth fraction (as CradleLine).
  Order order = Order::Forward; ///< creation order.
  std::uint32_t seed = 1;     ///< shuffle seed.
};
/// Adds a Chain; bodies from −x to +x (striker first), whatever the creation order.
SceneBodies build(World& world, const Chain& scene);

/// Ten (or count) unit boxes stacked on a static box floor (top face y = 0), gravity −9.81 y.
struct BoxStack {
  int count = 10;             ///< boxes.
  double halfExtent = 0.5;    ///< m.
  double mass = 1;            ///< kg per box.
  double cor = 0;             ///< combined coefficient of restitution.
  double friction = 0.5;      ///< per body.
};
/// Adds a BoxStack; bodies from the bottom up.
SceneBodies build(World& world, const BoxStack& scene);

/// A frictionless gas: equal spheres in a closed static cubic box (six box
/// walls, inner faces at ±halfSize), zero gravity. The spheres start on a
/// cubic grid filling the box, each moving at \p speed in a random direction
/// (splitmix64 from \p seed), without rotation. At COR 1 its kinetic energy
/// is an invariant.
struct Gas {
  int count = 100;            ///< spheres (≥ 0; the grid has ceil(∛count) per axis).
  double radius = 0.25;       ///< m; must fit the grid (spacing 2·halfSize/perAxis > 2·radius).
  double mass = 1;            ///< kg.
  double halfSize = 3;        ///< half the box's inner side (m).
  double speed = 1;           ///< initial speed of every sphere (m/s).
  double cor = 1;             ///< combined coefficient of restitution (walls too).
  std::uint32_t seed = 1;     ///< direction seed.
};
/// Adds a Gas; bodies are the spheres in creation order.
SceneBodies build(World& world, const Gas& scene);

/// A body dropped onto a static rough incline (issue 18's landing study). The
/// incline is a static box tilted by \p angle about z, its top face through
/// the origin with normal n = (−sin θ, cos θ, 0), so downhill is
/// t = −(cos θ, sin θ, 0) and a body rolling downhill spins about n × t = +z;
/// gravity −9.81 y. The body (a solid sphere of radius \p size, or an
/// axis-aligned cube of half extent \p size, which lands on its uphill lower
/// edge) starts at rest above the origin with its lowest point \p height
/// above the incline vertically: it lands at v = sqrt(2 g height) straight
/// down, normal speed v cos θ, downhill speed v sin θ, no spin. The incline's
/// friction is 1 and the body's \p friction, so Bullet's combined friction
/// (their product) is \p friction; the combined restitution is \p cor.
struct Incline {
  /// The dropped body.
  enum class Shape { Sphere, Box };
  Shape shape = Shape::Sphere;  ///< sphere or cube.
  double angle = 0.5235987755982988; ///< incline angle θ (rad, in [0, π/2)).
  double size = 0.5;          ///< sphere radius or cube half extent (m).
  double mass = 1;            ///< kg.
  double height = 1;          ///< vertical drop of the lowest point onto the incline (m).
  double friction = 0.5;      ///< combined coefficient of friction μ.
  double cor = 0.5;           ///< combined coefficient of restitution.
};
/// Adds an Incline; bodies = {the dropped body}.
SceneBodies build(World& world, const Incline& scene);

}  // namespace propimpact::scenes
