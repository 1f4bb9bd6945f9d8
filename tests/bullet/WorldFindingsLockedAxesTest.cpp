// World fuzz findings about bodies whose angular factor locks some axes,
// replayed from the fuzzer's own input: the world is built by
// tests/fuzz/WorldFuzzer.h, which reads its bytes in source order, so this
// build makes the fuzzer's world (the bodies, poses and velocities it made).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>
#include <limits>
#include <memory>
#include <utility>

#include "../fuzz/WorldFuzzer.h"
#include "BulletTestSupport.h"
#include "WorldFindingFile.h"

namespace propimpact {
namespace {

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
  const std::vector<std::uint8_t> zeroGravityLockedBox =
      testing::worldFinding("world-zero-gravity-pass-gives-a-box-3e7-j-at-240-hz");
  fuzz::buildWorld(zeroGravityLockedBox.data(), zeroGravityLockedBox.size(), w);
  w.solver.settings().impactFriction = false;  // as found
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
  const std::vector<std::uint8_t> zeroGravityLockedBox =
      testing::worldFinding("world-zero-gravity-pass-gives-a-box-3e7-j-at-240-hz");
  fuzz::buildWorld(zeroGravityLockedBox.data(), zeroGravityLockedBox.size(), w);
  w.solver.settings().impactFriction = false;  // as found
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
  const std::vector<std::uint8_t> hingedBoxFreeAboutZ =
      testing::worldFinding("world-hinged-box-free-about-z-spins-up-in-the-symmetrised-joint-rows-at-60-hz");
  fuzz::buildWorld(hingedBoxFreeAboutZ.data(), hingedBoxFreeAboutZ.size(), w);
  w.solver.settings().impactFriction = false;  // as found
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
