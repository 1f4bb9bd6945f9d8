#pragma once
// Stage "write-back": a resolved cluster's outcome back into Bullet and the report.
//
// Velocities: v+ − ½Δv is stored, so that Bullet's pass, which adds the whole
// kick, ends at v+ + ½Δv (kick–reflect–kick, SPEC §7). Contacts of the
// cluster: one that separates by the end of the step is hidden from Bullet's
// pass (no friction, no position correction and no second restitution during
// an impact: the paper's impacts are frictionless); one that stays in contact
// gets ERP 0 (no push-out through a velocity) and a position-only push-out of
// its overlap beyond the slop, now and, through the impacted-pair memory,
// while the pair stays in contact. Against a static or kinematic body the
// overlap beyond the slop lifts the body out instead (Island::liftOut,
// applied after Bullet's pass), and so does a polyhedron's new vertex that
// separates.

#include <vector>

#include "ClusterFriction.h"
#include "ContactHistory.h"
#include "Island.h"
#include "RestingPass.h"
#include "propimpact/bullet/StepReport.h"
#include "propimpact/core/ImpactProblem.h"
#include "propimpact/core/ImpactResult.h"

namespace propimpact::bullet_detail {

/// Writes one cluster's outcome; \p report may be null (not kept), \p friction
/// null when impact friction is off. \p firstReflection is scratch space for
/// the report's reflection order (kept by the caller so that a warm step does
/// not allocate). \p overlapSlop is SolverSettings::impactOverlapSlop.
void writeBack(const ImpactProblem& problem, const ImpactResult& result, const std::vector<int>& blockBody, Island& island,
               ContactHistory& history, RestingPass& resting, Scalar overlapSlop, ClusterReport* report,
               std::vector<int>& firstReflection, const ClusterFriction* friction = nullptr);

/// Moves each body that a deep point in a static or kinematic body lifts
/// (IslandBody::lift, Island::liftOut) out by its lift, and an impacted body
/// whose step of \p dt would end a corner deeper than \p overlapSlop in its
/// plane by that excess: positions only, after Bullet's pass.
void applyLifts(Island& island, Scalar dt, Scalar overlapSlop);

/// Speculative points an impact now drives together must not be stopped
/// plastically at the surface by Bullet's pass: hidden, so the bodies arrive
/// and are reflected next step.
void hideApproachingSpeculative(const Island& island, RestingPass& resting);

}  // namespace propimpact::bullet_detail
