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

// A polyhedron rattling on its corners over a one-point manifold meets one
// corner a step (Bullet's convex–plane contact holds the deepest vertex), and
// each corner's impact only cancels that step's gravity: the centre of mass
// of a 1e6 kg box kept falling at 0.165 m/s while every corner was reflected,
// and the box sank one corner after another (world fuzz findings
// world-heavy-box-on-one-corner-sinks-at-60-hz and
// world-tumbling-box-sinks-through-the-floor-at-60-hz). The corner's overlap
// came from one step's arrival, so the body is moved out along the normal by
// what exceeds the slop, after Bullet's pass. A translation: no velocity and
// no turn, so neither kinetic energy nor angular momentum changes. Bullet's
// split impulse turns the body as well, and a flat box spinning about its
// axis of 25 times less inertia, pushed out that way every step, spun up
// (2 to 7.8 rad/s in 400 substeps, even without Bullet's gyroscopic term).
void liftDeepVertex(Island& island, const IslandContact& c, Scalar overlapSlop) {
  const bool dynamicA = c.bodyA >= 0;
  IslandBody& st = island.bodies[static_cast<std::size_t>(dynamicA ? c.bodyA : c.bodyB)];
  const Scalar excess = -Scalar(c.point->getDistance()) - overlapSlop;
  if (excess > st.lift.norm()) st.lift = (dynamicA ? excess : -excess) * c.normal;
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
    // A new vertex deeper than the slop lifts its body out of a static or
    // kinematic partner (liftDeepVertex); its point is then what it would be
    // at the slop, so no push of its own. Other points as before.
    const bool deepNewVertex = c.newVertex && (c.bodyA < 0 || c.bodyB < 0) && c.point->getDistance() < -overlapSlop;
    if (deepNewVertex) liftDeepVertex(island, c, overlapSlop);
    if (endOfStep > c.restingSpeed)
      resting.hide(*c.point);
    else if (deepNewVertex)
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
