#include "TailedBiped.h"

#include <Eigen/Dense>

#include <algorithm>
#include <cmath>
#include <initializer_list>
#include <stdexcept>

namespace propimpact::compare {
namespace {

constexpr double kPi = 3.14159265358979323846;
constexpr double kBodyDensity = 1000;           ///< water (kg/m³).
constexpr double kLimbLineDensity = 2000 * 1.25e-4;  ///< carbon fibre, 1.25 cm² section (kg/m).

enum Coordinate : Index { kX, kY, kTheta, kPhiL, kGammaL, kPhiR, kGammaR, kPhiT, kDof };

using Eigen::Vector2d;
Vector2d along(double angle) { return {std::cos(angle), std::sin(angle)}; }

/// An angular coordinate a point depends on, and the point it turns about.
struct Turn {
  Index coordinate;
  Vector2d pivot;
};

/// d p / d q for a point p moved by (x, y) and by \p turns: ẑ × (p − pivot) per angle.
Eigen::Matrix<double, 2, kDof> pointJacobian(const Vector2d& p, std::initializer_list<Turn> turns) {
  Eigen::Matrix<double, 2, kDof> J = Eigen::Matrix<double, 2, kDof>::Zero();
  J(0, kX) = 1;
  J(1, kY) = 1;
  for (const Turn& t : turns) J.col(t.coordinate) += Vector2d(-(p - t.pivot).y(), (p - t.pivot).x());
  return J;
}

/// Adds a rigid body (mass, inertia about its centre) moved by \p turns to M.
void addBody(MatrixX& M, double mass, double inertia, const Vector2d& com, std::initializer_list<Turn> turns) {
  const auto J = pointJacobian(com, turns);
  M += mass * J.transpose() * J;
  Eigen::Matrix<double, 1, kDof> w = Eigen::Matrix<double, 1, kDof>::Zero();
  for (const Turn& t : turns) w(t.coordinate) = 1;
  M += inertia * w.transpose() * w;
}

void addRod(MatrixX& M, const Vector2d& from, const Vector2d& to, std::initializer_list<Turn> turns) {
  const double length = (to - from).norm(), mass = kLimbLineDensity * length;
  addBody(M, mass, mass * length * length / 12, 0.5 * (from + to), turns);
}

double sphereMass(double r) { return kBodyDensity * 4.0 / 3.0 * kPi * r * r * r; }

}  // namespace

double tailLength(double r1, double r2) {
  const double r12 = r1 * r1, r22 = r2 * r2;
  return (r12 * r1 + r12 * r2 + std::sqrt(2.0) * std::sqrt(r12 * r12 * r22 + r12 * r1 * r22 * r2)) / (r12 - r22) -
         (r1 + r2);
}

VectorX bipedCoordinates(const TailedBipedDesign& d) {
  VectorX q(kDof);
  q << d.x, d.y, d.theta, d.phiL, d.gammaL, d.phiR, d.gammaR, d.phiT;
  return q;
}

TailedBipedState bipedState(const TailedBipedDesign& d) {
  if (!(d.r1 > 0 && d.r2 > 0 && d.r2 < d.r1 && d.lu > 0 && d.ll > 0))
    throw std::invalid_argument("tailed biped: need 0 < r2 < r1 and positive leg segments");
  const Vector2d body(d.x, d.y);
  const Vector2d joint = body - d.r1 * along(d.theta);
  const double rear = d.theta + d.phiT + kPi;  // posterior axis, pointing backwards
  const Vector2d posterior = joint + d.r2 * along(rear);
  const Vector2d tailBase = posterior + d.r2 * along(rear);
  const Vector2d tailTip = tailBase + tailLength(d.r1, d.r2) * along(rear);
  const Vector2d kneeL = body + d.lu * along(d.theta + d.phiL);
  const Vector2d footL = kneeL + d.ll * along(d.theta + d.phiL + d.gammaL);
  const Vector2d kneeR = body + d.lu * along(d.theta + d.phiR);
  const Vector2d footR = kneeR + d.ll * along(d.theta + d.phiR + d.gammaR);
  const Turn pitch{kTheta, body}, bend{kPhiT, joint};

  TailedBipedState s;
  s.M = MatrixX::Zero(kDof, kDof);
  addBody(s.M, sphereMass(d.r1), 0.4 * sphereMass(d.r1) * d.r1 * d.r1, body, {pitch});
  addBody(s.M, sphereMass(d.r2), 0.4 * sphereMass(d.r2) * d.r2 * d.r2, posterior, {pitch, bend});
  addRod(s.M, tailBase, tailTip, {pitch, bend});
  addRod(s.M, body, kneeL, {pitch, {kPhiL, body}});
  addRod(s.M, kneeL, footL, {pitch, {kPhiL, body}, {kGammaL, kneeL}});
  addRod(s.M, body, kneeR, {pitch, {kPhiR, body}});
  addRod(s.M, kneeR, footR, {pitch, {kPhiR, body}, {kGammaR, kneeR}});
  s.M = 0.5 * (s.M + s.M.transpose()).eval();
  s.J = MatrixX(2, kDof);
  s.J.row(0) = pointJacobian(footR, {pitch, {kPhiR, body}, {kGammaR, kneeR}}).row(1);
  s.J.row(1) = pointJacobian(tailTip, {pitch, bend}).row(1);
  s.footTip = footR;
  s.tailTip = tailTip;
  s.clearance = std::min({d.y - d.r1, posterior.y() - d.r2, kneeL.y(), footL.y(), kneeR.y()});
  s.mass = sphereMass(d.r1) + sphereMass(d.r2) +
           kLimbLineDensity * (tailLength(d.r1, d.r2) + 2 * (d.lu + d.ll));
  return s;
}

double contactGram(const TailedBipedState& s) {
  const Eigen::LLT<MatrixX> llt(s.M);
  const MatrixX minvJt = llt.solve(s.J.transpose());
  const MatrixX g = s.J * minvJt;
  return g(0, 1) / std::sqrt(g(0, 0) * g(1, 1));
}

}  // namespace propimpact::compare
