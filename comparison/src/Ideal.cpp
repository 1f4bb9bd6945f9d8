#include "Ideal.h"

#include <Eigen/Dense>
#include <cmath>
#include <stdexcept>

#include <propimpact/core/Resolve.h>

namespace propimpact::compare {

VectorX propagativeIdeal(const MatrixX& M, const VectorX& v, const MatrixX& J, double cor) {
  return resolveDense(M, v, J, cor).velocity;
}

VectorX simultaneousLcpIdeal(const MatrixX& M, const VectorX& v, const MatrixX& J, double cor) {
  const auto n = J.rows();
  if (n > 16) throw std::invalid_argument("simultaneousLcpIdeal: too many rows");
  const MatrixX MinvJt = M.ldlt().solve(J.transpose());
  const MatrixX A = J * MinvJt;
  const VectorX q = (1 + cor) * (J * v);
  const double scale = std::max(1.0, q.cwiseAbs().maxCoeff());
  const double tolerance = 1e-12 * scale;
  for (unsigned mask = 0; mask < (1U << n); ++mask) {
    std::vector<Index> active;
    for (Index i = 0; i < n; ++i)
      if (mask & (1U << i)) active.push_back(i);
    VectorX lambda = VectorX::Zero(n);
    if (!active.empty()) {
      const auto k = static_cast<Index>(active.size());
      MatrixX Aa(k, k);
      VectorX qa(k);
      for (Index r = 0; r < k; ++r) {
        qa(r) = q(active[static_cast<std::size_t>(r)]);
        for (Index c = 0; c < k; ++c) Aa(r, c) = A(active[static_cast<std::size_t>(r)], active[static_cast<std::size_t>(c)]);
      }
      Eigen::FullPivLU<MatrixX> lu(Aa);
      if (lu.rank() < k) continue;
      const VectorX la = lu.solve(-qa);
      for (Index r = 0; r < k; ++r) lambda(active[static_cast<std::size_t>(r)]) = la(r);
    }
    if (lambda.minCoeff() < -tolerance) continue;
    const VectorX w = A * lambda + q;
    if (w.minCoeff() < -tolerance) continue;
    return v + MinvJt * lambda;
  }
  throw std::runtime_error("simultaneousLcpIdeal: no solution found");
}

double kineticNorm(const MatrixX& M, const VectorX& v) { return std::sqrt(std::max(0.0, v.dot(M * v))); }

}  // namespace propimpact::compare
