#include "EnergyGuard.h"

#include <Eigen/Eigenvalues>
#include <algorithm>
#include <cmath>
#include <limits>

namespace propimpact::detail {
namespace {

using Long = long double;
using Long3 = Eigen::Matrix<Long, 3, 3>;

/// M of block \p b in long double from what the problem was given: a dense
/// block's M as is; a rigid block's from its M⁻¹ (the linear factors'
/// diagonal inverted where non-zero, the angular part pseudo-inverted with
/// ImpactProblem's relative cut-off of 1e-12, below which an axis has
/// infinite inertia). ImpactProblem's own Scalar M of a rigid block carries
/// ε·κ(inertia) of round-off, 3.3e-9 of the energy at κ = 1e6: measured with
/// it, a reflection that keeps the energy would look like a gain.
void givenMass(const ImpactProblem& problem, int b, std::vector<Long>& storage) {
  const BlockLayout& layout = problem.block(b);
  const Index n = layout.size;
  if (storage.size() < static_cast<std::size_t>(n * n)) storage.resize(static_cast<std::size_t>(n * n));
  Eigen::Map<Eigen::Matrix<Long, Eigen::Dynamic, Eigen::Dynamic>> mass(storage.data(), n, n);
  if (!layout.rigid) {
    mass = Eigen::Map<const MatrixX>(problem.massData() + layout.matrixOffset, n, n).cast<Long>();
    return;
  }
  const RigidInertia& inverse = problem.rigidInertia(b);
  mass.setZero();
  for (Index k = 0; k < 3; ++k)
    if (inverse.inverseLinear[k] > 0) mass(k, k) = 1 / Long(inverse.inverseLinear[k]);
  const Eigen::SelfAdjointEigenSolver<Long3> angular(Eigen::Map<const Matrix3>(inverse.inverseAngular).cast<Long>());
  const auto& values = angular.eigenvalues();
  const Long cutoff = Long(1e-12) * values.cwiseAbs().maxCoeff();
  Eigen::Matrix<Long, 3, 1> inverted = Eigen::Matrix<Long, 3, 1>::Zero();
  for (Index k = 0; k < 3; ++k)
    if (values[k] > cutoff) inverted[k] = 1 / values[k];
  mass.block<3, 3>(3, 3) = angular.eigenvectors() * inverted.asDiagonal() * angular.eigenvectors().transpose();
}

}  // namespace

long double EnergyGuard::inner(const ImpactProblem& problem, int b, const long double* x, const long double* y,
                               bool absolute) {
  givenMass(problem, b, m_mass);
  const Index n = problem.block(b).size;
  const Eigen::Map<const Eigen::Matrix<Long, Eigen::Dynamic, Eigen::Dynamic>> mass(m_mass.data(), n, n);
  const Eigen::Map<const Eigen::Matrix<Long, Eigen::Dynamic, 1>> xs(x, n), ys(y, n);
  Long total = 0;
  for (Index c = 0; c < n; ++c)  // no temporary for M y
    total += ys[c] * (absolute ? xs.dot(mass.col(c).cwiseAbs()) : xs.dot(mass.col(c)));
  return total;
}

long double EnergyGuard::change(const ImpactProblem& problem, const Scalar* before, const Scalar* after) {
  const auto n = static_cast<std::size_t>(problem.dofCount());
  m_delta.resize(n);
  m_mid.resize(n);
  for (std::size_t k = 0; k < n; ++k) {
    m_delta[k] = Long(after[k]) - Long(before[k]);
    m_mid[k] = (Long(after[k]) + Long(before[k])) / 2;
  }
  Long total = 0;
  for (int b = 0; b < problem.blockCount(); ++b) {
    const auto o = static_cast<std::size_t>(problem.block(b).velocityOffset);
    // A block the impact left alone adds exactly 0: skipped, so a pile of
    // rigid bodies costs the bodies an impact moved, not a long double M each.
    const auto end = m_delta.begin() + static_cast<std::ptrdiff_t>(o + static_cast<std::size_t>(problem.block(b).size));
    if (std::all_of(m_delta.begin() + static_cast<std::ptrdiff_t>(o), end, [](Long x) { return x == 0; })) continue;
    total += inner(problem, b, m_delta.data() + o, m_mid.data() + o);
  }
  return total;
}

Scalar EnergyGuard::energyKeepingAlpha(const ImpactProblem& problem, const Scalar* start, const Scalar* elastic,
                                       const Scalar* plastic, Scalar alpha) {
  const auto n = static_cast<std::size_t>(problem.dofCount());
  // E(α) − E0 = A + α B + ½ α² C along p_p + α d, d = p_e − p_p.
  // A plastic outcome above the start too cannot pull the energy down
  // along this line; the outcome stays as the blend made it.
  const Long a = change(problem, start, plastic);
  if (!(a <= 0)) return alpha;
  m_plastic.resize(n);
  m_direction.resize(n);
  for (std::size_t k = 0; k < n; ++k) {
    m_plastic[k] = plastic[k];
    m_direction[k] = Long(elastic[k]) - Long(plastic[k]);
    m_delta[k] = std::abs(Long(elastic[k]));
  }
  // The blend is stored in Scalar, which moves its energy by up to
  // ε·Σ|vᵢ|·|(M v)ᵢ|: 1.7e-9 of it through a block of κ = 7e13 (seed 11's
  // variant of elastic-7dof-block-of-kappa-7e13-one-reflection-energy-gain-9.9e-7).
  // The root aims that far below the start, so the stored outcome does not
  // end above it.
  Long b = 0;
  Long c = 0;
  Long margin = 0;
  for (int k = 0; k < problem.blockCount(); ++k) {
    const auto o = static_cast<std::size_t>(problem.block(k).velocityOffset);
    b += inner(problem, k, m_direction.data() + o, m_plastic.data() + o);
    c += inner(problem, k, m_direction.data() + o, m_direction.data() + o);
    margin += inner(problem, k, m_delta.data() + o, m_delta.data() + o, true);
  }
  const Long below = a + 2 * Long(std::numeric_limits<Scalar>::epsilon()) * margin;
  if (!(below <= 0)) return 0;
  if (!(c > 0)) return alpha;
  const Long root = (-b + std::sqrt(std::max(Long(0), b * b - 2 * below * c))) / c;
  return static_cast<Scalar>(std::clamp(root, Long(0), Long(alpha)));
}

}  // namespace propimpact::detail
