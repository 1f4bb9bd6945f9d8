#include "ContactRows.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "Capacity.h"

namespace propimpact::detail {

namespace {

// The end of a row's metric terms, shared by the rigid and the general build:
// its resting speed from the row's size, and 1/√d, or the row ignored when
// no admissible motion moves it (d within round-off of its coefficients).
void finishMetric(Row& row, Scalar reference, Scalar squaredNorm, Scalar restingPerUnitRow) {
  if (restingPerUnitRow > 0) row.restingSpeed = std::max(row.restingSpeed, restingPerUnitRow * std::sqrt(squaredNorm));
  if (!(row.d > kMetricNoise * reference)) {
    row.representative = kIgnoredRow;  // no admissible motion moves this contact
    row.invSqrtD = 0;
  } else {
    row.invSqrtD = 1 / std::sqrt(row.d);
  }
}

}  // namespace

void ContactRows::build(const SolverBodies& bodies, Scalar restingPerUnitRow) {
  const ImpactProblem& p = bodies.problem();
  const auto contactCount = static_cast<std::size_t>(p.contactCount());
  // Without joints a group is its block in problem order, so a row's
  // coefficients are read where the problem wrote them instead of copied.
  const bool inPlace = p.bilateralCount() == 0;
  m_groupCount = bodies.groups().size();
  m_rows.resize(contactCount);
  m_coefficients.clear();
  m_anyBias = false;
  if (inPlace && bodies.allRigid()) {
    m_coefficientBase = p.rowData();
    growWithin(m_w, static_cast<std::size_t>(p.rowEntryCount()));
    buildRigidRows(bodies, restingPerUnitRow);
    return;
  }
  for (std::size_t i = 0; i < contactCount; ++i) {
    const RowLayout& input = p.contact(static_cast<int>(i));
    Row& row = m_rows[i];
    row = Row{};
    row.bias = input.bias;
    row.restitution = input.restitution;
    row.key = input.canonicalKey;
    row.restingSpeed = input.restingSpeed;
    row.seed = input.seed;
    row.representative = static_cast<int>(i);
    if (input.bias != 0) m_anyBias = true;
    if (!inPlace) {
      buildJoinedTerms(bodies, i, row);
    } else {
      for (const RowTerm& t : input.terms) {
        if (t.block == kNoBlock) continue;
        const int group = bodies.groupOf(t.block);
        const Group& g = bodies.groups()[static_cast<std::size_t>(group)];
        GroupTerm& term = row.terms[row.termCount++];
        term.group = group;
        term.offset = t.coefficientOffset;
        term.velocityOffset = g.offset;
        term.size = g.size;
      }
    }
    row.sixDofTerms = row.termCount > 0 && row.terms[0].size == 6 && (row.termCount == 1 || row.terms[1].size == 6);
  }
  m_coefficientBase = inPlace ? p.rowData() : m_coefficients.data();
  const auto entries = static_cast<std::size_t>(inPlace ? p.rowEntryCount() : static_cast<Index>(m_coefficients.size()));
  growWithin(m_w, entries);
  computeMetricTerms(bodies, restingPerUnitRow);
}

// build() for rigid bodies without joints (a group is its block, every term
// 6 dofs, coefficients read in place): each row's fields and its metric terms
// in one pass, with computeMetricTerms' arithmetic in its order. Filling the
// rows and then reading them again for the metric, through the general
// term's dispatch, was half of the stage's instructions (callgrind, the
// core chain).
void ContactRows::buildRigidRows(const SolverBodies& bodies, Scalar restingPerUnitRow) {
  const ImpactProblem& p = bodies.problem();
  const auto contactCount = static_cast<std::size_t>(p.contactCount());
  const Group* groups = bodies.groups().data();
  const Scalar* coefficients = m_coefficientBase;
  Scalar* w = m_w.data();
  bool anyBias = false;
  for (std::size_t i = 0; i < contactCount; ++i) {
    const RowLayout& input = p.contact(static_cast<int>(i));
    Row& row = m_rows[i];
    row.bias = input.bias;
    row.restitution = input.restitution;
    row.key = input.canonicalKey;
    row.restingSpeed = input.restingSpeed;
    row.seed = input.seed;
    row.representative = static_cast<int>(i);
    anyBias = anyBias || input.bias != 0;
    Scalar d = 0;
    Scalar reference = 0;
    Scalar squaredNorm = 0;  // |J_i|²
    int termCount = 0;
    for (const RowTerm& t : input.terms) {
      if (t.block == kNoBlock) continue;
      const int group = bodies.groupOf(t.block);
      const auto g = static_cast<std::size_t>(group);
      GroupTerm& term = row.terms[termCount++];
      term.group = group;
      term.size = 6;
      term.offset = t.coefficientOffset;
      term.velocityOffset = groups[g].offset;
      const Scalar* c = coefficients + t.coefficientOffset;
      Scalar* wt = w + t.coefficientOffset;
      rigidInverseMassTimes(bodies.rigidInertia(g), c, wt);
      for (int k = 0; k < 6; ++k) d += c[k] * wt[k];
      const Scalar squared = Eigen::Map<const Vector6>(c).squaredNorm();
      reference += squared * bodies.scale(g);
      squaredNorm += squared;
    }
    if (termCount < 2) row.terms[1] = GroupTerm{};
    if (termCount == 0) row.terms[0] = GroupTerm{};
    row.termCount = termCount;
    row.sixDofTerms = termCount > 0;
    row.d = d;
    finishMetric(row, reference, squaredNorm, restingPerUnitRow);
  }
  m_anyBias = anyBias;
}

void ContactRows::reserve(const ProblemBounds& bounds) {
  const auto rows = static_cast<std::size_t>(bounds.contacts);
  reserveCapacity(m_rows, rows);
  reserveCapacity(m_w, bounds.rowEntries);
  reserveCapacity(m_adjacencyStart, bounds.blocks + 1);
  reserveCapacity(m_adjacency, 2 * rows);
  reserveCapacity(m_fill, bounds.blocks);
  for (std::vector<int>* v : {&m_active, &m_compactOf, &m_merged}) reserveCapacity(*v, rows);
}

// Blocks tied by joints share a group: a row's terms on blocks of one group
// are summed into that group's coordinates.
void ContactRows::buildJoinedTerms(const SolverBodies& bodies, std::size_t i, Row& row) {
  const ImpactProblem& p = bodies.problem();
  for (const RowTerm& t : p.contact(static_cast<int>(i)).terms) {
    if (t.block == kNoBlock) continue;
    const int group = bodies.groupOf(t.block);
    const Group& g = bodies.groups()[static_cast<std::size_t>(group)];
    int slot = -1;
    for (int k = 0; k < row.termCount; ++k)
      if (row.terms[k].group == group) slot = k;
    if (slot < 0) {
      slot = row.termCount++;
      GroupTerm& term = row.terms[slot];
      term.group = group;
      term.offset = static_cast<Index>(m_coefficients.size());
      term.velocityOffset = g.offset;
      term.size = g.size;
      m_coefficients.resize(m_coefficients.size() + static_cast<std::size_t>(g.size), 0);
    }
    const Index size = p.block(t.block).size;
    const Scalar* source = p.rowData() + t.coefficientOffset;
    Scalar* target = m_coefficients.data() + row.terms[slot].offset + bodies.offsetInGroup(t.block);
    for (Index k = 0; k < size; ++k) target[k] += source[k];
  }
}

// w = M⁻¹_c Jᵀ and d = J M⁻¹_c Jᵀ per row (eq. 8's denominator).
void ContactRows::computeMetricTerms(const SolverBodies& bodies, Scalar restingPerUnitRow) {
  for (Row& row : m_rows) {
    Scalar d = 0;
    Scalar reference = 0;
    Scalar squaredNorm = 0;  // |J_i|²
    for (int t = 0; t < row.termCount; ++t) {
      const GroupTerm& term = row.terms[t];
      const auto g = static_cast<std::size_t>(term.group);
      if (bodies.groups()[g].rigid) {
        const Scalar* c = m_coefficientBase + term.offset;
        Scalar* wt = m_w.data() + term.offset;
        rigidInverseMassTimes(bodies.rigidInertia(g), c, wt);
        for (int k = 0; k < 6; ++k) d += c[k] * wt[k];
        const Scalar squared = Eigen::Map<const Vector6>(c).squaredNorm();
        reference += squared * bodies.scale(g);
        squaredNorm += squared;
        continue;
      }
      if (term.size == 6) {
        // Rigid bodies: fixed-size kernels instead of a dynamic matrix-vector product per row.
        Eigen::Map<const Matrix6> minv(bodies.inverseMass(g));
        Eigen::Map<const Vector6> c(m_coefficientBase + term.offset);
        Eigen::Map<Vector6> wt(m_w.data() + term.offset);
        wt.noalias() = minv * c;
        d += c.dot(wt);
        const Scalar squared = c.squaredNorm();
        reference += squared * bodies.scale(g);
        squaredNorm += squared;
        continue;
      }
      Eigen::Map<const MatrixX> minv(bodies.inverseMass(g), term.size, term.size);
      Eigen::Map<const VectorX> c(m_coefficientBase + term.offset, term.size);
      Eigen::Map<VectorX> wt(m_w.data() + term.offset, term.size);
      wt.noalias() = minv * c;
      d += c.dot(wt);
      const Scalar squared = c.squaredNorm();
      reference += squared * bodies.scale(g);
      squaredNorm += squared;
    }
    row.d = d;
    finishMetric(row, reference, squaredNorm, restingPerUnitRow);
  }
}

bool ContactRows::addConstantVelocity(const std::vector<Scalar>& violating) {
  bool any = false;
  for (std::size_t r = 0; r < m_rows.size(); ++r) {
    Row& row = m_rows[r];
    if (row.termCount == 0) continue;
    const Scalar carried = velocity(static_cast<int>(r), violating.data()) - row.bias;
    if (carried != 0) {
      row.bias += carried;
      m_anyBias = true;
      any = true;
    }
  }
  return any;
}

void ContactRows::buildAdjacency() {
  m_adjacencyStart.assign(m_groupCount + 1, 0);
  m_active.clear();
  m_compactOf.assign(m_rows.size(), -1);
  for (std::size_t i = 0; i < m_rows.size(); ++i) {
    if (m_rows[i].representative != static_cast<int>(i)) continue;
    m_compactOf[i] = static_cast<int>(m_active.size());
    m_active.push_back(static_cast<int>(i));
    for (int t = 0; t < m_rows[i].termCount; ++t) ++m_adjacencyStart[static_cast<std::size_t>(m_rows[i].terms[t].group) + 1];
  }
  for (std::size_t g = 0; g < m_groupCount; ++g) m_adjacencyStart[g + 1] += m_adjacencyStart[g];
  m_adjacency.resize(static_cast<std::size_t>(m_adjacencyStart[m_groupCount]));
  m_fill.assign(m_adjacencyStart.begin(), m_adjacencyStart.end() - 1);
  for (const int i : m_active) {
    const Row& row = m_rows[static_cast<std::size_t>(i)];
    for (int t = 0; t < row.termCount; ++t)
      m_adjacency[static_cast<std::size_t>(m_fill[static_cast<std::size_t>(row.terms[t].group)]++)] = i;
  }
}

// Compare M⁻¹Jᵀ, not J: rows that differ only along locked axes (a planar
// body's out-of-plane lever) act identically on admissible motion.
//
// Two tests. The Euclidean one on w = M⁻¹Jᵀ bounds what the merged row's
// impulse, applied along its representative's w, misplaces (the fuzz check
// allows that). It does not bound how far the merged row's speed drifts from
// its representative's: for any velocity change Δv, |(Jᵢ − Jⱼ)Δv| ≤
// δ ‖Δv‖_M with δ² = (Jᵢ − Jⱼ) M⁻¹ (Jᵢ − Jⱼ)ᵀ, and a large eigenvalue of M
// makes δ large where w barely differs (finding
// capped-16dof-merged-near-duplicate-left-beyond-the-residual: κ(M) ≈ 1e13,
// J differing by 0.3 %, w by 1e-9, the merged row left 4.0e-8 per unit normal
// beyond its representative). So δ ≤ tolerance·√d is required as well: then
// the merged row's unit-normal speed stays within tolerance·‖Δv‖_M of its
// representative's, at most 2·tolerance·scale for an outcome with no more
// energy than the start, far inside the check's 1e-8·scale. δ² is taken as
// (Jᵢ − Jⱼ)·(wᵢ − wⱼ), whose differences are exact when the rows nearly agree,
// not as dᵢ + dⱼ − 2Jᵢwⱼ, which cancels; exact duplicates give 0.
bool ContactRows::sameDirection(const Row& row, const Row& other, Scalar tolerance) const {
  if (other.termCount != row.termCount) return false;
  Scalar metricGap = 0;  // δ²
  for (int t = 0; t < row.termCount; ++t) {
    int u = -1;
    for (int k = 0; k < other.termCount; ++k)
      if (other.terms[k].group == row.terms[t].group) u = k;
    if (u < 0) return false;
    const Index size = row.terms[t].size;
    Eigen::Map<const VectorX> wi(m_w.data() + row.terms[t].offset, size);
    Eigen::Map<const VectorX> wj(m_w.data() + other.terms[u].offset, size);
    if (!((wi - wj).norm() <= tolerance * std::max(wi.norm(), wj.norm()))) return false;
    Eigen::Map<const VectorX> ji(m_coefficientBase + row.terms[t].offset, size);
    Eigen::Map<const VectorX> jj(m_coefficientBase + other.terms[u].offset, size);
    metricGap += (ji - jj).dot(wi - wj);
  }
  return metricGap <= tolerance * tolerance * std::max(row.d, other.d);
}

int ContactRows::mergeDuplicates(const Scalar* v0, Scalar speedScale, Scalar tolerance) {
  // Candidates sharing a group are found through the adjacency of the rows'
  // first group, so a chain costs O(m), a body with k contacts O(k²).
  buildAdjacency();
  int merged = 0;
  for (const int i : m_active) {
    Row& row = m_rows[static_cast<std::size_t>(i)];
    const auto group = static_cast<std::size_t>(row.terms[0].group);
    // Row i's start speed, computed once and only if some candidate gets that far.
    Scalar speedI = std::numeric_limits<Scalar>::quiet_NaN();
    for (int a = m_adjacencyStart[group]; a < m_adjacencyStart[group + 1]; ++a) {
      const int j = m_adjacency[static_cast<std::size_t>(a)];
      if (j >= i) break;
      Row& other = m_rows[static_cast<std::size_t>(j)];
      if (other.representative != j || other.termCount != row.termCount) continue;
      // Rows over different bodies cannot be one constraint: checked before
      // any speed (a chain's neighbours share one body, never both).
      if (row.termCount > 1 && !touches(j, row.terms[1].group)) continue;
      // Equal M⁻¹Jᵀ keeps Jᵢv − Jⱼv constant through every impulse, so two rows
      // are one constraint only if they also agree in it now: bias, a joint
      // error, or motion along an axis nothing can change (a body spinning
      // about an infinite-inertia axis) can set them apart, and merging them
      // would leave the dropped row infeasible (fuzz finding
      // merged-duplicates-differ-in-velocity-along-an-immobile-axis).
      if (std::isnan(speedI)) speedI = velocity(i, v0) * row.invSqrtD;
      const Scalar speedJ = velocity(j, v0) * other.invSqrtD;
      if (std::abs(speedI - speedJ) > tolerance * std::max({speedScale, std::abs(speedI), std::abs(speedJ)})) continue;
      if (sameDirection(row, other, tolerance)) {
        row.representative = j;
        other.restitution = std::min(other.restitution, row.restitution);
        ++merged;
        break;
      }
    }
  }
  if (merged > 0) buildAdjacency();
  m_merged.resize(m_rows.size());
  for (std::size_t i = 0; i < m_rows.size(); ++i) m_merged[i] = m_rows[i].representative;
  return merged;
}

void ContactRows::keepReached(const std::vector<char>& awake) {
  bool changed = false;
  for (std::size_t i = 0; i < m_rows.size(); ++i) {
    const int r = m_merged[i];
    const int representative = r >= 0 && !awake[static_cast<std::size_t>(r)] ? kOutsideCluster : r;
    changed = changed || representative != m_rows[i].representative;
    m_rows[i].representative = representative;
  }
  if (changed) buildAdjacency();
}

bool ContactRows::allPlastic() const {
  for (std::size_t i = 0; i < m_rows.size(); ++i)
    if (m_merged[i] == static_cast<int>(i) && m_rows[i].restitution != 0) return false;
  return true;
}

Scalar ContactRows::largestViolation(const Scalar* v) const {
  Scalar worst = 0;
  for (const int r : m_active) worst = std::max(worst, -velocity(r, v) * m_rows[static_cast<std::size_t>(r)].invSqrtD);
  return worst;
}

Scalar ContactRows::coupling(int i, int j) const {
  const Row& ri = m_rows[static_cast<std::size_t>(i)];
  const Row& rj = m_rows[static_cast<std::size_t>(j)];
  Scalar value = 0;
  for (int t = 0; t < ri.termCount; ++t)
    for (int u = 0; u < rj.termCount; ++u) {
      if (ri.terms[t].group != rj.terms[u].group) continue;
      const Index size = ri.terms[t].size;
      for (Index x = 0; x < size; ++x)
        value += m_coefficientBase[ri.terms[t].offset + x] *
                 m_w[static_cast<std::size_t>(rj.terms[u].offset + x)];
    }
  return value;
}

}  // namespace propimpact::detail
