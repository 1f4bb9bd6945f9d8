// Issue 18 item 3: the walker's heel strike (seed 004) as an impact with
// friction. The seed models the swing foot as sticking, the inert constraint
// v_P⁺ = 0 (resolveInert, both rows of A). The same event as a unilateral
// plastic impact (e = 0) at P with Coulomb friction μ_f must reproduce it
// exactly whenever the inert impulse lies inside the cone (λ_y > 0,
// |λ_x| ≤ μ_f λ_y): the foot then sticks, A q̇⁺ = 0 has the one M-orthogonal
// solution P_a q̇⁻, and the energy left is T_a⁻. Below that μ_f the foot slips
// on the cone's edge and keeps some tangential speed.
#include <gtest/gtest.h>

#include <cmath>

#include <propimpact/core/ImpactFriction.h>
#include <propimpact/core/InertConstraints.h>

#include "CompassWalker.h"

namespace propimpact::compare {
namespace {

constexpr double kPi = 3.14159265358979323846;
constexpr double kAgreement = 1e-9;  // relative to ‖q̇⁻‖_M

struct Strike {
  WalkerStrike walker;
  InertImpact inert;
};

Strike strikeAt(double thetaDeg, double q5Deg, double rho) {
  WalkerParameters parameters;
  parameters.rho = rho;
  Strike s{walkerStrike(thetaDeg * kPi / 180, q5Deg * kPi / 180, parameters), {}};
  s.inert = resolveInert(s.walker.M, s.walker.qdot, s.walker.A);
  return s;
}

// Normal row ẏ_P (positive: the foot separates), one tangent row ẋ_P.
ImpactResult plasticWithFriction(const WalkerStrike& w, double mu, FrictionResult& friction) {
  MatrixX T = MatrixX::Zero(2, w.M.cols());
  T.row(0) = w.A.row(0);
  return resolveDenseWithFriction(w.M, w.qdot, w.A.row(1), VectorX::Zero(1), VectorX::Constant(1, mu), T, friction);
}

double mNorm(const WalkerStrike& w, const VectorX& v) { return std::sqrt(v.dot(w.M * v)); }

TEST(WalkerStickingFoot, FrictionImpactInsideTheConeIsTheInertProjection) {
  int sticking = 0;
  for (double theta : {15.0, 25.0, 35.0, 45.0})
    for (double q5 : {-20.0, 0.0, 20.0})
      for (double rho : {0.0, 0.25, 0.5}) {
        const Strike s = strikeAt(theta, q5, rho);
        const double lambdaX = s.inert.impulse[0], lambdaY = s.inert.impulse[1];
        ASSERT_GT(lambdaY, 0) << "theta " << theta << " q5 " << q5 << " rho " << rho << ": the foot must push on the ground";
        const double needed = std::abs(lambdaX) / lambdaY;
        FrictionResult friction;
        const ImpactResult r = plasticWithFriction(s.walker, 1.05 * needed + 1e-3, friction);
        const double scale = mNorm(s.walker, s.walker.qdot);
        EXPECT_LE(mNorm(s.walker, r.velocity - s.inert.velocity), kAgreement * scale)
            << "theta " << theta << " q5 " << q5 << " rho " << rho;
        EXPECT_NEAR(r.energyAfter, s.inert.admissibleEnergy, kAgreement * s.inert.energy);
        EXPECT_EQ(friction.state.at(0), FrictionState::Stuck);
        // The friction impulse is the inert tangential one (A's rows are v_P).
        EXPECT_NEAR(friction.tangentialImpulse.at(0)[0], lambdaX, kAgreement * (std::abs(lambdaX) + lambdaY));
        ++sticking;
      }
  EXPECT_EQ(sticking, 36);
}

TEST(WalkerStickingFoot, BelowTheInertRatioTheFootSlipsOnTheConeAndLosesLess) {
  int slipping = 0;
  for (double theta : {15.0, 25.0, 35.0, 45.0})
    for (double q5 : {-20.0, 0.0, 20.0}) {
      const Strike s = strikeAt(theta, q5, 0.25);
      const double needed = std::abs(s.inert.impulse[0]) / s.inert.impulse[1];
      if (needed < 1e-6) continue;  // nothing to slip: the inert impulse is normal
      FrictionResult friction;
      const double mu = 0.5 * needed;
      const ImpactResult r = plasticWithFriction(s.walker, mu, friction);
      const double scale = mNorm(s.walker, s.walker.qdot);
      EXPECT_EQ(friction.state.at(0), FrictionState::Slipping) << "theta " << theta << " q5 " << q5;
      const double normalImpulse = r.impulses[0];  // λ_n + δ
      EXPECT_NEAR(std::abs(friction.tangentialImpulse.at(0)[0]), mu * normalImpulse, kAgreement * scale);
      EXPECT_NEAR(s.walker.A.row(1).dot(r.velocity), 0, kAgreement * scale);        // plastic: ẏ_P⁺ = 0
      EXPECT_GT(std::abs(s.walker.A.row(0).dot(r.velocity)), kAgreement * scale);   // ẋ_P⁺ ≠ 0
      // Sticking is the most dissipative outcome with ẏ_P⁺ = 0 (it is the
      // M-projection onto a subspace of the slipping outcomes' set).
      EXPECT_GE(r.energyAfter, s.inert.admissibleEnergy - kAgreement * s.inert.energy);
      EXPECT_LE(r.energyAfter, r.energyBefore * (1 + 1e-12));
      ++slipping;
    }
  EXPECT_GE(slipping, 10);
}

}  // namespace
}  // namespace propimpact::compare
