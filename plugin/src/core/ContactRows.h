#pragma once
// Stage "contact rows": each contact as the resolver uses it (SPEC §1-§3).
//
// A row holds J_i in group coordinates, w_i = M⁻¹_c J_iᵀ (the direction a
// unit impulse moves the velocity, eq. 8) and d_i = J_i M⁻¹_c J_iᵀ, so that a
// reflection is one dot product and one axpy per term. The relative normal
// velocity is J_i v + b_i. Rows are indexed like the problem's contacts;
// `representative` says whether a row acts (itself), is merged into an
// identical row, or is ignored.

#include <cstdint>
#include <vector>

#include "SolverBodies.h"
#include "propimpact/core/Types.h"

namespace propimpact::detail {

/// One group's part of a row. 24 bytes: the two ints share a word.
struct GroupTerm {
  int group = -1;
  int size = 0;              ///< the group's dofs.
  Index offset = 0;          ///< into coefficient and w storage (group-size entries).
  Index velocityOffset = 0;  ///< the group's first internal velocity component.
};

/// Rows that merged into another keep representative = that row; ignored rows -1;
/// rows outside a grown cluster -2.
constexpr int kIgnoredRow = -1;
constexpr int kOutsideCluster = -2;

/// One contact row: 112 bytes, the ints paired so that no padding is left
/// between them (136 before; the propagation reads rows in the bodies'
/// order, which a shuffled numbering makes a cache miss per row).
struct Row {
  GroupTerm terms[2];
  int termCount = 0;
  int representative = -1;   ///< see kIgnoredRow / kOutsideCluster.
  Scalar d = 0;              ///< J M⁻¹_c Jᵀ.
  Scalar invSqrtD = 0;       ///< turns J v into the unit-normal speed <û, p>_g.
  Scalar bias = 0;           ///< b_i.
  Scalar restingSpeed = 0;   ///< a slower approach is resting contact, not infeasible.
  Scalar restitution = 1;
  std::uint64_t key = 0;     ///< canonical tie-break key.
  bool seed = true;          ///< starts the cluster when growing from seeds.
  bool sixDofTerms = false;  ///< every term is on a 6-dof group (rigid bodies): fixed-size kernels, no dispatch.
};

/// x · y over a 6-dof term: the one fixed-size product (the compiler vectorises it).
inline Scalar dotSix(const Scalar* x, const Scalar* y) {
  return Eigen::Map<const Vector6>(x).dot(Eigen::Map<const Vector6>(y));
}

/// \p start + J v for a row whose coefficients live at \p coefficients: the one
/// product every stage and the propagation's kernel use, so speeds agree to the bit.
inline Scalar rowTimes(const Row& row, const Scalar* coefficients, const Scalar* v, Scalar start) {
  if (row.sixDofTerms) {
    // The loop's arithmetic in its order, without its per-term dispatch
    // (the loop's control was a third of the propagation's row products, callgrind).
    Scalar value = start + dotSix(coefficients + row.terms[0].offset, v + row.terms[0].velocityOffset);
    if (row.termCount == 2) value += dotSix(coefficients + row.terms[1].offset, v + row.terms[1].velocityOffset);
    return value;
  }
  Scalar value = start;
  for (int t = 0; t < row.termCount; ++t) {
    const GroupTerm& term = row.terms[t];
    const Scalar* c = coefficients + term.offset;
    const Scalar* x = v + term.velocityOffset;
    if (term.size == 6) {
      value += dotSix(c, x);
    } else {
      for (Index k = 0; k < term.size; ++k) value += c[k] * x[k];
    }
  }
  return value;
}

/// v += λ w for a row whose w = M⁻¹_c Jᵀ lives at \p w.
inline void addAlongRow(const Row& row, const Scalar* w, Scalar lambda, Scalar* v) {
  if (row.sixDofTerms) {
    for (int t = 0; t < 2; ++t) {  // unrolled; a one-term row stops after the first
      Eigen::Map<Vector6>(v + row.terms[t].velocityOffset) += lambda * Eigen::Map<const Vector6>(w + row.terms[t].offset);
      if (row.termCount == 1) return;
    }
    return;
  }
  for (int t = 0; t < row.termCount; ++t) {
    const GroupTerm& term = row.terms[t];
    const Scalar* dw = w + term.offset;
    Scalar* x = v + term.velocityOffset;
    if (term.size == 6) {
      Eigen::Map<Vector6>(x) += lambda * Eigen::Map<const Vector6>(dw);
    } else {
      for (Index k = 0; k < term.size; ++k) x[k] += lambda * dw[k];
    }
  }
}

/// The rows of one problem, their adjacency per group, and the active list.
class ContactRows {
 public:
  /// Builds every row from the problem in the bodies' metric. A row's
  /// resting speed is at least \p restingPerUnitRow × |J_i|: a speed is known
  /// only to round-off of the velocity it comes from.
  void build(const SolverBodies& bodies, Scalar restingPerUnitRow = 0);
  /// Room for a problem within \p bounds (joined groups' coefficients size their own).
  void reserve(const ProblemBounds& bounds);

  /// J_i v + b_i for an internal velocity.
  [[nodiscard]] Scalar velocity(int r, const Scalar* v) const {
    return jacobianTimes(r, v, m_rows[static_cast<std::size_t>(r)].bias);
  }
  /// \p start + J_i v (without b_i when start is 0: a velocity change's effect on the row).
  [[nodiscard]] Scalar jacobianTimes(int r, const Scalar* v, Scalar start = 0) const {
    return rowTimes(m_rows[static_cast<std::size_t>(r)], m_coefficientBase, v, start);
  }
  /// v += λ M⁻¹_c J_iᵀ.
  void applyImpulse(int r, Scalar lambda, Scalar* v) const {
    addAlongRow(m_rows[static_cast<std::size_t>(r)], m_w.data(), lambda, v);
  }
  /// Approaching beyond the feasibility threshold and the row's resting speed.
  [[nodiscard]] bool infeasible(int r, Scalar relativeVelocity, Scalar threshold) const {
    const Row& row = m_rows[static_cast<std::size_t>(r)];
    return relativeVelocity * row.invSqrtD < -threshold && relativeVelocity < -row.restingSpeed;
  }
  /// Whether row \p r has a term on group \p g.
  [[nodiscard]] bool touches(int r, int g) const {
    const Row& row = m_rows[static_cast<std::size_t>(r)];
    return row.terms[0].group == g || (row.termCount > 1 && row.terms[1].group == g);
  }
  /// Largest unit-normal approach over the active rows (0 when all separate).
  [[nodiscard]] Scalar largestViolation(const Scalar* v) const;
  /// <û_i, û_j> numerator: J_i M⁻¹_c J_jᵀ over shared groups.
  [[nodiscard]] Scalar coupling(int i, int j) const;

  /// With ResolveOptions::jointErrorAsBias: a joint-violating velocity enters
  /// each row's relative velocity as a constant. Returns whether any changed.
  bool addConstantVelocity(const std::vector<Scalar>& violating);
  /// Merges rows with equal M⁻¹Jᵀ that agree in their start speed; returns the number merged.
  int mergeDuplicates(const Scalar* v0, Scalar speedScale, Scalar tolerance);
  /// Drops rows whose representative was not reached (awake[r] == 0) from the
  /// active set; may be called again with more rows reached (the cluster grows).
  void keepReached(const std::vector<char>& awake);
  /// Whether every acting row has restitution 0 (a plastic cluster needs no elastic outcome).
  [[nodiscard]] bool allPlastic() const;
  /// Rebuilds the active list and the per-group adjacency of active rows.
  void buildAdjacency();

  [[nodiscard]] std::size_t size() const { return m_rows.size(); }
  [[nodiscard]] const Row& operator[](std::size_t r) const { return m_rows[r]; }
  [[nodiscard]] Row& operator[](std::size_t r) { return m_rows[r]; }
  [[nodiscard]] const std::vector<int>& active() const { return m_active; }
  [[nodiscard]] int compactOf(int r) const { return m_compactOf[static_cast<std::size_t>(r)]; }
  /// Active rows touching group g: [begin, end) into adjacency().
  [[nodiscard]] int adjacencyBegin(std::size_t g) const { return m_adjacencyStart[g]; }
  [[nodiscard]] int adjacencyEnd(std::size_t g) const { return m_adjacencyStart[g + 1]; }
  [[nodiscard]] int adjacent(int a) const { return m_adjacency[static_cast<std::size_t>(a)]; }
  [[nodiscard]] const Scalar* coefficients(const GroupTerm& t) const { return m_coefficientBase + t.offset; }
  [[nodiscard]] const Scalar* w(const GroupTerm& t) const { return m_w.data() + t.offset; }
  /// The base arrays, for a kernel that holds them in locals (RowKernel).
  [[nodiscard]] const Row* rowData() const { return m_rows.data(); }
  [[nodiscard]] const Scalar* coefficientData() const { return m_coefficientBase; }
  [[nodiscard]] const Scalar* wData() const { return m_w.data(); }
  [[nodiscard]] const int* adjacencyStartData() const { return m_adjacencyStart.data(); }
  [[nodiscard]] const int* adjacencyData() const { return m_adjacency.data(); }
  [[nodiscard]] bool anyBias() const { return m_anyBias; }
  void setAnyBias() { m_anyBias = true; }

 private:
  void computeMetricTerms(const SolverBodies& bodies, Scalar restingPerUnitRow);
  void buildRigidRows(const SolverBodies& bodies, Scalar restingPerUnitRow);
  [[nodiscard]] bool sameDirection(const Row& a, const Row& b, Scalar tolerance) const;

  std::vector<Row> m_rows;
  void buildJoinedTerms(const SolverBodies& bodies, std::size_t i, Row& row);

  std::vector<Scalar> m_coefficients;           // joined groups' rows in group coordinates
  const Scalar* m_coefficientBase = nullptr;    // m_coefficients, or the problem's rows read in place without joints
  std::vector<Scalar> m_w;                      // grows only; every used entry is written by computeMetricTerms
  std::vector<int> m_adjacencyStart;
  std::vector<int> m_adjacency;
  std::vector<int> m_active;
  std::vector<int> m_compactOf;
  std::vector<int> m_fill;
  std::vector<int> m_merged;  // representatives after merging, before keepReached
  std::size_t m_groupCount = 0;
  bool m_anyBias = false;
};

}  // namespace propimpact::detail
