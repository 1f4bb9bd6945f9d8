#include "Blend.h"

#include <algorithm>
#include <cmath>

namespace propimpact::detail {

// Uniform restitution (every acting row's the same, the common case) is
// found first and needs no weighted sums: those were half of this function's
// instructions (callgrind, the core chain). Otherwise the impulse-weighted
// mean, summed in the rows' order as always.
Scalar mixedRestitution(const ContactRows& rows, const std::vector<Scalar>& elasticImpulse) {
  const std::vector<int>& active = rows.active();
  const Scalar first = active.empty() ? -1 : rows[static_cast<std::size_t>(active.front())].restitution;
  bool uniform = true;
  for (const int r : active) uniform = uniform && rows[static_cast<std::size_t>(r)].restitution == first;
  if (uniform) return std::clamp(first < 0 ? Scalar(1) : first, Scalar(0), Scalar(1));
  Scalar weighted = 0;
  Scalar weights = 0;
  Scalar smallest = 1;
  for (const int r : active) {
    const Row& row = rows[static_cast<std::size_t>(r)];
    weighted += row.restitution * elasticImpulse[static_cast<std::size_t>(r)];
    weights += elasticImpulse[static_cast<std::size_t>(r)];
    smallest = std::min(smallest, row.restitution);
  }
  return std::clamp(weights > 0 ? weighted / weights : smallest, Scalar(0), Scalar(1));
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
