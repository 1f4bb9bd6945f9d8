#pragma once
// Stage "cluster problem": the impact problem of one seeded component, built
// from the gathered island — rigid blocks at mid-step velocity (kick–reflect–
// kick, SPEC §7), one contact row per touching point (seeds marked, resting
// speeds from the Zeno rule), and the joints' equality rows.
//
// A component may be a whole settled pile (1,000 bodies, 3,000 contacts) while
// its impact reaches a few of them. Such a component's problem can be built
// "near" its seeds: every body of the component, but only the contacts of the
// bodies marked near. When the near problem's outcome only ever involved near
// bodies, it is the whole component's outcome bit for bit (see
// ClusterProblem.cpp for why); otherwise the near set widens and, failing
// that, the whole component is built.

#include <vector>

#include "Components.h"
#include "Island.h"
#include "JointRows.h"
#include "propimpact/core/ImpactProblem.h"
#include "propimpact/core/ImpactResult.h"

namespace propimpact::bullet_detail {

/// Builds the problem of one component.
class ClusterProblem {
 public:
  /// Every body and contact of the component.
  void build(int root, Island& island, Components& components, btTypedConstraint** constraints, int numConstraints,
             const btContactSolverInfo& info, ImpactProblem& problem);
  /// Marks the bodies of the component's seeds as near. False when a near
  /// problem could differ from the whole one (joints, locked axes, a moving
  /// kinematic partner, clamped restitution): build the whole component then.
  bool startNear(int root, Island& island, Components& components, btTypedConstraint** constraints, int numConstraints);
  /// Every body of the component and the contacts of near bodies. False when
  /// that is not worth it (more than half the component's contacts) or the
  /// scale argument fails (a pair outside holds most of the energy).
  bool buildNear(int root, Island& island, Components& components, ImpactProblem& problem);
  /// After resolving a near problem: whether its outcome is the whole
  /// component's. If not, the near set widens to the bodies it involved.
  bool nearSuffices(int root, const Island& island, Components& components, const ImpactResult& result);
  /// Island body of each block of the last problem.
  [[nodiscard]] const std::vector<int>& blockBody() const { return m_blockBody; }
  /// Bodies, contacts and joint rows the last problem refused (Record mode):
  /// its bodies' and its latest rows', not the rows of a near attempt before.
  [[nodiscard]] int rejectedInputs(const ImpactProblem& problem) const {
    return m_bodyRejections + problem.rejectedCount() - m_rowRejectionsBefore;
  }
  /// Call once per component before buildNear / build: the problem's bodies
  /// are kept across its near attempts and its whole build, not across components.
  void forgetBodies() { m_bodiesFor = -1; }

 private:
  /// Fills m_energy for the bodies of the last build (once per build).
  void computeEnergies(const Island& island, const ImpactProblem& problem);
  void addBodies(int root, Island& island, Components& components, ImpactProblem& problem);
  /// The component's bodies into \p problem, or only its rows cleared when
  /// they are there already (a near attempt before): the same blocks either way.
  void startProblem(int root, Island& island, Components& components, ImpactProblem& problem);
  void addContacts(int root, Island& island, Components& components, ImpactProblem& problem);
  void addRing(int root, const Island& island, Components& components);
  [[nodiscard]] bool near(int body) const { return body < 0 || m_near[static_cast<std::size_t>(body)]; }

  std::vector<int> m_blockBody;
  std::vector<double> m_energy;  // per island body: kinetic energy at mid-step velocity (last build)
  bool m_energiesKnown = false;  // m_energy holds the last build's bodies
  std::vector<char> m_near;      // per island body: its contacts are in the near problem
  std::vector<int> m_ring;           // addRing's scratch
  std::vector<int> m_islandContact;  // per problem contact: its index in island.contacts
  JointRows m_joints;
  int m_bodiesFor = -1;  // the root whose bodies the problem holds, or -1
  int m_bodyRejections = 0;
  int m_rowRejectionsBefore = 0;
};

}  // namespace propimpact::bullet_detail
