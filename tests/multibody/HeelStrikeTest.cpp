// A compass-walker-like heel strike (issue 13, item 4): a planar walker — a
// floating-base hip and two legs on revolute joints about y, a foot ball at
// each leg's end — falls and translates onto the ground with its legs spread,
// so both feet strike at once. Resolved through Bullet, the velocity after
// the step must equal the core's dense solution (resolveDense) for the same
// M, J and v to 1e-9. M and J are built here independently of Bullet's
// articulated-body algorithm, from the walker's geometry: M = Σ Jbᵀ diag(m,
// I_world) Jb over the three bodies in Bullet's coordinates [ω, v, q̇1, q̇2].
// The walker moves in pure translation before the impact, in zero gravity,
// so the step's free change is exactly zero and Bullet's pass adds nothing.
//
// In the single-precision build the agreement is 1e-3, not 1e-9: Bullet's
// float contact generation tilts the feet's normals by 1.6e-4 rad (a normal
// from the difference of nearly equal float positions; printed), and the
// solver uses Bullet's normals while this test uses the exact +z. Measured:
// 6.2e-4 of |v| at worst, feasibility to 2.3e-4 of |v|; M's condition number
// (318, printed) adds at most ~3e-5 through the float M⁻¹.
#include <fmt/core.h>

#include <BulletCollision/CollisionShapes/btCompoundShape.h>

#include <Eigen/Dense>
#include <algorithm>
#include <cmath>

#include <propimpact/core/Resolve.h>

#include "MultiBodyWorld.h"

namespace propimpact {
namespace {

constexpr double kDt = 1.0 / 240;
constexpr double kLength = 1;     // hip to foot centre
constexpr double kFoot = 0.05;    // foot ball radius
constexpr double kAlpha = 0.35;   // half the leg spread
constexpr double kHipMass = 2;
const Vector3 kHipInertia(0.05, 0.05, 0.05);
constexpr double kLegMass[2] = {1.0, 1.5};  // front, rear: unequal so the two contacts do not tie
const Vector3 kLegInertia(0.1, 0.08, 0.02);  // link frame, long axis z
const Vector3 kVelocity(0.5, 0, -0.5);       // hip velocity before the strike
/// Agreement with the dense solution, relative to |v| (see the file comment).
constexpr double kAgreement = sizeof(btScalar) == 8 ? 1e-9 : 1e-3;

struct Walker {
  btMultiBody* body = nullptr;
  double q[2] = {-kAlpha, kAlpha};  // front leg towards +x (θ about +y moves a leg end to −x)
};

Walker addWalker(testing::MultiBodyWorld& w, double restitution) {
  Walker walker;
  const double gap = 1.5 * std::abs(kVelocity.z()) * kDt;  // detected in the third pass
  const double hipHeight = kLength * std::cos(kAlpha) + kFoot + gap;
  auto* body = new btMultiBody(2, btScalar(kHipMass), btVector3(btScalar(kHipInertia.x()), btScalar(kHipInertia.y()),
                                                                 btScalar(kHipInertia.z())), false, false);
  const btVector3 legInertia(btScalar(kLegInertia.x()), btScalar(kLegInertia.y()), btScalar(kLegInertia.z()));
  for (int i = 0; i < 2; ++i)
    body->setupRevolute(i, btScalar(kLegMass[i]), legInertia, -1, btQuaternion::getIdentity(), btVector3(0, 1, 0),
                        btVector3(0, 0, 0), btVector3(0, 0, -btScalar(kLength / 2)), true);
  body->finalizeMultiDof();
  body->setHasSelfCollision(false);
  w.adopt(body);
  body->setBasePos(btVector3(0, 0, btScalar(hipHeight)));
  body->setBaseVel(btVector3(btScalar(kVelocity.x()), btScalar(kVelocity.y()), btScalar(kVelocity.z())));
  for (int i = 0; i < 2; ++i) {
    body->setJointPos(i, btScalar(walker.q[i]));
    auto* foot = new btCompoundShape();
    foot->addChildShape(btTransform(btQuaternion::getIdentity(), btVector3(0, 0, -btScalar(kLength / 2))),
                        w.own(new btSphereShape(btScalar(kFoot))));
    w.addCollider(body, i, w.own(foot), restitution);
  }
  walker.body = body;
  return walker;
}

Matrix3 skew(const Vector3& r) {
  Matrix3 s;
  s << 0, -r.z(), r.y(), r.z(), 0, -r.x(), -r.y(), r.x(), 0;
  return s;
}

Matrix3 rotationY(double q) { return Eigen::AngleAxisd(q, Vector3::UnitY()).toRotationMatrix(); }

/// The walker's mass matrix in Bullet's coordinates [ω, v, q̇1, q̇2], from its geometry.
MatrixX massMatrix(const Walker& walker) {
  MatrixX M = MatrixX::Zero(8, 8);
  const auto add = [&M](const Eigen::Matrix<double, 6, 8>& Jb, double mass, const Matrix3& inertiaWorld) {
    Eigen::Matrix<double, 6, 6> D = Eigen::Matrix<double, 6, 6>::Zero();
    D.topLeftCorner<3, 3>() = mass * Matrix3::Identity();
    D.bottomRightCorner<3, 3>() = inertiaWorld;
    M += Jb.transpose() * D * Jb;
  };
  Eigen::Matrix<double, 6, 8> hip = Eigen::Matrix<double, 6, 8>::Zero();  // rows: COM velocity, angular velocity
  hip.block<3, 3>(0, 3) = Matrix3::Identity();
  hip.block<3, 3>(3, 0) = Matrix3::Identity();
  add(hip, kHipMass, kHipInertia.asDiagonal());
  for (int i = 0; i < 2; ++i) {
    const Matrix3 R = rotationY(walker.q[i]);
    const Vector3 r = R * Vector3(0, 0, -kLength / 2);  // hip to leg COM
    Eigen::Matrix<double, 6, 8> leg = Eigen::Matrix<double, 6, 8>::Zero();
    leg.block<3, 3>(0, 0) = -skew(r);  // ω × r
    leg.block<3, 3>(0, 3) = Matrix3::Identity();
    leg.block<3, 1>(0, 6 + i) = Vector3::UnitY().cross(r);
    leg.block<3, 3>(3, 0) = Matrix3::Identity();
    leg.block<3, 1>(3, 6 + i) = Vector3::UnitY();
    add(leg, kLegMass[i], R * kLegInertia.asDiagonal() * R.transpose());
  }
  return M;
}

/// The feet's contact rows with the ground (normal +z), J v = foot's upward velocity.
MatrixX contactRows(const Walker& walker) {
  MatrixX J = MatrixX::Zero(2, 8);
  const Vector3 n = Vector3::UnitZ();
  for (int i = 0; i < 2; ++i) {
    const Vector3 r = rotationY(walker.q[i]) * Vector3(0, 0, -kLength);  // hip to foot centre
    J.block<1, 3>(i, 0) = r.cross(n).transpose();
    J.block<1, 3>(i, 3) = n.transpose();
    J(i, 6 + i) = n.dot(Vector3::UnitY().cross(r));
  }
  return J;
}

VectorX velocityOf(const btMultiBody& body) {
  VectorX v(8);
  for (int k = 0; k < 8; ++k) v[k] = body.getVelocityVector()[k];
  return v;
}

class HeelStrike : public ::testing::TestWithParam<double> {};

TEST_P(HeelStrike, ThroughBulletEqualsTheCoresDenseSolution) {
  const double restitution = GetParam();
  testing::MultiBodyWorld w(true);
  w.addGround(0, 1);
  const Walker walker = addWalker(w, restitution);
  VectorX before = velocityOf(*walker.body);
  int impactStep = -1;
  double normalTilt = 0;  // of Bullet's contact normals from the ground's +z
  for (int k = 0; k < 6 && impactStep < 0; ++k) {
    before = velocityOf(*walker.body);
    w.step(kDt);
    const StepReport& report = w.solver().lastStepReport();
    if (!report.clusters.empty()) {
      impactStep = k;
      EXPECT_EQ(report.clusters.size(), 1u);
      EXPECT_EQ(report.clusters.front().contacts.size(), 2u) << "both feet strike";
      for (const ContactReport& c : report.clusters.front().contacts)
        normalTilt = std::max(normalTilt, std::hypot(c.normal[0], c.normal[1]));
    }
  }
  ASSERT_EQ(impactStep, 2) << "the strike is detected in the third pass";
  const VectorX after = velocityOf(*walker.body);
  const MatrixX M = massMatrix(walker);
  const MatrixX J = contactRows(walker);
  const ImpactResult dense = resolveDense(M, before, J, restitution);
  const double scale = before.norm();
  const Eigen::JacobiSVD<MatrixX> svd(M);
  fmt::print("heel strike R {}: reflections {}, cond(M) {:.3g}, normal tilt {:.2e}, |through Bullet - dense| / |v| = "
             "{:.3e}, E {:.12f} -> {:.12f}\n",
             restitution, dense.reflections, svd.singularValues()(0) / svd.singularValues()(7), normalTilt,
             (after - dense.velocity).norm() / scale, 0.5 * before.dot(M * before), 0.5 * after.dot(M * after));
  for (int k = 0; k < 8; ++k) EXPECT_NEAR(after[k], dense.velocity[k], kAgreement * scale) << "dof " << k;
  EXPECT_GE((J * after).minCoeff(), -kAgreement * scale) << "a foot still approaches the ground";
  if (restitution == 1) {
    EXPECT_NEAR(after.dot(M * after), before.dot(M * before), kAgreement * before.dot(M * before));
  }
}

INSTANTIATE_TEST_SUITE_P(Restitution, HeelStrike, ::testing::Values(1.0, 0.5, 0.0));

}  // namespace
}  // namespace propimpact
