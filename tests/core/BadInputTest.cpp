// Every ErrorCode path (Errors.h): invalid input is rejected while the problem
// is built, with a typed code, and leaves the problem unchanged.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "propimpact/core/Errors.h"
#include "propimpact/core/ImpactProblem.h"
#include "propimpact/core/ImpactResolver.h"
#include "propimpact/core/Resolve.h"

namespace propimpact {
namespace {

constexpr Scalar kNaN = std::numeric_limits<Scalar>::quiet_NaN();
constexpr Scalar kInf = std::numeric_limits<Scalar>::infinity();

template <typename F>
void expectCode(F&& action, ErrorCode expected) {
  try {
    action();
    ADD_FAILURE() << "no InputError, expected " << toString(expected);
  } catch (const InputError& error) {
    EXPECT_EQ(error.code(), expected) << error.what();
    EXPECT_NE(std::string(error.what()), "");
  }
}

VectorX vec(std::initializer_list<Scalar> values) {
  VectorX v(static_cast<Index>(values.size()));
  Index k = 0;
  for (const Scalar x : values) v[k++] = x;
  return v;
}

TEST(BadInput, NonFiniteVelocityIsRejected) {
  for (const Scalar bad : {kNaN, kInf, -kInf}) {
    ImpactProblem p;
    expectCode([&] { p.addDenseBlock(MatrixX::Identity(2, 2), vec({0, bad})); }, ErrorCode::NonFiniteVelocity);
    RigidBodyInput body;
    body.linearVelocity[1] = bad;
    expectCode([&] { p.addRigidBody(body); }, ErrorCode::NonFiniteVelocity);
    body = RigidBodyInput{};
    body.angularVelocity[2] = bad;
    expectCode([&] { p.addRigidBody(body); }, ErrorCode::NonFiniteVelocity);
    EXPECT_EQ(p.blockCount(), 0);
    EXPECT_THROW((void)resolveDense(MatrixX::Identity(1, 1), vec({bad}), MatrixX::Ones(1, 1), 1.0), InputError);
  }
}

TEST(BadInput, NonFiniteMassIsRejected) {
  for (const Scalar bad : {kNaN, kInf}) {
    ImpactProblem p;
    MatrixX m = MatrixX::Identity(2, 2);
    m(1, 1) = bad;
    expectCode([&] { p.addDenseBlock(m, vec({0, 0})); }, ErrorCode::NonFiniteMass);
    RigidBodyInput body;
    body.inverseMass = bad;
    expectCode([&] { p.addRigidBody(body); }, ErrorCode::NonFiniteMass);
    body = RigidBodyInput{};
    body.inverseInertiaWorld(0, 1) = bad;
    expectCode([&] { p.addRigidBody(body); }, ErrorCode::NonFiniteMass);
    EXPECT_EQ(p.blockCount(), 0);
  }
}

TEST(BadInput, ZeroOrNegativeMassIsRejected) {
  ImpactProblem p;
  for (const Scalar inverseMass : {0.0, -1.0}) {
    RigidBodyInput body;
    body.inverseMass = inverseMass;
    expectCode([&] { p.addRigidBody(body); }, ErrorCode::NonPositiveMass);
  }
  RigidBodyInput negativeInertia;
  negativeInertia.inverseInertiaWorld = Vector3(1, -1, 1).asDiagonal();
  expectCode([&] { p.addRigidBody(negativeInertia); }, ErrorCode::NonPositiveMass);
  for (const Scalar diagonal : {0.0, -2.0})
    expectCode([&] { p.addDenseBlock(diagonal * MatrixX::Identity(2, 2), vec({0, 0})); },
               ErrorCode::MassNotPositiveDefinite);
  EXPECT_EQ(p.blockCount(), 0);
}

TEST(BadInput, NonSpdOrNonSymmetricDenseMassIsRejected) {
  ImpactProblem p;
  MatrixX indefinite(2, 2);
  indefinite << 1, 2, 2, 1;
  expectCode([&] { p.addDenseBlock(indefinite, vec({0, 0})); }, ErrorCode::MassNotPositiveDefinite);
  MatrixX singular(2, 2);
  singular << 1, 1, 1, 1;
  expectCode([&] { p.addDenseBlock(singular, vec({0, 0})); }, ErrorCode::MassNotPositiveDefinite);
  MatrixX skew(2, 2);
  skew << 2, 0.5, -0.5, 2;  // positive definite quadratic form, but not symmetric
  expectCode([&] { p.addDenseBlock(skew, vec({0, 0})); }, ErrorCode::MassNotPositiveDefinite);
  EXPECT_EQ(p.blockCount(), 0);
}

TEST(BadInput, FractionalFactorIsRejected) {
  ImpactProblem p;
  RigidBodyInput body;
  body.linearFactor[0] = 0.5;
  expectCode([&] { p.addRigidBody(body); }, ErrorCode::FractionalFactor);
  body = RigidBodyInput{};
  body.angularFactor[2] = 0.25;
  expectCode([&] { p.addRigidBody(body); }, ErrorCode::FractionalFactor);
  body = RigidBodyInput{};
  body.angularFactor[1] = -1;
  expectCode([&] { p.addRigidBody(body); }, ErrorCode::FractionalFactor);
  EXPECT_EQ(p.blockCount(), 0);
}

TEST(BadInput, ZeroNormRowIsRejected) {
  ImpactProblem p;
  const int a = p.addDenseBlock(MatrixX::Identity(2, 2), vec({1, 0}));
  const int b = p.addRigidBody(RigidBodyInput{});
  expectCode([&] { p.addContactRow(a, vec({0, 0}), kNoBlock, VectorX(), 1.0); }, ErrorCode::ZeroNormRow);
  expectCode([&] { p.addBilateralRow(a, vec({0, 0}), kNoBlock, VectorX()); }, ErrorCode::ZeroNormRow);
  expectCode([&] { p.addRigidContact(b, kNoBlock, Vector3::Zero(), Vector3::Zero(), Vector3::Zero(), 1.0); },
             ErrorCode::ZeroNormRow);
  EXPECT_EQ(p.contactCount(), 0);
  EXPECT_EQ(p.bilateralCount(), 0);
}

TEST(BadInput, NonFiniteRowIsRejected) {
  ImpactProblem p;
  const int a = p.addDenseBlock(MatrixX::Identity(2, 2), vec({1, 0}));
  const int b = p.addRigidBody(RigidBodyInput{});
  expectCode([&] { p.addContactRow(a, vec({kNaN, 1}), kNoBlock, VectorX(), 1.0); }, ErrorCode::NonFiniteRow);
  expectCode([&] { p.addContactRow(a, vec({kInf, 1}), kNoBlock, VectorX(), 1.0); }, ErrorCode::NonFiniteRow);
  expectCode([&] { p.addContactRow(a, vec({1, 1}), kNoBlock, VectorX(), 1.0, kNaN); }, ErrorCode::NonFiniteRow);
  expectCode([&] { p.addBilateralRow(a, vec({kNaN, 1}), kNoBlock, VectorX()); }, ErrorCode::NonFiniteRow);
  expectCode([&] { p.addRigidContact(b, kNoBlock, Vector3(kNaN, 0, 1), Vector3::Zero(), Vector3::Zero(), 1.0); },
             ErrorCode::NonFiniteRow);
  expectCode([&] { p.addRigidContact(b, kNoBlock, Vector3::UnitZ(), Vector3(0, kInf, 0), Vector3::Zero(), 1.0); },
             ErrorCode::NonFiniteRow);
  EXPECT_EQ(p.contactCount(), 0);
}

TEST(BadInput, RestitutionOutsideUnitIntervalIsRejected) {
  ImpactProblem p;
  const int a = p.addDenseBlock(MatrixX::Identity(1, 1), vec({1}));
  for (const Scalar bad : {-0.01, 1.01, kNaN, kInf})
    expectCode([&] { p.addContactRow(a, vec({1}), kNoBlock, VectorX(), bad); }, ErrorCode::RestitutionOutOfRange);
  EXPECT_EQ(p.contactCount(), 0);
  // The ends are valid.
  p.addContactRow(a, vec({1}), kNoBlock, VectorX(), 0.0);
  p.addContactRow(a, vec({1}), kNoBlock, VectorX(), 1.0);
  EXPECT_EQ(p.contactCount(), 2);
}

TEST(BadInput, BadBlockIndexIsRejected) {
  ImpactProblem p;
  const int a = p.addDenseBlock(MatrixX::Identity(1, 1), vec({1}));
  expectCode([&] { p.addContactRow(kNoBlock, vec({1}), kNoBlock, VectorX(), 1.0); }, ErrorCode::BadBlockIndex);
  expectCode([&] { p.addContactRow(a + 1, vec({1}), kNoBlock, VectorX(), 1.0); }, ErrorCode::BadBlockIndex);
  expectCode([&] { p.addContactRow(a, vec({1}), 7, vec({1}), 1.0); }, ErrorCode::BadBlockIndex);
  expectCode([&] { p.addContactRow(a, vec({1}), a, vec({-1}), 1.0); }, ErrorCode::BadBlockIndex);
  expectCode([&] { p.addBilateralRow(-5, vec({1}), kNoBlock, VectorX()); }, ErrorCode::BadBlockIndex);
  expectCode([&] { p.addRigidContact(kNoBlock, kNoBlock, Vector3::UnitZ(), Vector3::Zero(), Vector3::Zero(), 1.0); },
             ErrorCode::BadBlockIndex);
  EXPECT_EQ(p.contactCount(), 0);
}

TEST(BadInput, DimensionMismatchIsRejected) {
  ImpactProblem p;
  expectCode([&] { p.addDenseBlock(MatrixX::Identity(2, 3), vec({1, 2})); }, ErrorCode::DimensionMismatch);
  expectCode([&] { p.addDenseBlock(MatrixX::Identity(2, 2), vec({1, 2, 3})); }, ErrorCode::DimensionMismatch);
  expectCode([&] { p.addDenseBlock(MatrixX(0, 0), VectorX()); }, ErrorCode::DimensionMismatch);
  const int a = p.addDenseBlock(MatrixX::Identity(2, 2), vec({1, 0}));
  expectCode([&] { p.addContactRow(a, vec({1, 0, 0}), kNoBlock, VectorX(), 1.0); }, ErrorCode::DimensionMismatch);
  const MatrixX m = MatrixX::Identity(2, 2);
  expectCode([&] { (void)resolveDense(m, vec({1, 0}), MatrixX::Ones(1, 3), 1.0); }, ErrorCode::DimensionMismatch);
  expectCode([&] { (void)resolveDense(m, vec({1, 0}), MatrixX::Ones(2, 2), vec({1}), VectorX()); },
             ErrorCode::DimensionMismatch);
  expectCode([&] { (void)resolveDense(m, vec({1, 0}), MatrixX::Ones(2, 2), vec({1, 1}), vec({0, 0, 0})); },
             ErrorCode::DimensionMismatch);
}

TEST(BadInput, BadOptionsAreRejected) {
  ImpactProblem p;
  const int a = p.addDenseBlock(MatrixX::Identity(1, 1), vec({-1}));
  p.addContactRow(a, vec({1}), kNoBlock, VectorX(), 1.0);
  ImpactResolver resolver;
  const auto reject = [&](auto mutate) {
    ResolveOptions o;
    mutate(o);
    expectCode([&] { (void)resolver.resolve(p, o); }, ErrorCode::BadOption);
  };
  reject([](ResolveOptions& o) { o.reflectionCap = -1; });
  reject([](ResolveOptions& o) { o.feasibilityTolerance = -1e-3; });
  reject([](ResolveOptions& o) { o.feasibilityTolerance = kNaN; });
  reject([](ResolveOptions& o) { o.feasibilityTolerance = 1; });
  reject([](ResolveOptions& o) { o.tieTolerance = 0; });
  reject([](ResolveOptions& o) { o.tieTolerance = kNaN; });
  reject([](ResolveOptions& o) { o.duplicateTolerance = -1; });
  reject([](ResolveOptions& o) { o.certificateTolerance = 2; });
  reject([](ResolveOptions& o) { o.analysisContactLimit = -1; });
  reject([](ResolveOptions& o) { o.analysisContactLimit = 100000; });
  reject([](ResolveOptions& o) { o.enumerationContactLimit = -1; });
  reject([](ResolveOptions& o) { o.enumerationNodeCap = -1; });
  reject([](ResolveOptions& o) { o.plasticDenseLimit = -1; });
  reject([](ResolveOptions& o) { o.plasticIterativeTolerance = 0; });
  reject([](ResolveOptions& o) { o.plasticIterativeTolerance = kNaN; });
  reject([](ResolveOptions& o) { o.plasticIterativeSweepCap = 0; });
  // Valid options on the same problem resolve.
  EXPECT_NO_THROW((void)resolver.resolve(p, ResolveOptions{}));
}

}  // namespace
}  // namespace propimpact
