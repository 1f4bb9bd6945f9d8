#include "Pantograph.h"

#include <Eigen/Dense>

#include <cmath>
#include <stdexcept>

namespace propimpact::compare {
namespace {

using Eigen::Matrix2d;
using Eigen::Vector2d;

Vector2d direction(double angle) { return {std::cos(angle), std::sin(angle)}; }
Vector2d perpendicular(double angle) { return {-std::sin(angle), std::cos(angle)}; }

/// Angles of a two-link arm from \p base to \p tip; \p side = +1 puts the
/// elbow left of base → tip (counterclockwise), −1 right.
std::pair<double, double> armAngles(const Vector2d& base, const Vector2d& tip, double proximal, double distal,
                                    int side) {
  const Vector2d d = tip - base;
  const double r = d.norm();
  if (!(r < proximal + distal && r > std::abs(proximal - distal)))
    throw std::invalid_argument("pantograph: end effector out of reach");
  const double opening = std::acos((proximal * proximal + r * r - distal * distal) / (2 * proximal * r));
  const double qa = std::atan2(d.y(), d.x()) + side * opening;
  const Vector2d elbowToTip = tip - (base + proximal * direction(qa));
  return {qa, std::atan2(elbowToTip.y(), elbowToTip.x())};
}

}  // namespace

Vector2d pantographContactPoint(double offset, double height, const PantographParameters& p) {
  return {p.l5 / 2 + offset, height};
}

PantographModel pantographAt(const Vector2d& endEffector, const PantographParameters& p) {
  const auto [q1, q2] = armAngles({0, 0}, endEffector, p.l1, p.l2, +1);
  const auto [q3, q4] = armAngles({p.l5, 0}, endEffector, p.l1, p.l2, -1);
  // Loop closure at the end effector, for unknowns x = (v_EE, q̇2, q̇4):
  //   v_EE − l2 q̇2 e⊥(q2) = l1 q̇1 e⊥(q1),   v_EE − l4 q̇4 e⊥(q4) = l3 q̇3 e⊥(q3).
  Eigen::Matrix4d closure = Eigen::Matrix4d::Zero();
  closure.block<2, 2>(0, 0) = Matrix2d::Identity();
  closure.block<2, 2>(2, 0) = Matrix2d::Identity();
  closure.block<2, 1>(0, 2) = -p.l2 * perpendicular(q2);
  closure.block<2, 1>(2, 3) = -p.l2 * perpendicular(q4);
  Eigen::Matrix<double, 4, 2> rhs = Eigen::Matrix<double, 4, 2>::Zero();
  rhs.block<2, 1>(0, 0) = p.l1 * perpendicular(q1);
  rhs.block<2, 1>(2, 1) = p.l1 * perpendicular(q3);
  const Eigen::Matrix<double, 4, 2> x = closure.partialPivLu().solve(rhs);  // columns: q̇1 = 1, q̇3 = 1
  const Eigen::RowVector2d rate2 = x.row(2), rate4 = x.row(3);
  const Eigen::RowVector2d rate1(1, 0), rate3(0, 1);

  PantographModel model;
  model.jacobian = x.topRows<2>();
  // T = ½ Σ (m |v_com|² + I ω²) with v_com and ω linear in q̇: M = Σ m Jᵀ J + I Jωᵀ Jω.
  Matrix2d M = p.mEE * model.jacobian.transpose() * model.jacobian;
  const auto addLink = [&M](double mass, double inertia, const Matrix2d& com, const Eigen::RowVector2d& rate) {
    M += mass * com.transpose() * com + inertia * rate.transpose() * rate;
  };
  addLink(p.m1, p.I1, p.a1 * perpendicular(q1) * rate1, rate1);
  addLink(p.m1, p.I1, p.a1 * perpendicular(q3) * rate3, rate3);
  addLink(p.m2, p.I2, p.l1 * perpendicular(q1) * rate1 + p.a2 * perpendicular(q2) * rate2, rate2);
  addLink(p.m2, p.I2, p.l1 * perpendicular(q3) * rate3 + p.a2 * perpendicular(q4) * rate4, rate4);
  model.M = 0.5 * (M + M.transpose());
  model.A = model.jacobian.row(1);
  return model;
}

}  // namespace propimpact::compare
