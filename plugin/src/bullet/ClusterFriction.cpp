#include "ClusterFriction.h"

#include <cmath>

#include "Conversions.h"

namespace propimpact::bullet_detail {
std::int64_t ClusterFriction::apply(const Island& island, const ImpactProblem& problem, const ResolveOptions& options,
                                    ImpactResult& result) {
  const auto count = static_cast<std::size_t>(problem.contactCount());
  m_rows.clear();
  m_rows.setInputErrors(InputErrors::Record);  // nothing throws inside a step
  m_entryOf.assign(count, -1);
  m_tangents.assign(2 * count, Vector3::Zero());
  m_mu.assign(count, 0);
  std::int64_t clamped = 0;
  const auto blockOf = [&](int body) { return body >= 0 ? island.bodies[static_cast<std::size_t>(body)].block : kNoBlock; };
  for (const IslandContact& c : island.contacts) {
    if (c.contact < 0) continue;
    const auto at = static_cast<std::size_t>(c.contact);
    Scalar mu = c.point->m_combinedFriction;
    if (!std::isfinite(mu) || mu < 0) {
      mu = 0;  // documented clamp (SolverSettings::impactFriction), counted in StepReport::frictionClamped
      ++clamped;
    }
    m_mu[at] = mu;
    // The stage gives friction to cluster contacts only; rows for the rest of
    // the touching component would be built and dropped.
    if (mu == 0 || !result.inCluster[at]) continue;
    const Vector3 t1 = c.normal.unitOrthogonal();
    const Vector3 t2 = c.normal.cross(t1);
    m_tangents[2 * at] = t1;
    m_tangents[2 * at + 1] = t2;
    // A kinematic partner's motion enters the tangent rows as constants, as it
    // enters the normal row (Island::classify).
    const Vector3 still = (c.bodyA < 0 ? pointVelocity(c.objectA, c.offsetA) : Vector3::Zero()) -
                          (c.bodyB < 0 ? pointVelocity(c.objectB, c.offsetB) : Vector3::Zero());
    // Not expected to be refused (the contact row was accepted with the same
    // data); if it is, the contact gets no friction.
    if (m_rows.addRigid(problem, c.contact, blockOf(c.bodyA), blockOf(c.bodyB), mu, t1, t2, c.offsetA, c.offsetB,
                        Eigen::Vector2d(t1.dot(still), t2.dot(still))))
      m_entryOf[at] = m_rows.size() - 1;
    else
      m_mu[at] = 0;
  }
  // Cannot throw: the result is this problem's and FrictionOptions{} is valid.
  m_stage.apply(problem, m_rows, options, FrictionOptions{}, result, m_result);
  return clamped;
}

void ClusterFriction::reserve(const ProblemBounds& bounds) {
  const auto contacts = static_cast<std::size_t>(bounds.contacts);
  const auto reserve = [](auto& buffer, std::size_t count) {
    if (buffer.capacity() < count) buffer.reserve(count);
  };
  reserve(m_entryOf, contacts);
  reserve(m_tangents, 2 * contacts);
  reserve(m_mu, contacts);
  reserve(m_result.tangentialImpulse, contacts);
  reserve(m_result.normalCorrection, contacts);
  reserve(m_result.slipSpeed, contacts);
  reserve(m_result.state, contacts);
  m_rows.reserve(bounds);
  m_stage.reserve(bounds);
}

Vector3 ClusterFriction::tangentialImpulse(int contact) const {
  const int k = m_entryOf[static_cast<std::size_t>(contact)];
  if (k < 0) return Vector3::Zero();
  const Eigen::Vector2d& t = m_result.tangentialImpulse[static_cast<std::size_t>(k)];
  return t[0] * m_tangents[2 * static_cast<std::size_t>(contact)] + t[1] * m_tangents[2 * static_cast<std::size_t>(contact) + 1];
}

FrictionState ClusterFriction::state(int contact) const {
  const int k = m_entryOf[static_cast<std::size_t>(contact)];
  return k < 0 ? FrictionState::None : m_result.state[static_cast<std::size_t>(k)];
}

}  // namespace propimpact::bullet_detail
