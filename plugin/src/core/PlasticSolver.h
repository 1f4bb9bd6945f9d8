#pragma once
// Exact solver of the plastic-impact LCP (SPEC §4, Correction 2):
//   λ ≥ 0,  s = A Aᵀ λ + s0 ≥ 0,  λᵀ s = 0,
// where A = J L with M⁻¹ = L Lᵀ, so A Aᵀ = J M⁻¹ Jᵀ is the Delassus matrix.
// This is the dual of min ½||v+ − v−||²_M s.t. J v+ + b ≥ 0.
//
// Lawson–Hanson's active-set method, with the active rows kept as a QR
// factorisation of A_Pᵀ (Gram–Schmidt applied twice) rather than a Cholesky
// factor of the Delassus block: forming J M⁻¹ Jᵀ squares the conditioning of
// nearly dependent rows (common: Bullet gives several points with almost the
// same normal and lever), which made truly violated rows look dependent. Each
// active-set solve takes one step of iterative refinement. A row that is
// dependent on the active ones has zero violation at the active-set optimum
// only when s0 lies in the range of A; a kinematic bias or a prescribed motion
// (velocity along an axis M⁻¹ cannot move) breaks that, and such a row, when
// violated, enters by Lawson–Hanson's exchange step (see exchange()). If the
// exchange proves that no outcome is feasible (a Farkas certificate), every
// row is relaxed by the least uniform unit-normal violation that makes the
// problem feasible, found by bisection, and that problem is solved exactly:
// bounded impulses and the least largest violation (to 1e-9 of it). Buffers
// are reused: no allocation once capacity has grown.

#include <vector>

#include "propimpact/core/Types.h"

namespace propimpact::detail {

/// Where a row of A can be non-zero: at most two column ranges (a contact
/// acts on one or two groups). Entries of the row outside them must be zero.
struct RowSupport {
  Index begin[2] = {0, 0};
  Index length[2] = {0, 0};
};

class ActiveSetLcp {
 public:
  /// \p A holds m rows of n entries (row-major). \p unitScale[i] = 1/||a_i||
  /// makes violations comparable across rows; a row is violated while
  /// unitScale[i]·s_i < −threshold. \p support (optional, per row) says where
  /// each row is non-zero: a rigid body's contact touches 12 of a cluster's
  /// 6 × bodies columns, and the products with A were 40 % of the solve's
  /// instructions as dense rows (callgrind, random 2–64-contact problems).
  /// Returns the number of active-set changes; \p lambda receives the multipliers.
  int solve(const Scalar* A, Index m, Index n, const Scalar* s0, const Scalar* unitScale, Scalar threshold,
            Scalar* lambda, const RowSupport* support = nullptr);
  /// Whether the last solve found a Farkas certificate (no outcome satisfies
  /// every row) and so returned the least uniform violation instead.
  [[nodiscard]] bool provedInfeasible() const { return m_infeasible; }
  /// Room for solves of up to \p m rows over \p n columns.
  void reserve(Index m, Index n);

 private:
  int run(Index m, const Scalar* unitScale, Scalar threshold, Scalar* lambda);
  [[nodiscard]] Index enteringRow(Index m, const Scalar* unitScale, Scalar threshold) const;
  int settleActive(Scalar* lambda, int changes, int changeCap);
  void refreshSpeeds(Index m, const Scalar* lambda);
  bool appendColumn(int row);
  void rebuildFactor(Scalar* lambda);
  bool exchange(int row, Scalar* lambda);
  void solveActive();
  void solveNormal(const Scalar* rhs, Scalar* out);
  /// a_row · x and x += α a_row over the row's support.
  [[nodiscard]] Scalar rowDot(int row, const Scalar* x) const;
  void rowAxpy(int row, Scalar alpha, Scalar* x) const;

  const Scalar* m_A = nullptr;
  Index m_n = 0;
  const Scalar* m_s0 = nullptr;
  const RowSupport* m_support = nullptr;
  std::vector<RowSupport> m_wholeRows;  // the support of dense rows when none is given
  std::vector<int> m_active;
  std::vector<int> m_previous;
  std::vector<int> m_saved;  // active set before an exchange, restored if it fails
  std::vector<Scalar> m_savedLambda;
  bool m_infeasible = false;  // an exchange found a Farkas certificate
  bool m_converged = false;   // the last run() ended with every row it may enter satisfied
  std::vector<Scalar> m_relaxed;  // s0 with every row relaxed (infeasible problems)
  std::vector<Scalar> m_best;     // λ of the least relaxation found feasible so far
  std::vector<char> m_inActive;
  std::vector<char> m_blocked;
  std::vector<Scalar> m_q;  // n × k orthonormal columns
  std::vector<Scalar> m_r;  // k × k upper triangle, leading dimension m_rStride
  Index m_rStride = 0;
  std::vector<Scalar> m_z;
  std::vector<Scalar> m_rhs;
  std::vector<Scalar> m_work;
  std::vector<Scalar> m_x;
  std::vector<Scalar> m_s;
};

}  // namespace propimpact::detail
