#include "Blend.h"

#include <algorithm>
#include <cmath>

namespace propimpact::detail {

Scalar mixedRestitution(const ContactRows& rows, const std::vector<Scalar>& elasticImpulse) {
  Scalar weighted = 0;
  Scalar weights = 0;
  Scalar smallest = 1;
  bool uniform = true;
  Scalar first = -1;
  for (const int r : rows.active()) {
    const Row& row = rows[static_cast<std::size_t>(r)];
    weighted += row.restitution * elasticImpulse[static_cast<std::size_t>(r)];
    weights += elasticImpulse[static_cast<std::size_t>(r)];
    smallest = std::min(smallest, row.restitution);
    if (first < 0) first = row.restitution;
    if (row.restitution != first) uniform = false;
  }
  const Scalar restitution = uniform ? (first < 0 ? 1 : first) : (weights > 0 ? weighted / weights : smallest);
  return std::clamp(restitution, Scalar(0), Scalar(1));
}

Scalar Blend::alpha(const SolverBodies& bodies, bool anyBias, const Eigen::Ref<const VectorX>& elastic,
                    const Eigen::Ref<const VectorX>& plastic, Scalar energyBefore, Scalar energyPlastic,
                    Scalar restitution) {
  if (restitution >= 1) return 1;
  if (restitution <= 0) return 0;
  if (anyBias) return restitution;
  // ½||p_p + α d||²_g = E_p + R² (E0 − E_p): a α² + b α + c = 0 with c ≤ 0.
  if (m_difference.size() < static_cast<std::size_t>(elastic.size())) m_difference.resize(static_cast<std::size_t>(elastic.size()));
  Eigen::Map<VectorX> difference(m_difference.data(), elastic.size());
  difference = elastic - plastic;
  const Scalar a = 0.5 * bodies.kineticInner(difference, difference, true);
  const Scalar b = bodies.kineticInner(plastic, difference, true);
  const Scalar target = energyPlastic + restitution * restitution * (energyBefore - energyPlastic);
  const Scalar c = energyPlastic - target;
  if (!(a > 1e-300)) return restitution;
  const Scalar discriminant = std::max(Scalar(0), b * b - 4 * a * c);
  const Scalar root = std::sqrt(discriminant);
  const Scalar alpha = b >= 0 ? (root + b > 0 ? -2 * c / (b + root) : 0) : (-b + root) / (2 * a);
  return std::clamp(alpha, Scalar(0), Scalar(1));
}

}  // namespace propimpact::detail
