// The friction stage's input under InputErrors::Record (a Bullet step must not
// throw, issue 12): FrictionRows refuses what its default mode throws for,
// with the same code, adds nothing of a refused entry, and the stage then
// gives the same outcome as if the entry had never been offered.
#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <limits>
#include <vector>

#include "propimpact/core/ImpactFriction.h"
#include "propimpact/core/ImpactProblem.h"
#include "propimpact/core/ImpactResolver.h"

namespace propimpact {
namespace {

constexpr Scalar kNaN = std::numeric_limits<Scalar>::quiet_NaN();

// A unit ball falling obliquely onto the ground (contact 0) and touching a
// second ball sideways (contact 1).
ImpactProblem ballOnGround() {
  ImpactProblem p;
  RigidBodyInput ball;
  ball.inverseInertiaWorld = Matrix3::Identity() * 2.5;
  ball.linearVelocity = Vector3(1, -1, 0);
  p.addRigidBody(ball);
  ball.linearVelocity = Vector3::Zero();
  p.addRigidBody(ball);
  const Vector3 up = Vector3::UnitY();
  const Vector3 side = Vector3::UnitX();
  p.addRigidContact(0, kNoBlock, up, -0.5 * up, Vector3::Zero(), 0.5);
  p.addRigidContact(1, 0, side, -0.5 * side, 0.5 * side, 0.5);  // ball 1 at x = 1
  return p;
}

struct BadFriction {
  const char* what;
  ErrorCode code;
  std::function<bool(FrictionRows&, const ImpactProblem&)> add;
};

std::vector<BadFriction> badFriction() {
  const Vector3 t1 = Vector3::UnitX();
  const Vector3 t2 = Vector3::UnitZ();
  const Vector3 offset = -0.5 * Vector3::UnitY();
  return {
      {"contact out of range", ErrorCode::BadBlockIndex,
       [=](FrictionRows& f, const ImpactProblem& p) { return f.addRigid(p, 7, 0, kNoBlock, 1, t1, t2, offset, Vector3::Zero()); }},
      {"NaN mu", ErrorCode::BadFriction,
       [=](FrictionRows& f, const ImpactProblem& p) { return f.addRigid(p, 0, 0, kNoBlock, kNaN, t1, t2, offset, Vector3::Zero()); }},
      {"negative mu", ErrorCode::BadFriction,
       [=](FrictionRows& f, const ImpactProblem& p) { return f.addRigid(p, 0, 0, kNoBlock, -1, t1, t2, offset, Vector3::Zero()); }},
      {"bodies of another contact", ErrorCode::BadBlockIndex,
       [=](FrictionRows& f, const ImpactProblem& p) { return f.addRigid(p, 0, 1, kNoBlock, 1, t1, t2, offset, Vector3::Zero()); }},
      {"non-finite bias", ErrorCode::NonFiniteRow,
       [=](FrictionRows& f, const ImpactProblem& p) {
         return f.addRigid(p, 0, 0, kNoBlock, 1, t1, t2, offset, Vector3::Zero(), Eigen::Vector2d(kNaN, 0));
       }},
      {"non-finite tangent", ErrorCode::NonFiniteRow,
       [=](FrictionRows& f, const ImpactProblem& p) {
         return f.addRigid(p, 0, 0, kNoBlock, 1, Vector3(kNaN, 0, 0), t2, offset, Vector3::Zero());
       }},
      {"wrong tangent size", ErrorCode::DimensionMismatch,
       [](FrictionRows& f, const ImpactProblem& p) { return f.add(p, 0, 1, MatrixX::Zero(2, 5), MatrixX()); }},
      {"second entry", ErrorCode::BadFriction,
       [=](FrictionRows& f, const ImpactProblem& p) { return f.addRigid(p, 1, 1, 0, 1, t2, Vector3::UnitY(), offset, offset); }},
  };
}

// The entry every case starts from: friction at the side contact.
void addSideFriction(FrictionRows& f, const ImpactProblem& p) {
  ASSERT_TRUE(f.addRigid(p, 1, 1, 0, 0.3, Vector3::UnitZ(), Vector3::UnitY(), -0.5 * Vector3::UnitX(), 0.5 * Vector3::UnitX()));
}

TEST(RecordedFrictionErrors, EachRefusalMatchesTheThrownCodeAndAddsNothing) {
  const ImpactProblem p = ballOnGround();
  for (const BadFriction& bad : badFriction()) {
    FrictionRows thrown;
    addSideFriction(thrown, p);
    try {
      bad.add(thrown, p);
      ADD_FAILURE() << bad.what << ": accepted in Throw mode";
    } catch (const InputError& e) {
      EXPECT_EQ(e.code(), bad.code) << bad.what;
    }

    FrictionRows recorded;
    recorded.setInputErrors(InputErrors::Record);
    addSideFriction(recorded, p);
    bool added = true;
    EXPECT_NO_THROW(added = bad.add(recorded, p)) << bad.what;
    EXPECT_FALSE(added) << bad.what;
    EXPECT_EQ(recorded.rejectedCount(), 1) << bad.what;
    EXPECT_EQ(recorded.lastError(), bad.code) << bad.what;
    EXPECT_EQ(recorded.size(), 1) << bad.what << ": a refused entry left something behind";
  }
}

TEST(RecordedFrictionErrors, RefusedEntriesChangeNoOutcome) {
  const ImpactProblem p = ballOnGround();
  ImpactResolver resolver;
  ImpactResult plain = resolver.resolve(p, ResolveOptions{});
  ImpactResult withRefusals = plain;

  FrictionRows clean;
  addSideFriction(clean, p);
  ASSERT_TRUE(clean.addRigid(p, 0, 0, kNoBlock, 0.8, Vector3::UnitX(), Vector3::UnitZ(), -0.5 * Vector3::UnitY(), Vector3::Zero()));
  FrictionRows recorded;
  recorded.setInputErrors(InputErrors::Record);
  addSideFriction(recorded, p);
  for (const BadFriction& bad : badFriction()) bad.add(recorded, p);
  ASSERT_TRUE(recorded.addRigid(p, 0, 0, kNoBlock, 0.8, Vector3::UnitX(), Vector3::UnitZ(), -0.5 * Vector3::UnitY(), Vector3::Zero()));
  EXPECT_EQ(recorded.rejectedCount(), static_cast<int>(badFriction().size()));

  ImpactFriction stage;
  FrictionResult a;
  FrictionResult b;
  stage.apply(p, clean, ResolveOptions{}, FrictionOptions{}, plain, a);
  stage.apply(p, recorded, ResolveOptions{}, FrictionOptions{}, withRefusals, b);
  ASSERT_EQ(plain.velocity.size(), withRefusals.velocity.size());
  for (Index k = 0; k < plain.velocity.size(); ++k) EXPECT_EQ(plain.velocity[k], withRefusals.velocity[k]) << k;
  EXPECT_EQ(a.outcome, b.outcome);
  // The ground contact's friction acted: it set the ball spinning about z.
  EXPECT_GT(std::abs(plain.velocity[5]), 1e-3);

  recorded.clear();
  EXPECT_EQ(recorded.rejectedCount(), 0);
}

}  // namespace
}  // namespace propimpact
