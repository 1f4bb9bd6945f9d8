#include "CompassWalker.h"

#include <cmath>
#include <stdexcept>

namespace propimpact::compare {
namespace {

/// A limb at absolute angle q (clockwise from vertical) reaches
/// origin + length · (sin q, cos q); its rate of change per unit q̇ is
/// length · upRate(q).
Eigen::Vector2d upRate(double q) { return {std::cos(q), -std::sin(q)}; }

using Jacobian = Eigen::Matrix<double, 2, 5>;

}  // namespace

WalkerStrike walkerStrike(double theta, double q5, const WalkerParameters& p) {
  if (!(p.rho >= 0 && p.rho < 1) || !(p.mu > 0) || !(p.totalMass > p.hipMass) || !(p.hipMass >= 0) ||
      !(p.legLength > 0))
    throw std::invalid_argument("walker: need 0 <= rho < 1, mu > 0, total mass > hip mass >= 0, l > 0");
  const double legMass = (p.totalMass - p.hipMass) / (2 * (1 + p.mu));
  const double torsoMass = p.totalMass - p.hipMass - 2 * legMass;
  const double radius = p.rho * p.legLength, arm = p.legLength - radius;  // foot-arc centre to hip
  const double q3 = theta / 2, q4 = -theta / 2;

  // Velocity Jacobians (rows x, y; columns q̇) of the points that carry mass.
  Jacobian hip = Jacobian::Zero();
  hip(0, 0) = 1;
  hip(1, 1) = 1;
  hip.col(2) = arm * upRate(q3);
  Jacobian stanceLeg = hip, swingLeg = hip, torso = hip;
  stanceLeg.col(2) -= p.legCom * upRate(q3);
  swingLeg.col(3) -= p.legCom * upRate(q4);
  torso.col(4) += p.torsoCom * upRate(q5);

  WalkerStrike s;
  s.M = p.hipMass * hip.transpose() * hip + legMass * stanceLeg.transpose() * stanceLeg +
        legMass * swingLeg.transpose() * swingLeg + torsoMass * torso.transpose() * torso;
  // Swing foot: arc centre = hip − arm · up(q4); its contact point P lies R
  // below it and turns with the leg (angular velocity −q̇4 about z), which adds
  // −R q̇4 along x: the same rolling relation as the stance foot's ẋ = R q̇3.
  Jacobian foot = hip;
  foot.col(3) -= arm * upRate(q4);
  foot(0, 3) -= radius;
  s.A = foot;
  s.qdot.resize(5);
  s.qdot << radius * 1.0, 0, 1, 1, 0;  // assumptions 1–3 with q̇3 = q̇4 = 1 rad/s
  return s;
}

}  // namespace propimpact::compare
