#pragma once
// Stage "cluster problem": the impact problem of one seeded component, built
// from the gathered island — rigid blocks at mid-step velocity (kick–reflect–
// kick, SPEC §7), one contact row per touching point (seeds marked, resting
// speeds from the Zeno rule), and the joints' equality rows.

#include <vector>

#include "Components.h"
#include "Island.h"
#include "JointRows.h"
#include "propimpact/core/ImpactProblem.h"

namespace propimpact::bullet_detail {

/// Builds the problem of one component.
class ClusterProblem {
 public:
  void build(int root, Island& island, Components& components, btTypedConstraint** constraints, int numConstraints,
             const btContactSolverInfo& info, ImpactProblem& problem);
  /// Island body of each block of the last problem.
  [[nodiscard]] const std::vector<int>& blockBody() const { return m_blockBody; }

 private:
  void addBodies(int root, Island& island, Components& components, ImpactProblem& problem);
  void addContacts(int root, Island& island, Components& components, ImpactProblem& problem);

  std::vector<int> m_blockBody;
  JointRows m_joints;
};

}  // namespace propimpact::bullet_detail
