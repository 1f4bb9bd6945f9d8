#include "WriteBack.h"

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

}  // namespace

void applyLifts(Island& island) {
  for (IslandBody& st : island.bodies) {
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
