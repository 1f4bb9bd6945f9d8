// World fuzz findings of bodies whose angular factor locks some axes and that
// Bullet's step turned about a locked axis anyway: its convertBodies adds the
// external spin change (I⁻¹·torque·dt and the implicit gyroscopic impulse)
// without the factor, and no row can take that spin away again. The drop-in's
// pass now projects that change onto the free axes (PushOutSolver::convertBodies,
// LockedAxes.h). The findings are replayed from the fuzzer's own input
// (tests/fuzz/world-corpus/): tests/fuzz/WorldFuzzer.h reads its bytes in
// source order, so this build makes the fuzzer's world.
#include <gtest/gtest.h>

#include <BulletCollision/CollisionShapes/btBoxShape.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <memory>
#include <utility>
#include <vector>

#include "../fuzz/WorldFuzzer.h"
#include "BulletTestSupport.h"
#include "WorldFindingFile.h"

namespace propimpact {
namespace {

// The fuzzer's check: a body's top (its bounding box) more than 1 cm under the floor has gone through it.
constexpr btScalar kFloorTolerance = btScalar(0.01);
// Spin about a locked axis (rad/s) that counts as none: the projection leaves
// exactly zero there, so this is only a margin against a change of formula.
constexpr btScalar kNoLockedSpin = btScalar(1e-9);
constexpr const char* kCapsuleOnJoints =
    "world-capsule-with-a-locked-axis-on-two-p2p-joints-turns-nan-in-a-step-without-impacts-at-substep-82-at-60-hz";
constexpr const char* kJointedFloorImpact =
    "world-jointed-capsule-floor-impact-gains-470x-under-the-locked-axis-exemption-box-through-the-floor-at-60-hz";
constexpr const char* kSpinningHull = "world-spin-about-a-locked-angular-axis";

bool finite(const btRigidBody& b) {
  const btVector3 v = b.getLinearVelocity(), w = b.getAngularVelocity();
  return std::isfinite(v.x()) && std::isfinite(v.y()) && std::isfinite(v.z()) && std::isfinite(w.x()) &&
         std::isfinite(w.y()) && std::isfinite(w.z());
}

btScalar lockedSpin(const btRigidBody& b) {
  return (b.getAngularVelocity() * (btVector3(1, 1, 1) - b.getAngularFactor())).length();
}

/// What the world check asks of a run, over every dynamic body and substep.
struct LockedRun {
  int firstNonFinite = -1;     ///< substep after which some body was first non-finite
  int clusters = 0;            ///< impact clusters reported (drop-in only)
  int gainingClusters = 0;     ///< of those, gaining energy beyond kEnergyTolerance, none exempted
  btScalar lowestTop = BT_LARGE_FLOAT;  ///< of finite bodies
  btScalar fastestLockedSpin = 0;
};

/// Replays the fuzzer's world \p name with the drop-in or with stock Bullet's solver alone.
LockedRun replay(const char* name, bool stockBullet) {
  const std::vector<std::uint8_t> bytes = testing::worldFinding(name);
  fuzz::FuzzWorld w;
  fuzz::buildWorld(bytes.data(), bytes.size(), w);
  w.solver.settings().impactFriction = false;  // as found
  EXPECT_FALSE(w.hasKinematic);
  EXPECT_EQ(w.poisonStep, -1);
  btSequentialImpulseConstraintSolver stock;
  if (stockBullet) w.world.setConstraintSolver(&stock);
  LockedRun run;
  for (int step = 0; step < w.substeps; ++step) {
    w.world.stepSimulation(w.dt, 1, w.dt);
    if (!stockBullet) {
      for (const ClusterReport& c : w.solver.lastStepReport().clusters) {
        ++run.clusters;
        if (!(c.energyAfter <= c.energyBefore * (1 + testing::kEnergyTolerance) + 1e-300)) ++run.gainingClusters;
      }
    }
    for (const btRigidBody* b : w.dynamic) {
      if (!finite(*b)) {
        if (run.firstNonFinite < 0) run.firstNonFinite = step;
        continue;
      }
      run.lowestTop = std::min(run.lowestTop, testing::top(*b));
      run.fastestLockedSpin = std::max(run.fastestLockedSpin, lockedSpin(*b));
    }
  }
  w.world.setConstraintSolver(&w.solver);  // the world must not keep a solver that dies first
  return run;
}

// World fuzz finding
// world-capsule-with-a-locked-axis-on-two-p2p-joints-turns-nan-in-a-step-without-impacts-at-substep-82-at-60-hz:
// at 60 Hz a 0.26 kg capsule locked about x (inverse inertias 1.2e4, 1.1e7,
// 1.2e4) hangs on a point-to-point joint. Bullet's gyroscopic step gave it
// spin about x (0.07 rad/s at substep 5, 7.8 at 20, 4,800 at 27), which no
// row could take away, while its joint rows turned it about y and z to keep
// the joint's point still; the run grew by a factor of about five a substep
// from substep 24 and was NaN at 82, in a step without impacts. With the
// change projected, it never spins about x and stays finite and above the floor.
TEST(WorldFindings, CapsuleLockedAboutXOnAJointGetsNoSpinAboutXAndStaysFinite) {
  const LockedRun run = replay(kCapsuleOnJoints, false);
  EXPECT_EQ(run.firstNonFinite, -1);
  EXPECT_EQ(run.gainingClusters, 0) << "of " << run.clusters;
  EXPECT_GT(run.lowestTop, -kFloorTolerance);
  EXPECT_LE(run.fastestLockedSpin, kNoLockedSpin);
}

// World fuzz finding
// world-jointed-capsule-floor-impact-gains-470x-under-the-locked-axis-exemption-box-through-the-floor-at-60-hz:
// a 7.2 kg box locked about x and z, spinning about them after Bullet's
// gyroscopic step, is tied by point-to-point joints to the world and to a
// capsule; impacts that keep the joints' velocity drove the capsule after that
// spin (a floor cluster went from 6.0e7 to 2.8e10 J at substep 103), and the
// box ended 0.38 m under the floor. The world check exempted those clusters as
// prescribed motion; here none is exempted: none gains energy.
TEST(WorldFindings, JointedCapsuleFloorImpactsGainNoEnergyWithoutLockedSpin) {
  const LockedRun run = replay(kJointedFloorImpact, false);
  EXPECT_EQ(run.firstNonFinite, -1);
  EXPECT_GT(run.clusters, 0);
  EXPECT_EQ(run.gainingClusters, 0) << "of " << run.clusters;
  EXPECT_GT(run.lowestTop, -kFloorTolerance);
  EXPECT_LE(run.fastestLockedSpin, kNoLockedSpin);
}

// Open finding world-spin-about-a-locked-angular-axis (kept open since the
// first world run because it passed only by the check's exemption): a hull
// locked about x spun about it at 1.1 rad/s, and single-contact floor impacts
// then gained up to 17 % of their energy. Without that spin none gains any.
TEST(WorldFindings, HullLockedAboutXGetsNoSpinAboutItAndItsImpactsGainNoEnergy) {
  const LockedRun run = replay(kSpinningHull, false);
  EXPECT_EQ(run.firstNonFinite, -1);
  EXPECT_GT(run.clusters, 0);
  EXPECT_EQ(run.gainingClusters, 0) << "of " << run.clusters;
  EXPECT_LE(run.fastestLockedSpin, kNoLockedSpin);
}

// The cause, in stock Bullet: its step spins each of those worlds' locked
// bodies about a locked axis. The fuzzer steps double-precision Bullet.
TEST(WorldFindings, StockBulletSpinsTheLockedBodiesAboutALockedAxis) {
#ifdef BT_USE_DOUBLE_PRECISION
  for (const char* name : {kCapsuleOnJoints, kJointedFloorImpact, kSpinningHull})
    EXPECT_GT(replay(name, true).fastestLockedSpin, btScalar(0.5)) << name;
#else
  GTEST_SKIP() << "the fuzzer's worlds are double-precision Bullet's";
#endif
}

/// A 2 kg box with principal moments 0.1, 0.2, 0.4 kg·m², turned 30° about z
/// (so that its world inertia couples x and y), locked about x, in zero gravity.
btRigidBody* lockedBox(scenes::World& w) {
  w.setGravity(btVector3(0, 0, 0));
  scenes::BodySpec spec;
  spec.mass = 2;
  spec.inertiaFromShape = false;
  spec.localInertia = btVector3(btScalar(0.1), btScalar(0.2), btScalar(0.4));
  spec.orientation = btQuaternion(btVector3(0, 0, 1), SIMD_PI / 6);
  spec.angularFactor = btVector3(0, 1, 1);
  return w.addBox(btVector3(btScalar(0.5), btScalar(0.3), btScalar(0.2)), spec);
}

// Closed form: a torque τ on a body locked about x turns it by
// Δω = S(SᵀIS)⁻¹Sᵀ τ dt, S = (e_y e_z): the y–z block of the world inertia
// inverted, ω_x = 0 (Bullet's step gives I⁻¹(τ ∘ f) dt, with an x part when
// I couples x and y). From rest the gyroscopic impulse is zero.
TEST(LockedAxes, TorqueTurnsABodyLockedAboutXByTheSymmetricMetric) {
  constexpr double kDt = 1.0 / 60;
  const btVector3 torque(3, 2, 1);
  for (const bool stockBullet : {false, true}) {
    std::unique_ptr<btConstraintSolver> solver;
    if (stockBullet) solver = std::make_unique<btSequentialImpulseConstraintSolver>();
    else solver = std::make_unique<PropagativeImpactSolver>();
    scenes::World w(std::move(solver));
    btRigidBody& box = *lockedBox(w);
    box.applyTorque(torque);
    const btMatrix3x3 basis = box.getWorldTransform().getBasis();
    const btMatrix3x3 inertia = basis.scaled(box.getLocalInertia()) * basis.transpose();
    w.step(kDt);
    const btVector3 spin = box.getAngularVelocity();
    if (stockBullet) {
      EXPECT_GT(std::abs(spin.x()), 0.01) << "stock Bullet keeps its x part";
      continue;
    }
    // (SᵀIS)⁻¹ Sᵀτ dt by Cramer's rule on the y–z block.
    const double a = inertia[1][1], b = inertia[1][2], d = inertia[2][2];
    const double det = a * d - b * inertia[2][1];
    const double ty = torque.y() * kDt, tz = torque.z() * kDt;
    const double expectedY = (d * ty - b * tz) / det, expectedZ = (a * tz - inertia[2][1] * ty) / det;
    EXPECT_EQ(spin.x(), 0);
    EXPECT_NEAR(spin.y(), expectedY, testing::kVelocityTolerance * std::abs(expectedY) + 1e-12);
    EXPECT_NEAR(spin.z(), expectedZ, testing::kVelocityTolerance * std::abs(expectedZ) + 1e-12);
  }
}

}  // namespace
}  // namespace propimpact
