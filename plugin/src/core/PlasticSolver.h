#pragma once
// Exact solver of the plastic-impact LCP (SPEC §4, Correction 2):
//   λ ≥ 0,  s = W λ + s0 ≥ 0,  λᵀ s = 0,
// W = J M⁻¹ Jᵀ the (PSD, possibly singular) Delassus matrix. This is the dual
// of min ½||v+ − v−||²_M s.t. J v+ + b ≥ 0. Lawson–Hanson's active-set method
// solves it in finitely many steps; a row that depends on the active rows has
// zero violation at the active-set optimum, so it is never added and the
// active block stays positive definite. Buffers are reused: no allocation once
// capacity has grown.

#include <vector>

#include "propimpact/core/Types.h"

namespace propimpact::detail {

class ActiveSetLcp {
 public:
  /// \p W is m×m (column-major, leading dimension m). \p unitScale[i] =
  /// 1/sqrt(W_ii) makes violations comparable across rows; a row is violated
  /// while unitScale[i]·s_i < −threshold. Returns the number of active-set
  /// changes; \p lambda receives the multipliers.
  int solve(const Scalar* W, const Scalar* s0, const Scalar* unitScale, Index m, Scalar threshold, Scalar* lambda);

 private:
  bool factorAndSolve(const Scalar* W, const Scalar* s0, Index m);

  std::vector<int> m_active;
  std::vector<char> m_inActive;
  std::vector<char> m_blocked;
  std::vector<Scalar> m_factor;
  std::vector<Scalar> m_z;
  std::vector<Scalar> m_s;
};

}  // namespace propimpact::detail
