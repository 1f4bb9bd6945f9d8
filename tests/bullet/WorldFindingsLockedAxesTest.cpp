// World fuzz findings about bodies whose angular factor locks some axes,
// replayed from the fuzzer's own input: the world is built by
// tests/fuzz/WorldFuzzer.h, which reads its bytes in source order, so this
// build makes the fuzzer's world (the bodies, poses and velocities it made).
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <limits>
#include <memory>
#include <utility>

#include "../fuzz/WorldFuzzer.h"
#include "BulletTestSupport.h"

namespace propimpact {
namespace {

// tests/fuzz/world-corpus/world-zero-gravity-pass-gives-a-box-3e7-j-at-240-hz.
constexpr std::array<std::uint8_t, 208> kZeroGravityLockedBox = {
      0x87, 0xb9, 0xbd, 0xf2, 0x21, 0x06, 0xf0, 0x84, 0x77, 0x62, 0xf0, 0xf3,
      0xcb, 0x4d, 0x76, 0x4d, 0xc7, 0x07, 0x20, 0x51, 0x15, 0x9a, 0x0f, 0x89,
      0xf2, 0xc6, 0xda, 0xca, 0xe3, 0x44, 0x02, 0x00, 0x00, 0x00, 0xfd, 0x6f,
      0x84, 0xdf, 0x9a, 0xd7, 0xc5, 0xb3, 0xd0, 0x76, 0xac, 0x0e, 0x8f, 0x53,
      0xa7, 0x35, 0x6c, 0x88, 0x91, 0x3f, 0x20, 0xf6, 0xf7, 0x2d, 0xb0, 0x22,
      0x96, 0x3c, 0x4d, 0x0a, 0xd2, 0xd4, 0xda, 0x16, 0x17, 0xc1, 0xa9, 0x8e,
      0x78, 0x12, 0x9e, 0x03, 0x27, 0x37, 0x10, 0x65, 0xd0, 0x95, 0x86, 0x4f,
      0x11, 0xad, 0xa0, 0xb8, 0x46, 0xc1, 0xc0, 0xeb, 0xc5, 0xb8, 0x46, 0xc1,
      0xc0, 0xeb, 0xc5, 0x37, 0x8a, 0xdc, 0x79, 0x9a, 0xdf, 0x84, 0x9b, 0xad,
      0x05, 0xd4, 0xa1, 0x0a, 0xc0, 0x44, 0x1e, 0xaa, 0xee, 0xb4, 0xb4, 0x8e,
      0xfa, 0x0b, 0x1f, 0xfe, 0xff, 0xcb, 0x4d, 0x76, 0x4d, 0xc7, 0x07, 0x20,
      0x51, 0x15, 0x9a, 0x0f, 0x89, 0xf2, 0xc6, 0xda, 0xca, 0xe3, 0x44, 0x02,
      0x00, 0x00, 0x00, 0xfd, 0x6f, 0x84, 0xdf, 0x9a, 0xd7, 0xc5, 0xb3, 0xd0,
      0x76, 0xfa, 0x0b, 0x1f, 0xfe, 0xff, 0xff, 0xff, 0x0a, 0xbd, 0x80, 0xe9,
      0x98, 0xa3, 0x5a, 0xba, 0x5e, 0xa0, 0xbd, 0x87, 0x99, 0xc1, 0x35, 0x0d,
      0x43, 0x9e, 0x71, 0x89, 0x99, 0xc1, 0x35, 0x0d, 0x3f, 0x43, 0x34, 0xa4,
      0xaa, 0x72, 0xe0, 0x56, 0x28, 0xac, 0x6f, 0xe6, 0x8a, 0x73, 0x3d, 0x11,
      0x61, 0xa1, 0x5d, 0x8e
};

// tests/fuzz/world-corpus/world-hinged-box-free-about-z-spins-up-in-the-symmetrised-joint-rows-at-60-hz.
constexpr std::array<std::uint8_t, 328> kHingedBoxFreeAboutZ = {
    0x1c, 0x2e, 0x2b, 0xb8, 0x56, 0x9d, 0x80, 0x6c, 0x12, 0x51, 0xdc, 0xc9,
    0xbe, 0xe3, 0x89, 0x12, 0x0e, 0xba, 0xee, 0xa3, 0xc2, 0xd8, 0x54, 0x5a,
    0xed, 0xed, 0xed, 0xed, 0xed, 0xed, 0xed, 0xed, 0xed, 0xed, 0x3f, 0x3f,
    0x3f, 0x3f, 0x3f, 0x3f, 0x3f, 0x3f, 0x3f, 0x3f, 0x3f, 0x3f, 0x3f, 0x3f,
    0x3f, 0x3f, 0x3f, 0x3f, 0x3f, 0x3f, 0x3f, 0xed, 0xed, 0xed, 0xed, 0xed,
    0xed, 0xed, 0xed, 0xed, 0xed, 0xed, 0xed, 0xed, 0xed, 0xed, 0xed, 0xed,
    0xed, 0xed, 0xed, 0xed, 0xed, 0xed, 0xed, 0xed, 0xed, 0xed, 0xed, 0xed,
    0xed, 0xed, 0xed, 0xed, 0xed, 0xed, 0xed, 0xed, 0xed, 0x4e, 0xd7, 0xf4,
    0x14, 0xf8, 0xed, 0xed, 0xed, 0xed, 0xed, 0xed, 0xed, 0xed, 0xed, 0xed,
    0xed, 0xed, 0xed, 0xed, 0xed, 0xed, 0xed, 0xed, 0xed, 0xed, 0xed, 0xed,
    0xed, 0xed, 0xed, 0xed, 0xed, 0xed, 0xed, 0xed, 0xed, 0xed, 0xed, 0xed,
    0xed, 0xed, 0xed, 0xb7, 0x35, 0x35, 0x35, 0x35, 0x35, 0x35, 0x35, 0x35,
    0x35, 0x35, 0x35, 0x2e, 0x35, 0x35, 0x35, 0x35, 0x35, 0x35, 0x35, 0x35,
    0x35, 0x35, 0x35, 0x35, 0x35, 0x35, 0x35, 0x35, 0x35, 0x35, 0x35, 0x35,
    0x35, 0x35, 0x35, 0x35, 0x35, 0x35, 0x35, 0x35, 0x35, 0x35, 0x35, 0x35,
    0x35, 0x35, 0x35, 0x35, 0x35, 0x35, 0x35, 0x35, 0x35, 0x35, 0x35, 0x35,
    0x35, 0x35, 0x35, 0x35, 0x35, 0x35, 0x35, 0x35, 0x35, 0x35, 0x35, 0x35,
    0x35, 0x35, 0x35, 0x35, 0x35, 0x35, 0x35, 0x35, 0x35, 0x35, 0x35, 0x35,
    0x38, 0x35, 0xed, 0x2b, 0x2b, 0x2b, 0x2b, 0x2b, 0x2b, 0xed, 0xed, 0xed,
    0xed, 0xed, 0xed, 0xed, 0xed, 0xed, 0xed, 0xed, 0x35, 0x35, 0x35, 0x35,
    0x35, 0x35, 0x35, 0x35, 0x35, 0x35, 0x35, 0x35, 0x6c, 0x88, 0x91, 0x3f,
    0x20, 0xf6, 0xf7, 0x2d, 0xb0, 0x22, 0x96, 0xda, 0xd4, 0x3c, 0x0a, 0xd2,
    0x4d, 0x16, 0x17, 0xc1, 0xa9, 0x8e, 0x78, 0x12, 0x9e, 0x03, 0x27, 0x37,
    0x10, 0x65, 0xd0, 0x95, 0x86, 0x4f, 0x11, 0xad, 0xa0, 0xb8, 0x46, 0xc1,
    0xc0, 0xeb, 0xc5, 0xb8, 0x46, 0xc1, 0xc0, 0xeb, 0xc5, 0x37, 0xed, 0xed,
    0xed, 0xed, 0xed, 0xed, 0xed, 0xed, 0x8a, 0xdc, 0x79, 0x9a, 0xdf, 0x84,
    0x9b, 0xad, 0x05, 0xd4, 0xa1, 0x0a, 0xc0, 0x44, 0x1e, 0xaa, 0xee, 0xed,
    0xed, 0xed, 0xed, 0xb4
};

double kineticEnergy(const btRigidBody& b) {
  const btVector3 w = b.getAngularVelocity();
  return 0.5 * b.getLinearVelocity().length2() / b.getInvMass() + 0.5 * w.dot(b.getInvInertiaTensorWorld().inverse() * w);
}

double kineticEnergy(const fuzz::FuzzWorld& w) {
  double sum = 0;
  for (const btRigidBody* b : w.dynamic) sum += kineticEnergy(*b);
  return sum;
}

/// The largest kinetic energy of the world over its run, relative to its start.
double largestEnergyGain(fuzz::FuzzWorld& w, int substeps) {
  const double start = kineticEnergy(w);
  double largest = start;
  for (int step = 0; step < substeps; ++step) {
    w.world.stepSimulation(w.dt, 1, w.dt);
    largest = std::max(largest, kineticEnergy(w));
  }
  return largest / start;
}

// World fuzz finding world-zero-gravity-pass-gives-a-box-3e7-j-at-240-hz: zero
// gravity, a 1.6 kg box free to turn about z only (inverse inertias 3.3, 1,677
// and 0.13) starts 37–74 cm deep in a 70 kg compound, both moving apart
// slowly, no external force. Bullet sets up a contact row of such a body with
// Δω = I⁻¹(r × n)·factor, whose effective mass m⁻¹ + (I⁻¹t ∘ f)·t goes to zero
// or below once the turned body's I⁻¹ couples z with a locked axis: at
// substep 6 one row took 9,984 N·s and the box left at 6 km/s (3.1e7 J from
// 38.7 J in the world), 4.2 m under the floor by the next substep. The drop-in
// hands such contacts to Bullet's pass, so it did what stock Bullet does; now
// that pass's rows of a body with locked angular axes use the symmetric metric
// S (SᵀIS)⁻¹ Sᵀ (RestingPass.cpp), whose effective mass is at least m⁻¹.
TEST(WorldFindings, ZeroGravityPassGivesABoxWithLockedAxesNoEnergy) {
  fuzz::FuzzWorld w;
  fuzz::buildWorld(kZeroGravityLockedBox.data(), kZeroGravityLockedBox.size(), w);
  ASSERT_EQ(w.dynamic.size(), 5u);
  ASSERT_EQ(w.poisonStep, -1);
  ASSERT_EQ(w.dynamic[1]->getAngularFactor(), btVector3(0, 0, 1));
  ASSERT_EQ(w.world.getGravity(), btVector3(0, 0, 0));
  // Nothing does work on this world but Bullet's pushes out of overlaps:
  // its kinetic energy stays at the start (38.75 J from 38.70 here).
  EXPECT_LE(largestEnergyGain(w, w.substeps), 1.01);
  for (const btRigidBody* b : w.dynamic) EXPECT_GT(testing::top(*b), btScalar(-0.01));
}

// The same world stepped by stock Bullet alone (btSequentialImpulseConstraintSolver):
// its pass gives the box energy from nothing too (38.7 J to 2,021 J in the
// world within 40 substeps, the box 1,962 J), by the same rows. It fails the
// same way; it only did not send the box under the floor.
TEST(WorldFindings, StockBulletGivesTheBoxWithLockedAxesEnergyFromNothing) {
  fuzz::FuzzWorld w;
  fuzz::buildWorld(kZeroGravityLockedBox.data(), kZeroGravityLockedBox.size(), w);
  btSequentialImpulseConstraintSolver stock;
  w.world.setConstraintSolver(&stock);
  EXPECT_GT(largestEnergyGain(w, 40), 10.0);
  w.world.setConstraintSolver(&w.solver);  // the world must not keep a solver that dies first
}

/// A 10 kg body free to turn about world x and y only, its inertia 1,000
/// times smaller about one principal axis, turned 45° about y so that its
/// world I⁻¹ couples x with the locked z; a point-to-point joint holds it to
/// the world at (0.2, 0, −0.1) from its centre, in zero gravity. The largest
/// kinetic energy over \p substeps, relative to the start.
double lockedAxisPendulumEnergyGain(std::unique_ptr<btConstraintSolver> solver, int substeps) {
  scenes::World w(std::move(solver));
  scenes::BodySpec spec;
  spec.mass = 10;
  spec.position = btVector3(0, 2, 0);
  spec.orientation = btQuaternion(btVector3(0, 1, 0), SIMD_PI / 4);
  spec.linearVelocity = btVector3(btScalar(0.1), btScalar(0.2), btScalar(0.1));
  spec.angularVelocity = btVector3(btScalar(0.5), btScalar(0.3), 0);
  spec.angularFactor = btVector3(1, 1, 0);
  spec.inertiaFromShape = false;
  spec.localInertia = btVector3(btScalar(1e-3), 1, 1);
  btRigidBody& body = *w.addBody(std::make_unique<btBoxShape>(btVector3(btScalar(0.3), btScalar(0.1), btScalar(0.1))), spec);
  const btVector3 pivot = body.getCenterOfMassTransform().getBasis().transpose() * btVector3(btScalar(0.2), 0, btScalar(-0.1));
  btPoint2PointConstraint joint(body, pivot);
  w.dynamics().addConstraint(&joint);
  const double start = kineticEnergy(body);
  double largest = start;
  for (int step = 0; step < substeps && std::isfinite(largest); ++step) {
    w.step(1.0 / 240);
    largest = std::max(largest, kineticEnergy(body));
  }
  w.dynamics().removeConstraint(&joint);
  return std::isfinite(largest) ? largest / start : std::numeric_limits<double>::infinity();
}

// The joint rows of such a body (open finding world-sphere-on-joints-turns-
// non-finite-at-240-hz: a sphere free about x and y only, inverse inertias
// 8e7, 8e6 and 5e7, on three point-to-point joints, grew thirtyfold a substep
// with no contact at all): Bullet's effective mass takes I⁻¹ without the
// factor, its impulses the factor, and along the joint's row here the
// impulse moves the error the wrong way, so every sweep multiplies it.
// Stock Bullet's pass blows the pendulum up; the drop-in's pass, with the
// symmetric metric on both sides, keeps its energy.
TEST(WorldFindings, JointOfABodyWithLockedAxesStaysStable) {
  EXPECT_GT(lockedAxisPendulumEnergyGain(std::make_unique<btSequentialImpulseConstraintSolver>(), 240), 100.0);
  EXPECT_LE(lockedAxisPendulumEnergyGain(std::make_unique<PropagativeImpactSolver>(), 240), 1.1);
}

/// A free body of the finding's inertia (inverse inertias 0.64, 615, 0.29:
/// a ratio of 2,000) spinning at 9 rad/s, in zero gravity, stepped once at
/// 60 Hz by \p solver; its angular velocity after the step.
btVector3 gyroscopicBoxAfterOneStep(std::unique_ptr<btConstraintSolver> solver) {
  scenes::World w(std::move(solver));
  scenes::BodySpec spec;
  spec.mass = btScalar(9.62562);
  spec.inertiaFromShape = false;
  spec.localInertia = btVector3(btScalar(1 / 0.6409809441734198), btScalar(1 / 614.6493264534693), btScalar(1 / 0.2944268694665957));
  spec.angularVelocity = btVector3(btScalar(-6.3506684781129286), btScalar(-5.6592563693932112), btScalar(-2.9396984924623113));
  btRigidBody& body = *w.addBody(std::make_unique<btBoxShape>(btVector3(btScalar(0.5), btScalar(0.5), btScalar(0.5))), spec);
  w.step(1.0 / 60);
  return body.getAngularVelocity();
}

// Open finding world-gyroscopic-step-blows-up-a-box-of-inertia-ratio-2000-at-60-hz,
// replayed after 71784d4: at substep 77 the box (free about x and y) leaves
// Bullet's pass at ω = (5.9, −342, 496) rad/s from (1.4, −0.66, −0.52) with no
// row able to give it that; with BT_ENABLE_GYROSCOPIC_FORCE_IMPLICIT_BODY
// cleared on every body the run stays below 164 J. Bullet's implicit
// gyroscopic step is one Newton step on ω⁺ − ω = −dt I⁻¹(ω⁺ × Iω⁺) in the body
// frame, and its Jacobian I + dt(ω̃I − (Iω)~) is singular on a set of ω that
// an inertia ratio of 2,000 brings down to ordinary spins at 60 Hz: from
// 9 rad/s it returns 8.3e6 rad/s. A free body in stock Bullet does that
// alone, and the drop-in hands free flight to the same pass (the same bits):
// Bullet's, not ours.
TEST(WorldFindings, StockGyroscopicStepBlowsUpABoxOfInertiaRatio2000) {
  const btVector3 stock = gyroscopicBoxAfterOneStep(std::make_unique<btSequentialImpulseConstraintSolver>());
  EXPECT_GT(stock.length(), btScalar(1e5));  // from 9 rad/s, no torque
  const btVector3 ours = gyroscopicBoxAfterOneStep(std::make_unique<PropagativeImpactSolver>());
  EXPECT_EQ(ours, stock);
}

/// The fuzzer's hinged-box world stepped by \p solver (nullptr: the drop-in):
/// the fastest spin of a body free about z only, and the lowest top of any body.
std::pair<btScalar, btScalar> hingedBoxRun(btConstraintSolver* solver) {
  fuzz::FuzzWorld w;
  fuzz::buildWorld(kHingedBoxFreeAboutZ.data(), kHingedBoxFreeAboutZ.size(), w);
  EXPECT_FALSE(w.hasKinematic);
  EXPECT_EQ(w.poisonStep, -1);
  EXPECT_EQ(w.joints.size(), 3u);
  if (solver) w.world.setConstraintSolver(solver);
  const auto box = std::find_if(w.dynamic.begin(), w.dynamic.end(),
                                [](const btRigidBody* b) { return b->getAngularFactor() == btVector3(0, 0, 1); });
  EXPECT_NE(box, w.dynamic.end());
  btScalar fastest = 0;
  btScalar lowest = std::numeric_limits<btScalar>::max();
  for (int step = 0; step < w.substeps && box != w.dynamic.end(); ++step) {
    w.world.stepSimulation(w.dt, 1, w.dt);
    fastest = std::max(fastest, (*box)->getAngularVelocity().length());
    for (const btRigidBody* b : w.dynamic) lowest = std::min(lowest, testing::top(*b));
  }
  w.world.setConstraintSolver(&w.solver);  // the world must not keep a solver that dies first
  return {fastest, lowest};
}

// World fuzz finding world-hinged-box-free-about-z-spins-up-in-the-symmetrised-joint-rows-at-60-hz:
// a 7.2 kg box free to turn about z only hangs on three hinges with two
// capsules of extreme inertia at 60 Hz. Its joint rows get the symmetric
// metric, and they had their Bullet targets rescaled by the new effective
// mass, the positional (Baumgarte) part too: a hinge's angular row whose
// torque axis is nearly perpendicular to z has an effective mass near zero
// there, so a small angular error asked for a large spin about z every
// substep. The spin grew tenfold every 40 substeps, to 600 rad/s at substep
// 140, and the box's top went 3 m under the floor. The positional part now
// keeps Bullet's impulse scaled by the row's reach (RestingPass.cpp): the spin
// peaks at 0.21 rad/s from 0.16 (this single-precision build reproduces the
// blow-up without the fix: 5e6 rad/s, the box 9 km under the floor; with
// Bullet's impulse unscaled it still peaked at 49 rad/s). Stock Bullet lets
// the box settle (0.10 → 0.03 rad/s).
TEST(WorldFindings, HingedBoxFreeAboutZDoesNotSpinUpInTheSymmetrisedJointRows) {
  const auto [fastest, lowest] = hingedBoxRun(nullptr);
  EXPECT_LT(fastest, btScalar(0.5));
  EXPECT_GT(lowest, btScalar(-0.01));
  btSequentialImpulseConstraintSolver stock;
  const auto [stockFastest, stockLowest] = hingedBoxRun(&stock);
  EXPECT_LT(stockFastest, btScalar(5));
  EXPECT_GT(stockLowest, btScalar(-0.01));
}

}  // namespace
}  // namespace propimpact
