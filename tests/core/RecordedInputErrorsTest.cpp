// A simulation step must not throw (issue 12): under InputErrors::Record the
// builders reject invalid input by returning kRejected and recording its
// code, leave the problem as it was, and every input they reject is one the
// default mode throws for, with the same code.
#include <gtest/gtest.h>

#include <functional>
#include <limits>
#include <vector>

#include "propimpact/core/ImpactProblem.h"
#include "propimpact/core/ImpactResolver.h"

namespace propimpact {
namespace {

constexpr Scalar kNaN = std::numeric_limits<Scalar>::quiet_NaN();

RigidBodyInput unitBall() {
  RigidBodyInput b;
  b.inverseInertiaWorld = Matrix3::Identity() * 2.5;
  b.linearVelocity = Vector3(1, 0, 0);
  return b;
}

struct BadInput {
  const char* what;
  ErrorCode code;
  std::function<int(ImpactProblem&)> add;  // on a problem holding one rigid ball (block 0)
};

std::vector<BadInput> badInputs() {
  const Vector3 n = Vector3::UnitX();
  return {
      {"NaN inverse mass", ErrorCode::NonFiniteMass,
       [](ImpactProblem& p) { RigidBodyInput b = unitBall(); b.inverseMass = kNaN; return p.addRigidBody(b); }},
      {"zero inverse mass", ErrorCode::NonPositiveMass,
       [](ImpactProblem& p) { RigidBodyInput b = unitBall(); b.inverseMass = 0; return p.addRigidBody(b); }},
      {"infinite velocity", ErrorCode::NonFiniteVelocity,
       [](ImpactProblem& p) {
         RigidBodyInput b = unitBall();
         b.angularVelocity[1] = std::numeric_limits<Scalar>::infinity();
         return p.addRigidBody(b);
       }},
      {"fractional factor", ErrorCode::FractionalFactor,
       [](ImpactProblem& p) { RigidBodyInput b = unitBall(); b.linearFactor[2] = 0.5; return p.addRigidBody(b); }},
      {"indefinite inertia", ErrorCode::NonPositiveMass,
       [](ImpactProblem& p) {
         RigidBodyInput b = unitBall();
         b.inverseInertiaWorld(2, 2) = -1;
         return p.addRigidBody(b);
       }},
      {"dense mass not SPD", ErrorCode::MassNotPositiveDefinite,
       [](ImpactProblem& p) { return p.addDenseBlock(-MatrixX::Identity(2, 2), VectorX::Zero(2)); }},
      {"NaN contact normal", ErrorCode::NonFiniteRow,
       [n](ImpactProblem& p) { return p.addRigidContact(0, kNoBlock, Vector3(kNaN, 0, 0), -0.5 * n, Vector3::Zero(), 1); }},
      {"zero contact normal", ErrorCode::ZeroNormRow,
       [n](ImpactProblem& p) { return p.addRigidContact(0, kNoBlock, Vector3::Zero(), -0.5 * n, Vector3::Zero(), 1); }},
      {"restitution 2", ErrorCode::RestitutionOutOfRange,
       [n](ImpactProblem& p) { return p.addRigidContact(0, kNoBlock, n, -0.5 * n, Vector3::Zero(), 2); }},
      {"contact on a missing block", ErrorCode::BadBlockIndex,
       [n](ImpactProblem& p) { return p.addRigidContact(7, kNoBlock, n, -0.5 * n, Vector3::Zero(), 1); }},
      {"zero bilateral row", ErrorCode::ZeroNormRow,
       [](ImpactProblem& p) { return p.addBilateralRow(0, VectorX::Zero(6), kNoBlock, VectorX()); }},
      {"bilateral row of the wrong size", ErrorCode::DimensionMismatch,
       [](ImpactProblem& p) { return p.addBilateralRow(0, VectorX::Ones(3), kNoBlock, VectorX()); }},
      {"contact row naming one block twice", ErrorCode::BadBlockIndex,
       [](ImpactProblem& p) { return p.addContactRow(0, VectorX::Ones(6), 0, VectorX::Ones(6), 1); }},
  };
}

TEST(RecordedInputErrors, RejectedWithTheThrownCodeAndTheProblemUnchanged) {
  for (const BadInput& bad : badInputs()) {
    SCOPED_TRACE(bad.what);
    ImpactProblem thrown;
    thrown.addRigidBody(unitBall());
    try {
      bad.add(thrown);
      ADD_FAILURE() << "the default mode accepted it";
    } catch (const InputError& e) {
      EXPECT_EQ(e.code(), bad.code);
    }

    ImpactProblem recorded;
    recorded.setInputErrors(InputErrors::Record);
    recorded.addRigidBody(unitBall());
    const Index dofs = recorded.dofCount();
    const int contacts = recorded.contactCount();
    const int bilaterals = recorded.bilateralCount();
    int id = 0;
    EXPECT_NO_THROW(id = bad.add(recorded));
    EXPECT_EQ(id, kRejected);
    EXPECT_EQ(recorded.rejectedCount(), 1);
    EXPECT_EQ(recorded.lastError(), bad.code);
    EXPECT_EQ(recorded.dofCount(), dofs);
    EXPECT_EQ(recorded.contactCount(), contacts);
    EXPECT_EQ(recorded.bilateralCount(), bilaterals);
  }
}

// What was accepted still resolves as it would have: a rejected contact is
// simply not there.
TEST(RecordedInputErrors, AcceptedInputResolvesAsWithoutTheRejectedOne) {
  const Vector3 n = Vector3::UnitX();
  ImpactProblem recorded;
  recorded.setInputErrors(InputErrors::Record);
  const int ball = recorded.addRigidBody(unitBall());
  EXPECT_EQ(recorded.addRigidContact(ball, kNoBlock, Vector3(kNaN, 0, 0), Vector3::Zero(), Vector3::Zero(), 1), kRejected);
  const int wall = recorded.addRigidContact(kNoBlock, ball, n, Vector3::Zero(), 0.5 * n, 1);
  recorded.setRestingSpeed(wall, -1);  // rejected: the contact keeps resting speed 0
  EXPECT_EQ(recorded.rejectedCount(), 2);

  ImpactProblem clean;
  clean.addRigidBody(unitBall());
  clean.addRigidContact(kNoBlock, 0, n, Vector3::Zero(), 0.5 * n, 1);
  ImpactResolver resolver;
  const ImpactResult a = resolver.resolve(recorded);
  const ImpactResult b = resolver.resolve(clean);
  EXPECT_EQ(VectorX(a.velocity), VectorX(b.velocity));
  EXPECT_DOUBLE_EQ(a.velocity[0], -1);  // the ball bounces off the wall
  recorded.clear();
  EXPECT_EQ(recorded.rejectedCount(), 0);
}

TEST(RecordedInputErrors, OptionsErrorNamesWhatResolveWouldThrowFor) {
  ResolveOptions good;
  EXPECT_EQ(optionsError(good), nullptr);
  ResolveOptions bad;
  bad.reflectionCap = -1;
  ASSERT_NE(optionsError(bad), nullptr);
  ImpactProblem p;
  p.addRigidBody(unitBall());
  ImpactResolver resolver;
  try {
    (void)resolver.resolve(p, bad);
    ADD_FAILURE() << "resolve accepted a negative cap";
  } catch (const InputError& e) {
    EXPECT_EQ(e.code(), ErrorCode::BadOption);
    EXPECT_NE(std::string(e.what()).find(optionsError(bad)), std::string::npos);
  }
}

}  // namespace
}  // namespace propimpact
