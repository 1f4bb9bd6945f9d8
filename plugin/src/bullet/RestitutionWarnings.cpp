#include "RestitutionWarnings.h"

#include <algorithm>

namespace propimpact::bullet_detail {

void RestitutionWarnings::note(const btManifoldPoint& point, const btCollisionObject* objectA,
                               const btCollisionObject* objectB, StepReport& report) {
  const btScalar combined = point.m_combinedRestitution;
  if (combined >= 0 && combined <= 1) return;
  ++report.restitutionClamped;
  const auto pair = objectA < objectB ? std::make_pair<const void*, const void*>(objectA, objectB)
                                      : std::make_pair<const void*, const void*>(objectB, objectA);
  const auto at = std::lower_bound(m_warnedPairs.begin(), m_warnedPairs.end(), pair);
  if (at != m_warnedPairs.end() && *at == pair) return;
  m_warnedPairs.insert(at, pair);
  report.restitutionWarnings.push_back(RestitutionWarning{objectA, objectB, double(combined)});
}

}  // namespace propimpact::bullet_detail
