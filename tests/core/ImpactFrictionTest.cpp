// Friction during an impact (issue 18, ImpactFriction.h) against closed forms:
// a solid sphere on a rough plane (Routh: SPEC §7), a tilted rod landing on a
// rough floor (single-contact Newton–Coulomb impact, angular momentum about
// the contact point for a plastic sticking landing), head-on impacts
// unchanged, μ = 0 bit for bit, and bad input.
#include <gtest/gtest.h>

#include <cmath>

#include "propimpact/core/Errors.h"
#include "propimpact/core/ImpactFriction.h"
#include "propimpact/core/ImpactProblem.h"
#include "propimpact/core/ImpactResolver.h"

namespace propimpact {
namespace {

constexpr Scalar kClosedForm = 1e-12;  // relative to the impact speed

struct SphereCase {
  Scalar mu, e, vt, vn, phi;  // tangential direction (cos φ, 0, sin φ), normal +y
};

struct SphereOutcome {
  ImpactResult result;
  FrictionResult friction;
};

// A solid sphere (m = 2, r = 0.3, I = 2/5 m r²) at v = vt·t̂ − vn·n, no spin,
// hitting static ground through one rigid contact.
SphereOutcome sphereOnPlane(const SphereCase& s) {
  constexpr Scalar m = 2;
  constexpr Scalar r = 0.3;
  RigidBodyInput body;
  body.inverseMass = 1 / m;
  body.inverseInertiaWorld = Matrix3::Identity() / (0.4 * m * r * r);
  const Vector3 tangent(std::cos(s.phi), 0, std::sin(s.phi));
  const Vector3 n(0, 1, 0);
  body.linearVelocity = s.vt * tangent - s.vn * n;
  ImpactProblem problem;
  const int b = problem.addRigidBody(body);
  const Vector3 offset = -r * n;
  const int c = problem.addRigidContact(b, kNoBlock, n, offset, Vector3::Zero(), s.e);
  FrictionRows rows;
  rows.addRigid(problem, c, b, kNoBlock, s.mu, Vector3::UnitX(), Vector3::UnitZ(), offset, Vector3::Zero());
  ImpactResolver resolver;
  SphereOutcome out;
  out.result = resolver.resolve(problem);
  ImpactFriction friction;
  friction.apply(problem, rows, ResolveOptions{}, FrictionOptions{}, out.result, out.friction);
  return out;
}

TEST(ImpactFriction, SphereOnRoughPlaneMatchesRouthsClosedForm) {
  const SphereCase cases[] = {
      {0.5, 0.8, 2.0, 3.0, 0.0},  {0.5, 0.8, 2.0, 3.0, 0.7},  {0.05, 0.5, 2.0, 3.0, 2.1}, {0.1, 1.0, 4.0, 1.0, -1.2},
      {1.0, 0.0, 1.0, 1.0, 0.3},  {0.02, 0.0, 5.0, 2.0, 0.0}, {0.3, 0.3, 0.0, 2.0, 0.0},
      // at the boundary μ(1+e)v_n = (2/7) v_t both forms agree
      {2.0 / 7 / 1.5, 0.5, 1.0, 1.0, 0.4},
  };
  const Vector3 n(0, 1, 0);
  for (const SphereCase& s : cases) {
    const SphereOutcome out = sphereOnPlane(s);
    const Vector3 tangent(std::cos(s.phi), 0, std::sin(s.phi));
    const Vector3 v = out.result.velocity.head<3>();
    const Vector3 w = out.result.velocity.tail<3>();
    const bool sticks = s.mu * (1 + s.e) * s.vn >= 2.0 / 7 * s.vt;
    const Scalar vtAfter = sticks ? 5.0 / 7 * s.vt : s.vt - s.mu * (1 + s.e) * s.vn;
    const Scalar spinAfter = sticks ? 5.0 / 7 * s.vt : 2.5 * s.mu * (1 + s.e) * s.vn;  // ω⁺ r along n × t̂
    const Scalar tol = kClosedForm * (s.vt + s.vn);
    SCOPED_TRACE(testing::Message() << "mu " << s.mu << " e " << s.e << " vt " << s.vt << " vn " << s.vn);
    EXPECT_NEAR(v.dot(n), s.e * s.vn, tol);
    EXPECT_NEAR(v.dot(tangent), vtAfter, tol);
    EXPECT_NEAR((v - v.dot(n) * n - v.dot(tangent) * tangent).norm(), 0, tol);
    EXPECT_NEAR(0.3 * w.dot(n.cross(tangent)), spinAfter, tol);
    EXPECT_NEAR(0.3 * (w - w.dot(n.cross(tangent)) * n.cross(tangent)).norm(), 0, tol);
    EXPECT_NEAR(out.result.impulses[0], 2 * (1 + s.e) * s.vn, tol * 2);  // m (1+e) v_n, no normal correction
    if (s.vt > 0) {
      EXPECT_EQ(out.friction.state[0], sticks && s.mu * (1 + s.e) * s.vn > 2.0 / 7 * s.vt ? FrictionState::Stuck
                                                                                         : FrictionState::Slipping);
      EXPECT_EQ(out.friction.outcome, FrictionOutcome::Newton);
    }
    EXPECT_LE(out.result.energyAfter, out.result.energyBefore);
  }
}

// A planar rod (mass m, length L, I = mL²/12) tilted by θ, its lower end at
// r = (−a, −b) from the centre, a = L/2 cos θ, b = L/2 sin θ, landing on a
// floor: rows J_n = [0, 1, −a] and J_t = [1, 0, b] over (v_x, v_y, ω).
struct Rod {
  Scalar m = 1.5, length = 1.2, theta = 0.5;
  [[nodiscard]] Scalar a() const { return 0.5 * length * std::cos(theta); }
  [[nodiscard]] Scalar b() const { return 0.5 * length * std::sin(theta); }
  [[nodiscard]] Scalar inertia() const { return m * length * length / 12; }
  [[nodiscard]] MatrixX mass() const { return Eigen::Vector3d(m, m, inertia()).asDiagonal(); }
  [[nodiscard]] Eigen::RowVector3d normal() const { return {0, 1, -a()}; }
  [[nodiscard]] Eigen::RowVector3d tangent() const { return {1, 0, b()}; }
};

ImpactResult landRod(const Rod& rod, const Eigen::Vector3d& v, Scalar e, Scalar mu, FrictionResult& friction) {
  MatrixX T = MatrixX::Zero(2, 3);
  T.row(0) = rod.tangent();
  return resolveDenseWithFriction(rod.mass(), v, rod.normal(), VectorX::Constant(1, e), VectorX::Constant(1, mu), T,
                                  friction);
}

TEST(ImpactFriction, TiltedRodLandingPlasticSticksAboutItsEnd) {
  // e = 0, μ large: the end stops dead, and angular momentum about it is
  // conserved: ω⁺ = (I ω⁻ + m (ρ × v⁻)_z) / (I + m |ρ|²), ρ = centre − end = (a, b).
  const Rod rod;
  for (const Eigen::Vector3d& v : {Eigen::Vector3d(0, -2, 0), Eigen::Vector3d(0.7, -2, 0.4), Eigen::Vector3d(-0.5, -1, -1)}) {
    FrictionResult friction;
    const ImpactResult r = landRod(rod, v, 0, 5, friction);
    const Scalar a = rod.a(), b = rod.b();
    const Scalar omega = (rod.inertia() * v[2] + rod.m * (a * v[1] - b * v[0])) / (rod.inertia() + rod.m * (a * a + b * b));
    const Scalar tol = kClosedForm * v.norm();
    EXPECT_NEAR(r.velocity[2], omega, tol);
    EXPECT_NEAR(r.velocity[0], -omega * b, tol);  // v = ω ẑ × ρ: the end at rest
    EXPECT_NEAR(r.velocity[1], omega * a, tol);
    EXPECT_EQ(friction.state[0], FrictionState::Stuck);
    EXPECT_LE(r.energyAfter, r.energyBefore);
  }
}

TEST(ImpactFriction, TiltedRodLandingElasticFollowsNewtonCoulomb) {
  // Falling straight down, the frictionless impulse turns the rod so its end
  // slides outwards (−x); friction pushes back and turns the end into the
  // floor. Newton–Coulomb for one contact: the end leaves at −e u_n, and
  //  - sticking: λ = A⁻¹ ((1+e)|u_n|, −u_t), A = [J_n; J_t] M⁻¹ [J_n; J_t]ᵀ,
  //  - slipping (slip keeps its sign s = −1): λ_t = μ λ_n,
  //    λ_n = (1+e)|u_n| / (A_nn + μ A_nt).
  const Rod rod;
  const MatrixX minv = rod.mass().inverse();
  Eigen::Matrix<Scalar, 2, 3> rows;
  rows << rod.normal(), rod.tangent();
  const Eigen::Matrix2d A = rows * minv * rows.transpose();
  const Eigen::Vector3d v(0, -2, 0);
  const Scalar un = rod.normal().dot(v);
  for (const Scalar e : {0.3, 0.8, 1.0}) {
    for (const Scalar mu : {0.05, 0.1, 2.0}) {
      Eigen::Vector2d lambda = A.inverse() * Eigen::Vector2d(-(1 + e) * un, 0);
      const bool sticks = std::abs(lambda[1]) <= mu * lambda[0];
      if (!sticks) {
        lambda[0] = -(1 + e) * un / (A(0, 0) + mu * A(0, 1));
        lambda[1] = mu * lambda[0];
      }
      const Eigen::Vector3d expected = v + minv * rows.transpose() * lambda;
      ASSERT_TRUE(sticks || rod.tangent().dot(expected) < 0) << "slip would reverse: not the slipping branch";
      FrictionResult friction;
      const ImpactResult r = landRod(rod, v, e, mu, friction);
      SCOPED_TRACE(testing::Message() << "e " << e << " mu " << mu);
      EXPECT_LT((r.velocity - expected).norm(), kClosedForm * v.norm());
      EXPECT_NEAR(r.impulses[0], lambda[0], kClosedForm * lambda[0]);
      EXPECT_GT(friction.normalCorrection[0], 0);
      EXPECT_EQ(friction.state[0], sticks ? FrictionState::Stuck : FrictionState::Slipping);
      EXPECT_EQ(friction.outcome, FrictionOutcome::Newton);
      EXPECT_LE(r.energyAfter, r.energyBefore * (1 + 1e-14));
    }
  }
}

// Equal-mass cradle of three rigid spheres along x (A hits B, B–C touching):
// no tangential motion, so friction does nothing and the outcome is the
// frictionless (0, 0, V), bit for bit; likewise billiards along the line of centres.
TEST(ImpactFriction, HeadOnImpactsUnchangedBitForBit) {
  for (const Scalar mu : {0.0, 0.5, 3.0}) {
    ImpactProblem problem;
    int body[3];
    for (int k = 0; k < 3; ++k) {
      RigidBodyInput in;
      in.inverseInertiaWorld = Matrix3::Identity() * 2.5;
      in.linearVelocity = Vector3(k == 0 ? 1.0 : 0.0, 0, 0);
      body[k] = problem.addRigidBody(in);
    }
    FrictionRows rows;
    const Vector3 n(-1, 0, 0);  // from B (the right ball) to A (the left one)
    for (int k = 0; k < 2; ++k) {
      const int c = problem.addRigidContact(body[k], body[k + 1], n, Vector3(1, 0, 0), Vector3(-1, 0, 0), 1.0);
      rows.addRigid(problem, c, body[k], body[k + 1], mu, Vector3::UnitY(), Vector3::UnitZ(), Vector3(1, 0, 0),
                    Vector3(-1, 0, 0));
    }
    ImpactResolver resolver;
    const ImpactResult frictionless = resolver.resolve(problem);
    ImpactResult r = frictionless;
    FrictionResult friction;
    ImpactFriction stage;
    stage.apply(problem, rows, ResolveOptions{}, FrictionOptions{}, r, friction);
    EXPECT_TRUE(r.velocity == frictionless.velocity) << "mu " << mu;
    EXPECT_TRUE(r.impulses == frictionless.impulses);
    EXPECT_NEAR(r.velocity[12], 1.0, 1e-15);
    for (const Eigen::Vector2d& t : friction.tangentialImpulse) EXPECT_EQ(t.norm(), 0);
  }
}

TEST(ImpactFriction, ZeroCoefficientLeavesTheOutcomeBitForBit) {
  const SphereCase s{0.0, 0.7, 2.0, 3.0, 0.4};
  const SphereOutcome out = sphereOnPlane(s);
  EXPECT_EQ(out.friction.outcome, FrictionOutcome::NotNeeded);
  EXPECT_EQ(out.friction.state[0], FrictionState::None);
  EXPECT_EQ(out.result.velocity[0], 2.0 * std::cos(0.4));  // the tangential velocity, untouched
}

TEST(ImpactFriction, BadCoefficientsAreTypedErrors) {
  ImpactProblem problem;
  const int b = problem.addRigidBody(RigidBodyInput{});
  const int c = problem.addRigidContact(b, kNoBlock, Vector3::UnitY(), -Vector3::UnitY(), Vector3::Zero(), 1);
  FrictionRows rows;
  const auto code = [&](Scalar mu) {
    try {
      rows.addRigid(problem, c, b, kNoBlock, mu, Vector3::UnitX(), Vector3::UnitZ(), -Vector3::UnitY(), Vector3::Zero());
    } catch (const InputError& error) {
      return error.code();
    }
    return ErrorCode::BadOption;  // not thrown
  };
  EXPECT_EQ(code(-0.1), ErrorCode::BadFriction);
  EXPECT_EQ(code(std::nan("")), ErrorCode::BadFriction);
  EXPECT_EQ(code(INFINITY), ErrorCode::BadFriction);
  EXPECT_EQ(rows.size(), 0);
  rows.addRigid(problem, c, b, kNoBlock, 0.5, Vector3::UnitX(), Vector3::UnitZ(), -Vector3::UnitY(), Vector3::Zero());
  EXPECT_EQ(code(0.5), ErrorCode::BadFriction);  // a second entry for the contact
  EXPECT_THROW(rows.addRigid(problem, c, b, b, 0.5, Vector3::UnitX(), Vector3::UnitZ(), Vector3::Zero(),
                             -Vector3::UnitY()),
               InputError);  // bodies that are not the contact's
}

}  // namespace
}  // namespace propimpact
