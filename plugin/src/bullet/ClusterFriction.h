#pragma once
// Stage "cluster friction" (SolverSettings::impactFriction): the friction rows
// of one cluster problem — per impact contact Bullet's m_combinedFriction as
// μ (a NaN, infinite or negative coefficient is clamped to 0 and counted),
// two tangent directions orthogonal to the normal (the cone is isotropic, so
// which two does not matter), a kinematic partner's tangential motion as the
// rows' constant terms — then the core's friction stage on the resolved
// outcome (ImpactFriction.h).

#include <cstdint>
#include <vector>

#include "Island.h"
#include "propimpact/core/ImpactFriction.h"
#include "propimpact/core/ImpactProblem.h"
#include "propimpact/core/ImpactResult.h"

namespace propimpact::bullet_detail {

/// Builds and applies the friction of one cluster.
class ClusterFriction {
 public:
  /// Friction rows for every cluster contact of \p problem (built from
  /// \p island; result.inCluster), then the friction stage on \p result. Returns the number of contacts
  /// whose coefficient was clamped. Never throws: a rejected row is left
  /// frictionless.
  std::int64_t apply(const Island& island, const ImpactProblem& problem, const ResolveOptions& options,
                     ImpactResult& result);

  /// Capacity for any cluster of an island within \p bounds, so that a cluster
  /// larger than any before allocates nothing (issue 12, item 5).
  void reserve(const ProblemBounds& bounds);

  /// What the stage did (valid after apply()).
  [[nodiscard]] const FrictionResult& result() const { return m_result; }
  /// μ used at problem contact \p contact.
  [[nodiscard]] Scalar coefficient(int contact) const { return m_mu[static_cast<std::size_t>(contact)]; }
  /// World tangential impulse on body A at problem contact \p contact, and its state.
  [[nodiscard]] Vector3 tangentialImpulse(int contact) const;
  [[nodiscard]] FrictionState state(int contact) const;

 private:
  FrictionRows m_rows;
  ImpactFriction m_stage;
  FrictionResult m_result;
  std::vector<int> m_entryOf;       // per problem contact: FrictionRows entry or −1
  std::vector<Vector3> m_tangents;  // per problem contact: t1, t2
  std::vector<Scalar> m_mu;
};

}  // namespace propimpact::bullet_detail
