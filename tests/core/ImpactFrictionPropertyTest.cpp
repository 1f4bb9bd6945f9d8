// Randomized invariants of friction during an impact (issue 18, ImpactFriction.h)
// over 10⁵ problems with a fixed seed, as issue 18 asks: dense SPD blocks with random contact
// and tangent rows, and rigid bodies (random inertia and orientation) with
// contacts on the ground and between bodies, random restitution and μ in
// [0, 2]. Energies and feasibility are computed here from M and J, not taken
// from the result. Problems are small (1-3 contacts, 1-2 bodies) so the suite stays
// within a few seconds; the invariants do not depend on size.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <random>

#include "TestSupport.h"
#include "propimpact/core/ImpactFriction.h"
#include "propimpact/core/ImpactProblem.h"
#include "propimpact/core/ImpactResolver.h"

namespace propimpact {
namespace {

using test::randomSpd;
using test::randomVector;
using test::uniform;
using test::uniformInt;

constexpr int kDenseProblems = 50000;
constexpr int kRigidProblems = 50000;
constexpr std::uint64_t kSeed = 0xf41c7105ULL;
constexpr Scalar kEnergyGain = 1e-12;   // relative energy an outcome may gain (round-off)
constexpr Scalar kFeasibility = 1e-9;   // unit-normal approach left, relative to the problem's scale
constexpr Scalar kCone = 1e-9;          // relative excess over μ λ_n
constexpr Scalar kImpulses = 1e-9;      // ||M(v+ − v−) − Jᵀλ_n − Tᵀλ_t|| relative to ||M v−||

struct Tally {
  int newton = 0, dissipative = 0, reverted = 0, notNeeded = 0, slipping = 0, stuck = 0;
};

struct Dense {
  MatrixX mass, J, T;
  VectorX v, mu;
};

// Checks every invariant of one resolved problem; returns false on the first failure.
bool check(const Dense& p, const ImpactResult& frictionless, const ImpactResult& r, const FrictionResult& f, Tally& tally) {
  const MatrixX minv = p.mass.inverse();
  const VectorX zero = VectorX::Zero(p.J.rows());
  const Scalar scale = test::feasibilityScale(minv, p.mass, p.J, p.v, zero);
  const Scalar before = test::energy(p.mass, p.v);
  const Scalar after = test::energy(p.mass, r.velocity);
  EXPECT_LE(after, before * (1 + kEnergyGain)) << "energy gained";
  EXPECT_LE(after, test::energy(p.mass, frictionless.velocity) * (1 + kEnergyGain) + kEnergyGain * before)
      << "friction added energy";
  EXPECT_GE(test::worstUnitVelocity(minv, p.J, r.velocity, zero), -kFeasibility * scale) << "a contact approaches";
  VectorX impulse = p.J.transpose() * r.impulses;
  for (Index i = 0; i < p.J.rows(); ++i) {
    const Eigen::Vector2d& t = f.tangentialImpulse[static_cast<std::size_t>(i)];
    EXPECT_LE(t.norm(), p.mu[i] * r.impulses[i] * (1 + kCone) + 1e-300) << "outside the cone";
    impulse += p.T.row(2 * i).transpose() * t[0] + p.T.row(2 * i + 1).transpose() * t[1];
    tally.slipping += f.state[static_cast<std::size_t>(i)] == FrictionState::Slipping;
    tally.stuck += f.state[static_cast<std::size_t>(i)] == FrictionState::Stuck;
  }
  EXPECT_LE((p.mass * (r.velocity - p.v) - impulse).norm(), kImpulses * (p.mass * p.v).norm() + 1e-14)
      << "reported impulses are not the applied ones";
  tally.newton += f.outcome == FrictionOutcome::Newton;
  tally.dissipative += f.outcome == FrictionOutcome::Dissipative;
  tally.reverted += f.outcome == FrictionOutcome::Reverted;
  tally.notNeeded += f.outcome == FrictionOutcome::NotNeeded;
  return !::testing::Test::HasFailure();
}

Dense randomDense(std::mt19937_64& rng) {
  Dense p;
  const int n = uniformInt(rng, 2, 5);
  const int m = uniformInt(rng, 1, 3);
  p.mass = randomSpd(rng, n);
  p.J = test::randomMatrix(rng, m, n);
  p.T = test::randomMatrix(rng, 2 * m, n);
  p.mu.resize(m);
  for (int i = 0; i < m; ++i) {
    p.mu[i] = uniformInt(rng, 0, 5) == 0 ? 0 : uniform(rng, 0, 2);
    if (uniformInt(rng, 0, 3) == 0) p.T.row(2 * i + 1).setZero();  // one tangent direction only
  }
  p.v = randomVector(rng, n);
  return p;
}

TEST(ImpactFrictionProperty, DenseProblemsNeverGainEnergyAndEndFeasible) {
  std::mt19937_64 rng(kSeed);
  ResolveOptions options;
  options.analysisContactLimit = 0;
  Tally tally;
  ImpactResolver resolver;
  ImpactFriction stage;
  ImpactResult frictionless;
  ImpactResult r;
  FrictionResult f;
  for (int k = 0; k < kDenseProblems; ++k) {
    const Dense p = randomDense(rng);
    const bool uniformRestitution = uniformInt(rng, 0, 1) == 0;
    const Scalar e = uniform(rng, 0, 1);
    ImpactProblem problem;
    const int block = problem.addDenseBlock(p.mass, p.v);
    FrictionRows rows;
    for (Index i = 0; i < p.J.rows(); ++i) {
      const int c = problem.addContactRow(block, p.J.row(i).transpose(), kNoBlock, VectorX(),
                                          uniformRestitution ? e : uniform(rng, 0, 1));
      rows.add(problem, c, p.mu[i], p.T.middleRows(2 * i, 2), MatrixX());
    }
    resolver.resolve(problem, options, frictionless);
    r = frictionless;
    stage.apply(problem, rows, options, FrictionOptions{}, r, f);
    if (!check(p, frictionless, r, f, tally)) {
      ADD_FAILURE() << "dense problem " << k;
      return;
    }
  }
  std::printf("dense: %d newton, %d dissipative, %d reverted, %d not needed; %d stuck, %d slipping contacts\n",
              tally.newton, tally.dissipative, tally.reverted, tally.notNeeded, tally.stuck, tally.slipping);
  // Reverting is the last resort (sweep cap); it must stay rare.
  EXPECT_LE(tally.reverted, kDenseProblems / 1000);
  EXPECT_GT(tally.stuck, 0);
  EXPECT_GT(tally.slipping, 0);
}

// Rigid bodies: 1-2 bodies, each with 1-2 ground contacts below it and a
// contact with the next body, random normals and offsets.
TEST(ImpactFrictionProperty, RigidClustersNeverGainEnergyAndEndFeasible) {
  std::mt19937_64 rng(kSeed + 1);
  ResolveOptions options;
  options.analysisContactLimit = 0;
  Tally tally;
  ImpactResolver resolver;
  ImpactFriction stage;
  ImpactResult frictionless;
  ImpactResult r;
  FrictionResult f;
  for (int k = 0; k < kRigidProblems; ++k) {
    ImpactProblem problem;
    FrictionRows rows;
    const int bodies = uniformInt(rng, 1, 2);
    for (int b = 0; b < bodies; ++b) {
      RigidBodyInput in;
      in.inverseMass = std::pow(10.0, uniform(rng, -1, 1));
      const Matrix3 R = test::randomRotation(rng);
      in.inverseInertiaWorld = R * Vector3(uniform(rng, 0.2, 5), uniform(rng, 0.2, 5), uniform(rng, 0.2, 5)).asDiagonal() * R.transpose();
      in.linearVelocity = randomVector(rng, 3);
      in.angularVelocity = randomVector(rng, 3);
      problem.addRigidBody(in);
    }
    Dense p;
    for (int b = 0; b < bodies; ++b) {
      const int groundContacts = uniformInt(rng, 1, 2);
      const int contacts = groundContacts + (b + 1 < bodies ? 1 : 0);
      for (int c = 0; c < contacts; ++c) {
        const int other = c < groundContacts ? kNoBlock : b + 1;
        const Vector3 n = test::randomUnit3(rng);
        const Vector3 t1 = n.unitOrthogonal();
        const Vector3 t2 = n.cross(t1);
        const Vector3 ra = randomVector(rng, 3);
        const Vector3 rb = other == kNoBlock ? Vector3::Zero() : Vector3(randomVector(rng, 3));
        const int i = problem.addRigidContact(b, other, n, ra, rb, uniform(rng, 0, 1));
        rows.addRigid(problem, i, b, other, uniform(rng, 0, 2), t1, t2, ra, rb);
      }
    }
    p.mass = problem.denseMass();
    p.J = problem.denseContactJacobian();
    p.v = problem.velocity();
    p.T = MatrixX::Zero(2 * p.J.rows(), p.v.size());
    p.mu.resize(p.J.rows());
    // The tangent rows as dense rows, from the entries' coefficients.
    for (int e = 0; e < rows.size(); ++e) {
      const FrictionRows::Entry& entry = rows.entry(e);
      p.mu[entry.contact] = entry.mu;
      const RowLayout& layout = problem.contact(entry.contact);
      for (int t = 0; t < 2; ++t) {
        if (layout.terms[t].block == kNoBlock) continue;
        const BlockLayout& bl = problem.block(layout.terms[t].block);
        for (int row = 0; row < 2; ++row)
          p.T.row(2 * entry.contact + row).segment(bl.velocityOffset, bl.size) +=
              Eigen::Map<const VectorX>(rows.coefficients(e, t, row, bl.size), bl.size).transpose();
      }
    }
    resolver.resolve(problem, options, frictionless);
    r = frictionless;
    stage.apply(problem, rows, options, FrictionOptions{}, r, f);
    if (!check(p, frictionless, r, f, tally)) {
      ADD_FAILURE() << "rigid problem " << k;
      return;
    }
  }
  std::printf("rigid: %d newton, %d dissipative, %d reverted, %d not needed; %d stuck, %d slipping contacts\n",
              tally.newton, tally.dissipative, tally.reverted, tally.notNeeded, tally.stuck, tally.slipping);
  EXPECT_LE(tally.reverted, kRigidProblems / 1000);
  EXPECT_GT(tally.stuck, 0);
  EXPECT_GT(tally.slipping, 0);
}

}  // namespace
}  // namespace propimpact
