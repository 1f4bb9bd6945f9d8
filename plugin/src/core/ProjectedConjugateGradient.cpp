#include "ProjectedConjugateGradient.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "Capacity.h"

namespace propimpact::detail {
namespace {

constexpr Scalar kInfinity = std::numeric_limits<Scalar>::infinity();

// Γ of MPRGP: how much the chopped gradient may outweigh the reduced free one
// before a bound row is released. Dostál's analysis holds for any Γ > 0; 1 is
// the usual choice.
constexpr Scalar kProportioning = 1;

// The running gradient is updated by g ← g − α Â p; it is re-read from the
// velocity this often so that its round-off cannot steer the iteration.
constexpr std::int64_t kGradientRefresh = 32;

// pᵀÂp below this fraction of pᵀp is round-off, not curvature: Â has a unit
// diagonal and its products carry errors of about ε·‖Â‖·‖p‖². Taken as
// curvature, a direction in the null space of 43 rows over 6 dofs got steps
// of 1e300.
constexpr Scalar kFlatCurvature = 1e-12;

// A projected gradient this many times the first one means divergence (see
// solve()): on an infeasible 43-contact, 6-dof fuzz input μ grew until the
// velocity overflowed (CI seed 10).
constexpr Scalar kDivergence = 1e8;

Scalar dot(const std::vector<Scalar>& a, const std::vector<Scalar>& b, std::size_t m) {
  Scalar sum = 0;
  for (std::size_t i = 0; i < m; ++i) sum += a[i] * b[i];
  return sum;
}

}  // namespace

// Which groups the active rows touch, and how many active rows each has.
void ProjectedConjugateGradient::collectGroups(const StageContext& c) {
  m_groupRows.assign(c.bodies.groups().size(), 0);
  m_touchedGroups.clear();
  for (const int r : c.rows.active()) {
    const Row& row = c.rows[static_cast<std::size_t>(r)];
    for (int t = 0; t < row.termCount; ++t) {
      const int g = row.terms[t].group;
      if (m_groupRows[static_cast<std::size_t>(g)]++ == 0) m_touchedGroups.push_back(g);
    }
  }
}

// ᾱ for the projected-gradient steps: MPRGP needs ᾱ ∈ (0, 2/‖Â‖], and the
// Gershgorin bound G ≥ ‖Â‖ makes 2/G safe. (Power iterations towards 1/‖Â‖
// cost eight products and changed neither the landing's nor the pile's time.)
Scalar ProjectedConjugateGradient::stepBound(const StageContext& c) const {
  int widest = 1;
  for (const int r : c.rows.active()) {
    const Row& row = c.rows[static_cast<std::size_t>(r)];
    int shared = 0;
    for (int t = 0; t < row.termCount; ++t) shared += m_groupRows[static_cast<std::size_t>(row.terms[t].group)];
    widest = std::max(widest, shared);
  }
  return Scalar(2) / Scalar(widest);
}

// ĝ = D^-½ (J v + b): the scaled gradient is each row's unit-normal speed.
void ProjectedConjugateGradient::readGradient(const StageContext& c, const Scalar* velocity) {
  const std::vector<int>& active = c.rows.active();
  for (std::size_t a = 0; a < active.size(); ++a)
    m_gradient[a] = c.rows.velocity(active[a], velocity) * c.rows[static_cast<std::size_t>(active[a])].invSqrtD;
}

// m_product = Â d, through the velocity change u = M⁻¹ Jᵀ D^-½ d kept in m_moved.
void ProjectedConjugateGradient::multiply(const StageContext& c, const std::vector<Scalar>& direction) {
  for (const int g : m_touchedGroups) {
    const Group& group = c.bodies.groups()[static_cast<std::size_t>(g)];
    std::fill_n(m_moved.begin() + group.offset, group.size, Scalar(0));
  }
  const std::vector<int>& active = c.rows.active();
  for (std::size_t a = 0; a < active.size(); ++a)
    if (direction[a] != 0)
      c.rows.applyImpulse(active[a], direction[a] * c.rows[static_cast<std::size_t>(active[a])].invSqrtD, m_moved.data());
  for (std::size_t a = 0; a < active.size(); ++a)
    m_product[a] = c.rows.jacobianTimes(active[a], m_moved.data()) * c.rows[static_cast<std::size_t>(active[a])].invSqrtD;
}

// μ ← μ − step d, with the velocity and the gradient following (d was the last multiplied).
void ProjectedConjugateGradient::moveAlong(const StageContext& c, Scalar step, const std::vector<Scalar>& direction,
                                           Scalar* out) {
  const std::size_t m = c.rows.active().size();
  for (std::size_t a = 0; a < m; ++a) {
    m_mu[a] -= step * direction[a];
    m_gradient[a] -= step * m_product[a];
  }
  for (const int g : m_touchedGroups) {
    const Group& group = c.bodies.groups()[static_cast<std::size_t>(g)];
    for (Index k = group.offset; k < group.offset + group.size; ++k)
      out[k] -= step * m_moved[static_cast<std::size_t>(k)];
  }
}

// The expansion step's projected-gradient half: μ ← max(0, μ − ᾱ φ(μ)).
void ProjectedConjugateGradient::expand(const StageContext& c, Scalar alphaBar, Scalar* out) {
  const std::vector<int>& active = c.rows.active();
  for (std::size_t a = 0; a < active.size(); ++a) {
    const Scalar free = m_mu[a] > 0 ? m_gradient[a] : 0;
    const Scalar next = std::max(Scalar(0), m_mu[a] - alphaBar * free);
    const Scalar change = next - m_mu[a];
    if (change != 0) c.rows.applyImpulse(active[a], change * c.rows[static_cast<std::size_t>(active[a])].invSqrtD, out);
    m_mu[a] = next;
  }
  readGradient(c, out);
}

// φ: the gradient on rows off their bound, zero on bound rows.
void ProjectedConjugateGradient::freeGradient(std::vector<Scalar>& into) const {
  for (std::size_t a = 0; a < m_mu.size(); ++a) into[a] = m_mu[a] > 0 ? m_gradient[a] : 0;
}

void ProjectedConjugateGradient::reserve(int rows, Index dofs, int groups) {
  for (std::vector<Scalar>* v : {&m_mu, &m_gradient, &m_direction, &m_product, &m_chopped, &m_previous})
    reserveCapacity(*v, rows);
  reserveCapacity(m_moved, dofs);
  reserveCapacity(m_groupRows, groups);
  reserveCapacity(m_touchedGroups, groups);
}

// The chopped gradient (into m_chopped) and the iteration's three measures.
ProjectedConjugateGradient::Measures ProjectedConjugateGradient::measure(std::size_t m, Scalar alphaBar) {
  Measures out;
  for (std::size_t a = 0; a < m; ++a) {
    const Scalar g = m_gradient[a];
    const bool free = m_mu[a] > 0;
    m_chopped[a] = free ? 0 : std::min(g, Scalar(0));
    out.worst = std::max(out.worst, std::abs(free ? g : m_chopped[a]));
    out.chopped += m_chopped[a] * m_chopped[a];
    if (free) out.reducedFree += std::min(m_mu[a] / alphaBar, g) * g;
  }
  return out;
}

// Proportioning: release bound rows along the chopped gradient (exact line
// search). False when there is no curvature along that descent direction
// (beyond round-off): the problem has no minimum.
bool ProjectedConjugateGradient::proportion(const StageContext& c, Scalar chopped, Scalar* out) {
  const std::size_t m = c.rows.active().size();
  multiply(c, m_chopped);
  const Scalar curvature = dot(m_chopped, m_product, m);
  if (!(curvature > kFlatCurvature * chopped)) return false;
  moveAlong(c, chopped / curvature, m_chopped, out);
  freeGradient(m_direction);
  return true;
}

// A conjugate-gradient step within the face, or, when a bound blocks it, an
// expansion: to the face's boundary, then a projected-gradient step. False
// on unbounded descent (no plastic outcome exists).
bool ProjectedConjugateGradient::conjugateOrExpand(const StageContext& c, Scalar alphaBar, Scalar* out) {
  const std::size_t m = c.rows.active().size();
  multiply(c, m_direction);
  const Scalar curvature = dot(m_direction, m_product, m);
  const Scalar conjugateStep = curvature > kFlatCurvature * dot(m_direction, m_direction, m)
                                   ? dot(m_gradient, m_direction, m) / curvature
                                   : kInfinity;
  Scalar feasibleStep = kInfinity;
  std::size_t blocking = m;
  for (std::size_t a = 0; a < m; ++a)
    if (m_direction[a] > 0 && m_mu[a] / m_direction[a] < feasibleStep) {
      feasibleStep = m_mu[a] / m_direction[a];
      blocking = a;
    }
  // A flat direction no bound blocks is unbounded descent: both steps are
  // infinite, and taking one made the velocity inf − inf = NaN (a unit test
  // of opposing rows squeezed by their biases; PlasticStage then discarded
  // the outcome as non-finite).
  if (blocking == m && !(conjugateStep < kInfinity)) return false;
  if (conjugateStep <= feasibleStep) {
    moveAlong(c, conjugateStep, m_direction, out);
    m_previous.swap(m_direction);
    freeGradient(m_direction);
    const Scalar beta = dot(m_direction, m_product, m) / curvature;
    for (std::size_t a = 0; a < m; ++a) m_direction[a] -= beta * m_previous[a];
    return true;
  }
  if (blocking == m) return false;
  moveAlong(c, feasibleStep, m_direction, out);
  m_mu[blocking] = 0;
  for (std::size_t a = 0; a < m; ++a) m_mu[a] = std::max(Scalar(0), m_mu[a]);
  expand(c, alphaBar, out);
  freeGradient(m_direction);
  return true;
}

std::int64_t ProjectedConjugateGradient::solve(const StageContext& c, Scalar* out, std::vector<Scalar>& compact,
                                               std::int64_t iterationCap) {
  const ContactRows& rows = c.rows;
  const std::vector<int>& active = rows.active();
  const std::size_t m = active.size();
  for (std::vector<Scalar>* v : {&m_mu, &m_gradient, &m_direction, &m_product, &m_chopped, &m_previous}) v->assign(m, 0);
  if (m_moved.size() < static_cast<std::size_t>(c.bodies.dofs())) m_moved.resize(static_cast<std::size_t>(c.bodies.dofs()));
  for (std::size_t a = 0; a < m; ++a) m_mu[a] = compact[a] / rows[static_cast<std::size_t>(active[a])].invSqrtD;
  collectGroups(c);
  const Scalar alphaBar = stepBound(c);
  const Scalar tolerance = c.options.plasticIterativeTolerance * c.scale;
  readGradient(c, out);
  freeGradient(m_direction);
  std::int64_t iteration = 0;
  Scalar firstWorst = 0;
  m_converged = false;
  for (; iteration < iterationCap; ++iteration) {
    if (iteration > 0 && iteration % kGradientRefresh == 0) readGradient(c, out);
    const Measures measures = measure(m, alphaBar);
    if (measures.worst <= tolerance) {
      m_converged = true;
      break;
    }
    if (iteration == 0) firstWorst = measures.worst;
    // Diverging: the problem has no plastic outcome (a prescribed motion
    // squeezes the bodies) and μ runs off along the unbounded direction. Stop
    // while the state is finite; PlasticStage's other candidates take over.
    if (!(measures.worst <= kDivergence * firstWorst)) break;
    const bool proportioning = measures.chopped > kProportioning * kProportioning * measures.reducedFree;
    if (!(proportioning ? proportion(c, measures.chopped, out) : conjugateOrExpand(c, alphaBar, out))) break;
  }
  for (std::size_t a = 0; a < m; ++a) compact[a] = m_mu[a] * rows[static_cast<std::size_t>(active[a])].invSqrtD;
  return std::min<std::int64_t>(iteration + 1, iterationCap);
}

}  // namespace propimpact::detail
