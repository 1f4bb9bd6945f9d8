#include "WriteBack.h"

#include <LinearMath/btTransformUtil.h>

#include "AheadGeometry.h"
#include "Conversions.h"

namespace propimpact::bullet_detail {
namespace {

void writeVelocities(const ImpactProblem& problem, const ImpactResult& r, const std::vector<int>& blockBody,
                     Island& island, ClusterReport* report) {
  for (int blk = 0; blk < problem.blockCount(); ++blk) {
    const BlockLayout& layout = problem.block(blk);
    const auto after = r.velocity.segment<6>(layout.velocityOffset);
    if (after == Eigen::Map<const Vector6>(problem.velocityData() + layout.velocityOffset)) continue;
    IslandBody& st = island.bodies[static_cast<std::size_t>(blockBody[static_cast<std::size_t>(blk)])];
    st.body->setLinearVelocity(toBullet(after.head<3>() - 0.5 * st.kickLinear));
    st.body->setAngularVelocity(toBullet(after.tail<3>() - 0.5 * st.kickAngular));
    st.impacted = true;
    if (report) report->bodies.push_back(st.body);
  }
}

Scalar separationOf(const ImpactProblem& problem, const ImpactResult& r, int contact) {
  const RowLayout& row = problem.contact(contact);
  Scalar separation = row.bias;
  for (const RowTerm& t : row.terms) {
    if (t.block == kNoBlock) continue;
    const BlockLayout& layout = problem.block(t.block);
    separation += Eigen::Map<const Vector6>(problem.rowData() + t.coefficientOffset).dot(r.velocity.segment<6>(layout.velocityOffset));
  }
  return separation;
}

ContactReport contactReport(const IslandContact& c, const ImpactResult& r, Scalar restitution, Scalar separation,
                            int firstReflection) {
  ContactReport cr;
  cr.bodyA = c.objectA;
  cr.bodyB = c.objectB;
  cr.restitution = restitution;
  cr.impulse = r.impulses[c.contact];
  cr.approachSpeed = c.approachMid;
  cr.separationSpeed = separation;
  cr.seed = c.seed;
  cr.firstReflection = firstReflection;
  for (int k = 0; k < 3; ++k) {
    cr.point[k] = c.point->getPositionWorldOnB()[k];
    cr.normal[k] = c.normal[k];
  }
  return cr;
}

// An impact on a point far from the centre of mass, whose effective mass is
// mostly rotational, can leave a body spinning so fast that the step's own
// turn carries a point back into the plane it was reflected from: a hull
// whose one point sat 0.9 m from its centre of mass left an impact at
// 65 rad/s, Bullet turned it 1.09 rad (π/4 at most: integrateTransform's
// limit) in that step, and the point, separating at mid-step, ended the step
// 0.37 m deep, the whole body under the floor (world fuzz finding
// world-impact-spins-a-far-hull-point-through-the-floor-within-one-step-at-60-hz).
// The step's motion is known: Bullet integrates the pose from the velocities
// the impacts and the pass leave. Where it would end a point of an impacted
// body deeper than the slop in the plane the body's corners were taken
// against, the body is lifted by that excess now, the lift a deep new vertex
// would get at the next step, one step early. Positions only, as liftOut.
void liftOutOfTheStep(IslandBody& st, Scalar dt, Scalar overlapSlop) {
  btTransform pose = st.body->getWorldTransform();
  pose.setOrigin(pose.getOrigin() + toBullet(st.lift));
  btTransform predicted;
  btTransformUtil::integrateTransform(pose, st.body->getLinearVelocity(), st.body->getAngularVelocity(), btScalar(dt),
                                      predicted);
  PlaneFeature deepest[1];
  btVector3 normal;
  if (planeFeaturesAt(*st.body, predicted, *st.cornersAgainst, deepest, 1, normal) == 0) return;
  const Scalar excess = -Scalar(deepest[0].distance) - overlapSlop;
  if (excess > 0) st.lift += excess * toEigen(normal);
}

}  // namespace

void applyLifts(Island& island, Scalar dt, Scalar overlapSlop) {
  for (IslandBody& st : island.bodies) {
    if (st.impacted && st.cornersAgainst) liftOutOfTheStep(st, dt, overlapSlop);
    if (st.lift.isZero()) continue;
    st.body->getWorldTransform().setOrigin(st.body->getWorldTransform().getOrigin() + toBullet(st.lift));
  }
}

void writeBack(const ImpactProblem& problem, const ImpactResult& r, const std::vector<int>& blockBody, Island& island,
               ContactHistory& history, RestingPass& resting, Scalar overlapSlop, ClusterReport* report,
               std::vector<int>& firstReflection, const ClusterFriction* friction) {
  writeVelocities(problem, r, blockBody, island, report);
  if (report) {
    firstReflection.assign(static_cast<std::size_t>(problem.contactCount()), -1);
    for (std::size_t k = r.sequence.size(); k-- > 0;)
      firstReflection[static_cast<std::size_t>(r.sequence[k])] = static_cast<int>(k);
  }
  for (IslandContact& c : island.contacts) {
    if (c.contact < 0) continue;
    if (!r.inCluster[static_cast<std::size_t>(c.contact)]) {
      c.contact = -1;  // never reached: an ordinary resting contact
      continue;
    }
    const Scalar separation = separationOf(problem, r, c.contact);
    const Scalar endOfStep = separation + 0.5 * c.kick;
    // A point deeper than the slop in a static or kinematic partner lifts its
    // body out (Island::liftOut) where it would be pushed out, and a new
    // vertex, whose overlap is one step's arrival, even when it separates;
    // the point is then what it would be at the slop, so no push of its own.
    const bool separates = endOfStep > c.restingSpeed;
    // One of our ahead points that stays in contact: into Bullet's pass (RestingPass::admit).
    if (!separates && c.ahead) {
      if (btManifoldPoint* admitted = resting.admit(*c.ahead, *c.point)) c.point = admitted;
      c.ahead = nullptr;
    }
    const bool lifted = (c.newVertex || !separates) && island.liftOut(c, overlapSlop);
    if (separates)
      resting.hide(*c.point);
    else if (lifted)
      resting.keepOverlap(*c.point);
    else
      resting.pushOut(*c.point);  // supported by Bullet's pass, pushed out through positions only
    // Either way the pair is remembered: one that separates more slowly than
    // its overlap (a wall contact in a cluster that ends at 4 cm/s with 1 cm
    // of overlap) still overlaps next step, where Bullet's pass would push it
    // out at erp·depth/dt and add energy.
    history.addImpactedPair(c.objectA, c.objectB);
    if (!report) continue;
    report->contacts.push_back(contactReport(c, r, problem.contact(c.contact).restitution, separation,
                                             firstReflection[static_cast<std::size_t>(c.contact)]));
    if (friction) {
      ContactReport& cr = report->contacts.back();
      cr.friction = friction->coefficient(c.contact);
      const Vector3 t = friction->tangentialImpulse(c.contact);
      for (int k = 0; k < 3; ++k) cr.tangentialImpulse[k] = t[k];
      cr.frictionState = friction->state(c.contact);
    }
  }
}

void hideApproachingSpeculative(const Island& island, RestingPass& resting) {
  const auto impacted = [&](int body) { return body >= 0 && island.bodies[static_cast<std::size_t>(body)].impacted; };
  for (const IslandContact& c : island.speculative) {
    if (!c.point) continue;  // a deferred ahead point: never in Bullet's pass
    if (c.persistent && !impacted(c.bodyA) && !impacted(c.bodyB)) continue;
    const Scalar approach =
        c.normal.dot(pointVelocity(c.objectA, c.offsetA) - pointVelocity(c.objectB, c.offsetB)) + 0.5 * c.kick;
    if (approach < -c.restingSpeed) resting.hide(*c.point);
  }
}

}  // namespace propimpact::bullet_detail
