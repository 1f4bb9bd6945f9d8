#pragma once
// Stage "impact friction", its data: the normal and tangent rows in the
// impact's metric (M⁻¹_c of SolverBodies, so joints stay satisfied), and the
// block Gauss–Seidel of ImpactFriction.h over them.
//
// A row stores its coefficients c and w = M⁻¹_c cᵀ per metric group, so that
// a relative velocity is one dot product and an impulse one axpy (as the
// contact rows of the propagation). Normal rows: one per problem contact.
// Friction blocks: two tangent rows per contact with friction, with their
// 2 × 2 block K = T M⁻¹_c Tᵀ.
//
// The sweeps visit "units" in one fixed order: per contact its block (when it
// has one), then its normal row. The worklist keeps that order but visits only units
// whose metric groups another unit moved by more than the tolerance: on a
// settled pile an impact's friction moves a handful of bodies, and a sweep
// over the whole touching component was 91 % of the step (callgrind).

#include <Eigen/Core>
#include <cstdint>
#include <vector>

#include "SolverBodies.h"
#include "propimpact/core/ImpactFriction.h"
#include "propimpact/core/Types.h"

namespace propimpact::detail {

/// One row over at most two metric groups.
struct FrictionRow {
  Index offset[2] = {0, 0};          ///< into coefficient and w storage.
  Index velocityOffset[2] = {0, 0};  ///< the group's first internal velocity component.
  Index size[2] = {0, 0};            ///< the group's dofs.
  int group[2] = {-1, -1};           ///< the metric groups (SolverBodies).
  int termCount = 0;
  Scalar bias = 0;  ///< constant term of J v + b.
  Scalar d = 0;     ///< J M⁻¹_c Jᵀ; 0 for a row no admissible motion moves.
};

/// A contact's friction: its tangent rows and their block.
struct FrictionBlock {
  int entry = 0;          ///< FrictionRows entry.
  int contact = 0;        ///< problem contact (its normal row has the same index).
  int rows[2] = {0, 0};   ///< tangent rows.
  Scalar mu = 0;
  Scalar normalImpulse = 0;  ///< λ_n of the impact (fixed).
  Eigen::Matrix2d K = Eigen::Matrix2d::Zero();
  Eigen::Matrix2d Q = Eigen::Matrix2d::Identity();  ///< K's eigenvectors (fixed; computed once).
  Eigen::Vector2d kappa = Eigen::Vector2d::Zero();   ///< K's eigenvalues, ascending, ≥ 0.
};

/// Rows, blocks and one attempt's impulses.
class FrictionSystem {
 public:
  /// Builds rows for every contact of the problem and tangent blocks for the
  /// entries with μ > 0 whose contact took part in the impact. \p constant is
  /// the joint-violating velocity (internal order) entering every row as a
  /// constant, or empty. Returns the number of blocks.
  int build(const SolverBodies& bodies, const FrictionRows& friction, const ImpactResult& result,
            const std::vector<Scalar>& constant);
  /// Capacity for a problem within \p bounds whose groups are single rigid
  /// bodies (a joined group's rows are longer, and may still allocate).
  void reserve(const ProblemBounds& bounds);

  /// One attempt from zero impulses at internal velocity \p v (updated) with
  /// normal targets \p targets (one per contact): the coupled sweeps, stopped
  /// relative to \p impactScale, then the normal pass, relative to \p scale
  /// (ImpactFriction.h). Returns the coupled sweeps run, at most the cap
  /// (rounds of the worklist: passes over its pending units in sweep order).
  int solve(const std::vector<Scalar>& targets, const FrictionOptions& options, Scalar impactScale, Scalar scale,
            Scalar* v);

  /// J_r v + b_r.
  [[nodiscard]] Scalar velocity(int r, const Scalar* v) const;
  /// v += λ M⁻¹_c J_rᵀ.
  void applyImpulse(int r, Scalar lambda, Scalar* v) const;

  [[nodiscard]] int normalCount() const { return m_normalCount; }
  [[nodiscard]] int rowCount() const { return static_cast<int>(m_rows.size()); }
  [[nodiscard]] const FrictionRow& row(int r) const { return m_rows[static_cast<std::size_t>(r)]; }
  [[nodiscard]] const std::vector<FrictionBlock>& blocks() const { return m_blocks; }
  /// Impulse of row r in the last attempt (normal rows: δ; tangent rows: λ_t).
  [[nodiscard]] Scalar impulse(int r) const { return m_impulse[static_cast<std::size_t>(r)]; }
  /// Friction block of contact c, or −1.
  [[nodiscard]] int blockOf(int contact) const { return m_blockOf[static_cast<std::size_t>(contact)]; }

 private:
  int addRow(const SolverBodies& bodies, const Scalar* coefficients[2], const int blocks[2], Scalar bias,
             const std::vector<Scalar>& constant);
  Scalar updateBlock(FrictionBlock& b, Scalar* v);
  Scalar updateNormal(int contact, Scalar target, Scalar* v);
  [[nodiscard]] Scalar movedSince(const FrictionRow& row) const;
  void buildAdjacency(int groupCount);
  Scalar update(int unit, const std::vector<Scalar>& targets, Scalar* v);
  /// When a pass stops: no update moved the velocity by more than tight, or,
  /// from pass looseAfter + 1 on, by more than loose.
  struct Stop {
    Scalar tight = 0;
    Scalar loose = 0;
    int looseAfter = 0;
    [[nodiscard]] Scalar at(int pass) const { return pass > looseAfter ? loose : tight; }
  };
  int run(const std::vector<Scalar>& targets, const Stop& stop, int cap, bool blocks, bool worklist, Scalar* v);
  static int contactOf(int unit) { return unit >> 1; }
  static bool isBlock(int unit) { return (unit & 1) == 0; }
  int sweepAll(const std::vector<Scalar>& targets, const Stop& stop, int cap, bool blocks, Scalar* v);
  int sweepWorklist(const std::vector<Scalar>& targets, const Stop& stop, int cap, bool blocks, Scalar* v);
  void notify(int unit, bool blocks);
  void markNext(int unit);

  std::vector<FrictionRow> m_rows;
  std::vector<FrictionBlock> m_blocks;
  std::vector<int> m_blockOf;
  std::vector<Scalar> m_coefficients;
  std::vector<Scalar> m_w;
  std::vector<Scalar> m_impulse;
  int m_normalCount = 0;
  Scalar m_relaxation = 1;
  bool m_pushOnly = false;
  // Velocity each group has moved in this pass (a sum of M-norms), and per
  // contact the unit-normal separation its row had to spare when last seen
  // idle (δ = 0, no bound) and its groups' sum then: a row's speed moves by at
  // most √d times its groups' moves, so it stays idle until they exceed the spare.
  std::vector<Scalar> m_groupMoved;
  std::vector<Scalar> m_slack;
  std::vector<Scalar> m_slackMoved;
  // Worklist: units touching each metric group (CSR, in sweep order), and the
  // units due in this round and in the next as bit sets, scanned in order (a
  // heap of due units cost as much as the updates, callgrind on the pile).
  std::vector<int> m_groupStart;
  std::vector<int> m_groupUnits;
  std::vector<std::uint64_t> m_dueNow;
  std::vector<std::uint64_t> m_dueNext;
  std::size_t m_nextFirstWord = 0;  // no unit of a lower word is due next
  std::vector<int> m_groupRound;    // per group: the round of its last move, or −1
  std::vector<int> m_groupMover;    // per group: where in its units its last mover is
  int m_roundId = 0;
};

/// argmin ½ xᵀ K x + hᵀ x over ||x||₂ ≤ radius, K = Q diag(κ) Qᵀ symmetric
/// positive semidefinite given by its eigenOfBlock (the 2 × 2 trust-region
/// problem, to round-off).
[[nodiscard]] Eigen::Vector2d minimiseOnDisc(const Eigen::Matrix2d& Q, const Eigen::Vector2d& kappa,
                                             const Eigen::Vector2d& h, Scalar radius);
/// K's eigenvectors and eigenvalues (ascending, clamped at 0).
void eigenOfBlock(const Eigen::Matrix2d& K, Eigen::Matrix2d& Q, Eigen::Vector2d& kappa);

}  // namespace propimpact::detail
