#include "PlasticStage.h"

#include "Capacity.h"
#include "MassFactor.h"

#include <Eigen/Eigenvalues>
#include <algorithm>
#include <cmath>
#include <limits>

namespace propimpact::detail {
namespace {

// Projected successive over-relaxation for the iterative plastic solve. Any
// factor in (0, 2) still lowers ½λᵀWλ + λᵀJv₀ at every row (so energy is never
// gained) and converges for a symmetric PSD Delassus matrix; 1.5 took about a
// quarter of plain Gauss–Seidel's sweeps on the settled 1,000-sphere pile.
constexpr Scalar kOverRelaxation = 1.5;

// Gauss–Seidel's hand-over to the conjugate-gradient solve (solveIterative):
// its contraction over the last kRateWindow sweeps predicts how many more it
// needs; beyond kLongTail in all it hands over. An iteration of
// ProjectedConjugateGradient costs 1.5 sweeps in instructions (callgrind) and
// about 2.5 in time on the sphere pile; on the landing benchmark's columns it
// needed 18-56 where Gauss–Seidel took 58-240 sweeps, on the sphere pile
// 59-84 where Gauss–Seidel took 46-84. 90 kept the pile's plastic stage at
// Gauss–Seidel's time and cut the landing's worst step's from 3.3 to 2.1 ms
// (60: 2.0 and the pile 1.6 × slower; 120: 2.4).
constexpr std::int64_t kRateWindow = 8;
constexpr Scalar kLongTail = 90;

bool predictsLongTail(Scalar before, Scalar now, Scalar tolerance, std::int64_t sweeps) {
  if (!(now < before)) return true;  // not contracting at all
  const Scalar perSweep = std::log(now / before) / kRateWindow;
  return Scalar(sweeps) + std::log(tolerance / now) / perSweep > kLongTail;
}

// Passes of iterative refinement after an exact solve left rows violated
// (refineExact); each costs one more exact solve and runs only while it helps.
constexpr int kRefinementPasses = 8;

}  // namespace

void PlasticStage::reserve(const ProblemBounds& b, int denseLimit) {
  // An exact solve's rows touch at most two rigid groups each.
  const Index denseRows = std::min<Index>(b.contacts, std::max(denseLimit, 0));
  const Index denseDofs = std::min<Index>(b.dofs, 12 * denseRows);
  for (std::vector<char>* v : {&m_groupTouched, &m_massFactored, &m_prescribedGroups}) reserveCapacity(*v, b.blocks);
  for (std::vector<Index>* v : {&m_factorColumn, &m_factorOffset}) reserveCapacity(*v, b.blocks);
  reserveCapacity(m_factorTransposed, 6 * denseDofs);
  reserveCapacity(m_factorRows, denseRows * denseDofs);
  reserveCapacity(m_factorSupport, denseRows);
  reserveCapacity(m_primal, denseDofs);
  for (std::vector<Scalar>* v : {&m_compactS, &m_compactUnit, &m_compactLambda, &m_candidateLambda, &m_refineLambda,
                                 &m_lambdaFromStart})
    reserveCapacity(*v, b.contacts);
  for (std::vector<Scalar>* v : {&m_candidate, &m_capped, &m_fromStart, &m_problemOrder, &m_prescribed, &m_drift,
                                 &m_violating})
    reserveCapacity(*v, b.dofs);
  m_lcp.reserve(denseRows, denseDofs);
  m_conjugateGradient.reserve(b.contacts, b.dofs, b.blocks);
}

namespace {

// Per group: 1 where an active row has a term.
void markActiveGroups(const StageContext& c, std::vector<char>& touched) {
  touched.assign(c.bodies.groups().size(), 0);
  for (const int r : c.rows.active()) {
    const Row& row = c.rows[static_cast<std::size_t>(r)];
    for (int t = 0; t < row.termCount; ++t) touched[static_cast<std::size_t>(row.terms[t].group)] = 1;
  }
}

}  // namespace

Scalar PlasticStage::energyOf(const StageContext& c, const Scalar* internal) {
  const auto n = static_cast<std::size_t>(c.bodies.dofs());
  if (m_problemOrder.size() < n) m_problemOrder.resize(n);
  c.bodies.scatter(internal, m_problemOrder.data());
  return c.bodies.kineticEnergy(Eigen::Map<const VectorX>(m_problemOrder.data(), c.bodies.dofs()));
}

// The row tolerance of "sees a prescribed motion": the fuzz check's own (1e-8 of the scale).
constexpr Scalar kPrescribedSeen = 1e-8;

// Whether a row's constant term is a bias that can feed energy in: one the
// problem gives (a kinematic body's motion), or a joint's velocity error
// carried into the row (ResolveOptions::jointErrorAsBias) that the row sees
// above kPrescribedSeen of the scale, as the fuzz check counts a joint error
// as prescribed motion. A joint error of round-off (2.6e-23 against a row
// norm of 138 in finding capped-16dof-joint-energy-gain-with-the-guarantee-off)
// is no prescribed motion, and counting it turned the energy guarantee off.
bool PlasticStage::biased(const StageContext& c) {
  if (!c.rows.anyBias()) return false;
  const ImpactProblem& p = c.bodies.problem();
  for (int r = 0; r < p.contactCount(); ++r)
    if (p.contact(r).bias != 0) return true;
  for (const int r : c.rows.active()) {
    const Row& row = c.rows[static_cast<std::size_t>(r)];
    if (std::abs(row.bias) * row.invSqrtD > kPrescribedSeen * c.scale) return true;
  }
  return false;
}

bool PlasticStage::conservesEnergy(const StageContext& c) {
  if (m_conservationKnown) return m_conserves;
  m_conservationKnown = true;
  m_conserves = !biased(c);
  if (!m_conserves || !m_v0) return m_conserves;
  // Only the active rows read it: the groups they touch, not the whole component.
  markActiveGroups(c, m_prescribedGroups);
  c.bodies.prescribedPart(m_v0, m_prescribed, &m_prescribedGroups);
  for (const int r : c.rows.active())
    if (std::abs(c.rows.velocity(r, m_prescribed.data())) * c.rows[static_cast<std::size_t>(r)].invSqrtD > kPrescribedSeen * c.scale)
      m_conserves = false;
  return m_conserves;
}

PlasticStage::Judgement PlasticStage::judge(const StageContext& c, const Scalar* velocity, Scalar startEnergy) {
  Judgement j;
  j.violation = c.rows.largestViolation(velocity);
  if (conservesEnergy(c)) {
    j.gain = energyOf(c, velocity) - startEnergy;
    j.gainsEnergy = j.gain > startEnergy * kEnergyRoundOff;
  }
  return j;
}

void PlasticStage::buildFactorRows(const StageContext& c) {
  const SolverBodies& bodies = c.bodies;
  const ContactRows& rows = c.rows;
  const std::size_t groupCount = bodies.groups().size();
  markActiveGroups(c, m_groupTouched);
  // Lᵀ only for the groups the active rows touch, packed: a cluster grown
  // inside a large touching component must not pay for the whole component.
  m_factorOffset.assign(groupCount, -1);
  m_massFactored.assign(groupCount, 0);
  Index packed = 0;
  for (std::size_t gi = 0; gi < groupCount; ++gi) {
    if (!m_groupTouched[gi]) continue;
    m_factorOffset[gi] = packed;
    packed += bodies.groups()[gi].size * bodies.groups()[gi].size;
  }
  if (m_factorTransposed.size() < static_cast<std::size_t>(packed)) m_factorTransposed.resize(static_cast<std::size_t>(packed));
  for (std::size_t gi = 0; gi < groupCount; ++gi) {
    if (!m_groupTouched[gi]) continue;
    const Group& g = bodies.groups()[gi];
    Eigen::Map<MatrixX> factor(m_factorTransposed.data() + m_factorOffset[gi], g.size, g.size);
    const auto fill = [&](const auto& eig) {
      const auto values = eig.eigenvalues();
      // An eigenvalue at round-off level is a zero the arithmetic missed (a
      // joint's projection cancels to ~1e-16 relative). Under the square root
      // it became a mobility of 1e-8 relative, far above what the active-set
      // solve takes for dependence, and an infeasible squeeze pushed impulses
      // of 1e20 along it (fuzz finding
      // joint-round-off-mobility-drove-plastic-impulses-to-1e20). The cut-off
      // is the one below which a row already counts as unmovable.
      const Scalar cutoff = kMetricNoise * values.cwiseAbs().maxCoeff();
      for (Index k = 0; k < g.size; ++k)
        factor.row(k) = (values[k] > cutoff ? std::sqrt(values[k]) : Scalar(0)) * eig.eigenvectors().col(k).transpose();
    };
    if (bodies.joined(gi)) {
      factor = Eigen::Map<const MatrixX>(bodies.jointFactor(gi), g.size, g.size).transpose();
    } else if (g.block >= 0 && !bodies.problem().block(g.block).rigid) {
      const ImpactProblem& p = bodies.problem();
      detail::inverseCholeskyFactor(p.massData() + p.block(g.block).matrixOffset, g.size, factor);
      m_massFactored[gi] = 1;
    } else if (g.rigid) {
      fill(Eigen::SelfAdjointEigenSolver<Matrix6>(bodies.rigidInertia(gi).inverse()));  // fixed size, no heap
    } else {
      const Eigen::Map<const MatrixX> minv(bodies.inverseMass(gi), g.size, g.size);
      if (g.size == 6)
        fill(Eigen::SelfAdjointEigenSolver<Matrix6>(Matrix6(minv)));
      else
        fill(Eigen::SelfAdjointEigenSolver<MatrixX>(minv));
    }
  }
  const auto m = static_cast<Index>(rows.active().size());
  m_factorColumn.assign(groupCount, -1);
  m_factorDofs = 0;
  for (const int r : rows.active()) {
    const Row& row = rows[static_cast<std::size_t>(r)];
    for (int t = 0; t < row.termCount; ++t) {
      const auto g = static_cast<std::size_t>(row.terms[t].group);
      if (m_factorColumn[g] < 0) {
        m_factorColumn[g] = m_factorDofs;
        m_factorDofs += row.terms[t].size;
      }
    }
  }
  m_factorRows.assign(static_cast<std::size_t>(m * m_factorDofs), 0);
  m_factorSupport.assign(static_cast<std::size_t>(m), RowSupport{});
  for (Index a = 0; a < m; ++a) {
    const Row& row = rows[static_cast<std::size_t>(rows.active()[static_cast<std::size_t>(a)])];
    for (int t = 0; t < row.termCount; ++t) {
      const GroupTerm& term = row.terms[t];
      const auto gi = static_cast<std::size_t>(term.group);
      m_factorSupport[static_cast<std::size_t>(a)].begin[t] = m_factorColumn[gi];
      m_factorSupport[static_cast<std::size_t>(a)].length[t] = term.size;
      Eigen::Map<const MatrixX> factor(m_factorTransposed.data() + m_factorOffset[gi], term.size, term.size);
      Eigen::Map<const VectorX> coefficient(rows.coefficients(term), term.size);
      Eigen::Map<VectorX>(m_factorRows.data() + a * m_factorDofs + m_factorColumn[gi], term.size).noalias() +=
          factor * coefficient;
    }
  }
}

std::int64_t PlasticStage::solveExact(const StageContext& c, const Scalar* start, Scalar* out) {
  const ContactRows& rows = c.rows;
  const auto m = static_cast<Index>(rows.active().size());
  buildFactorRows(c);
  m_compactS.resize(static_cast<std::size_t>(m));
  m_compactUnit.resize(static_cast<std::size_t>(m));
  m_compactLambda.resize(static_cast<std::size_t>(m));
  for (Index a = 0; a < m; ++a) {
    const int r = rows.active()[static_cast<std::size_t>(a)];
    m_compactS[static_cast<std::size_t>(a)] = rows.velocity(r, start);
    m_compactUnit[static_cast<std::size_t>(a)] = rows[static_cast<std::size_t>(r)].invSqrtD;
  }
  const std::int64_t iterations = m_lcp.solve(m_factorRows.data(), m, m_factorDofs, m_compactS.data(),
                                              m_compactUnit.data(), c.threshold, m_compactLambda.data(),
                                              m_factorSupport.data());
  applyPrimal(c, out);
  return iterations;
}

// out += L x with x = Aᵀλ, summed over the rows' supports (see the header):
// nearly dependent rows take multipliers of 1e10 whose sum x is small, and x
// is what the LCP's rows saw.
void PlasticStage::applyPrimal(const StageContext& c, Scalar* out) {
  const auto m = static_cast<Index>(c.rows.active().size());
  m_primal.assign(static_cast<std::size_t>(m_factorDofs), 0);
  for (Index a = 0; a < m; ++a) {
    const Scalar value = m_compactLambda[static_cast<std::size_t>(a)];
    if (value == 0) continue;
    const RowSupport& support = m_factorSupport[static_cast<std::size_t>(a)];
    const Scalar* row = m_factorRows.data() + a * m_factorDofs;
    for (int s = 0; s < 2; ++s)
      for (Index k = support.begin[s]; k < support.begin[s] + support.length[s]; ++k)
        m_primal[static_cast<std::size_t>(k)] += value * row[k];
  }
  const std::vector<Group>& groups = c.bodies.groups();
  for (std::size_t gi = 0; gi < groups.size(); ++gi) {
    if (m_factorColumn[gi] < 0 || !(c.bodies.joined(gi) || m_massFactored[gi])) continue;
    const Group& g = groups[gi];
    Eigen::Map<const MatrixX> factor(m_factorTransposed.data() + m_factorOffset[gi], g.size, g.size);
    Eigen::Map<VectorX>(out + g.offset, g.size).noalias() +=
        factor.transpose() * Eigen::Map<const VectorX>(m_primal.data() + m_factorColumn[gi], g.size);
  }
  // A rigid body outside joints has M⁻¹ from the problem, which its cut
  // eigen-factor's L Lᵀ matches only to round-off: the impulses must explain
  // its change through M⁻¹ itself (momentum, Δv = M⁻¹Jᵀλ).
  for (Index a = 0; a < m; ++a) {
    const Scalar value = m_compactLambda[static_cast<std::size_t>(a)];
    if (value == 0) continue;
    const Row& row = c.rows[static_cast<std::size_t>(c.rows.active()[static_cast<std::size_t>(a)])];
    for (int t = 0; t < row.termCount; ++t) {
      const GroupTerm& term = row.terms[t];
      const auto gi = static_cast<std::size_t>(term.group);
      if (c.bodies.joined(gi) || m_massFactored[gi]) continue;
      const Scalar* w = c.rows.w(term);
      for (Index k = 0; k < term.size; ++k) out[term.velocityOffset + k] += value * w[k];
    }
  }
}

// Iterative refinement of an exact solve left violated: the rows' true
// velocities and the LCP's s agree only to the round-off of J(Lx) against
// (JL)x, which rows far below their reference see magnified. Solving again
// from the outcome, with the rows' true velocities as s0, adds the correction.
// Before the outcome was taken from the LCP's primal (applyPrimal) this
// closed finding capped-rigid-joint-bias-plastic-residual-1.2e-4-of-scale
// (0.277 to 4.9e-6 in six passes); the primal route leaves it 1e-8 there. A
// pass stands only if the chooser prefers it, so energy is never gained by
// one (PlasticStage.h).
std::int64_t PlasticStage::refineExact(const StageContext& c, Scalar* out, Scalar startEnergy, Judgement& best) {
  const auto m = static_cast<Index>(c.rows.active().size());
  std::int64_t iterations = 0;
  // Not after a proof that no outcome is feasible (closing walls): the least
  // violation is then the answer, and a pass would move it by round-off only,
  // which must not change which fallback the cap takes.
  for (int pass = 0; pass < kRefinementPasses && best.violation > c.threshold && !best.gainsEnergy &&
                     !m_lcp.provedInfeasible();
       ++pass) {
    m_refineLambda.assign(m_compactLambda.begin(), m_compactLambda.end());
    std::copy(out, out + c.bodies.dofs(), m_candidate.begin());
    // solveExact reads every row's velocity before it applies an impulse, so
    // start and outcome may share the buffer.
    const std::int64_t more = solveExact(c, m_candidate.data(), m_candidate.data());
    const Judgement j = judge(c, m_candidate.data(), startEnergy);
    if (!j.betterThan(best)) {
      m_compactLambda.swap(m_refineLambda);
      break;
    }
    std::copy(m_candidate.begin(), m_candidate.end(), out);
    for (Index a = 0; a < m; ++a) m_compactLambda[static_cast<std::size_t>(a)] += m_refineLambda[static_cast<std::size_t>(a)];
    iterations += more;
    best = j;
  }
  return iterations;
}

// The iterative solves' start: \p start plus, with \p warmStart, half the
// elastic impulses — exact for one contact, and with f(λ) = ½λᵀWλ + λᵀJv₀
// convex, f(0) = 0 and f(λₑ) ≤ 0, the start already loses energy, which every
// later step then only lowers further.
void PlasticStage::startIterative(const StageContext& c, const Scalar* start, Scalar* out, std::vector<Scalar>& compact,
                                  const Scalar* warmStart) {
  const ContactRows& rows = c.rows;
  std::copy(start, start + c.bodies.dofs(), out);
  compact.assign(rows.active().size(), 0);
  if (!warmStart) return;
  for (std::size_t a = 0; a < rows.active().size(); ++a) {
    const int r = rows.active()[a];
    const Scalar value = std::max(Scalar(0), Scalar(0.5) * warmStart[r]);
    compact[a] = value;
    if (value != 0) rows.applyImpulse(r, value, out);
  }
}

// Projected Gauss–Seidel (over-relaxed) on the LCP from \p start into \p out,
// swept until the largest complementarity violation is below tolerance (or the
// sweep cap); multipliers in \p compact (active order). Returns the sweeps run.
std::int64_t PlasticStage::solveIterative(const StageContext& c, const Scalar* start, Scalar* out,
                                          std::vector<Scalar>& compact, const Scalar* warmStart, bool mayHandOver) {
  const ContactRows& rows = c.rows;
  const auto m = static_cast<Index>(rows.active().size());
  startIterative(c, start, out, compact, warmStart);
  std::int64_t sweep = 0;
  const Scalar tolerance = c.options.plasticIterativeTolerance * c.scale;
  m_handedOver = false;
  Scalar worstBefore = 0;  // at the last rate check
  for (; sweep < c.options.plasticIterativeSweepCap; ++sweep) {
    Scalar worst = 0;
    for (Index a = 0; a < m; ++a) {
      const int r = rows.active()[static_cast<std::size_t>(a)];
      const Row& row = rows[static_cast<std::size_t>(r)];
      const Scalar current = compact[static_cast<std::size_t>(a)];
      const Scalar relative = rows.velocity(r, out);
      const Scalar next = std::max(Scalar(0), current - kOverRelaxation * relative / row.d);
      const Scalar violation = std::abs(next - current) * row.d * row.invSqrtD;  // |Δλ|·√d without a root per row
      worst = std::max(worst, violation);
      if (next != current) {
        rows.applyImpulse(r, next - current, out);
        compact[static_cast<std::size_t>(a)] = next;
      }
    }
    if (worst <= tolerance) break;
    if (mayHandOver && (sweep + 1) % kRateWindow == 0) {
      if (sweep + 1 > kRateWindow && predictsLongTail(worstBefore, worst, tolerance, sweep + 1)) {
        m_handedOver = true;
        break;
      }
      worstBefore = worst;
    }
  }
  return std::min<std::int64_t>(sweep + 1, c.options.plasticIterativeSweepCap);
}

PlasticStage::Judgement PlasticStage::solve(const StageContext& c, const Scalar* start, Scalar* out, Scalar* lambda,
                                            ImpactResult* stats, const Scalar* warmStart) {
  const ContactRows& rows = c.rows;
  const auto m = static_cast<Index>(rows.active().size());
  std::copy(start, start + c.bodies.dofs(), out);
  if (m == 0) return Judgement{};
  const Scalar startEnergy = conservesEnergy(c) ? energyOf(c, start) : 0;
  m_candidate.resize(static_cast<std::size_t>(c.bodies.dofs()));
  const auto consider = [&](const Scalar* warm, PlasticMethod& method, std::int64_t& iterations, Judgement& best) {
    const std::int64_t sweeps = solveIterative(c, start, m_candidate.data(), m_candidateLambda, warm);
    keepChangeAdmissible(c, start, m_candidate.data());
    const Judgement j = judge(c, m_candidate.data(), startEnergy);
    if (!j.betterThan(best)) return;
    std::copy(m_candidate.begin(), m_candidate.end(), out);
    m_compactLambda.swap(m_candidateLambda);
    method = PlasticMethod::Iterative;
    iterations = sweeps;
    best = j;
  };
  PlasticMethod method = PlasticMethod::ActiveSet;
  std::int64_t iterations = 0;
  Judgement best;
  if (m <= c.options.plasticDenseLimit) {
    iterations = solveExact(c, start, out);
    best = judge(c, out, startEnergy);
    iterations += refineExact(c, out, startEnergy, best);
    // Left violated, the exact solve either met a problem with no feasible
    // outcome (its least violation is then the best there is) or lost the
    // answer to round-off (fuzz finding
    // plastic-solve-gains-energy-with-mass-conditioning-7e13). Gauss–Seidel
    // never takes such steps.
    if (best.violation > c.threshold || best.gainsEnergy) consider(best.gainsEnergy ? nullptr : warmStart, method, iterations, best);
  } else {
    method = PlasticMethod::Iterative;
    iterations = solveIterative(c, start, out, m_compactLambda, warmStart, true);
    if (m_handedOver) {
      // From the start again: from Gauss–Seidel's multipliers the column of
      // IterativePlastic.ColumnOfBoxesStopsInFewIterations took 186 iterations, from the start 79.
      startIterative(c, start, out, m_compactLambda, warmStart);
      iterations += m_conjugateGradient.solve(c, out, m_compactLambda, c.options.plasticIterativeSweepCap - iterations);
    }
    keepChangeAdmissible(c, start, out);
    best = judge(c, out, startEnergy);
    // A non-finite outcome (an iteration that ran off on a problem without a
    // plastic outcome) must lose to any finite candidate.
    if (!std::isfinite(best.violation) || !Eigen::Map<const VectorX>(out, c.bodies.dofs()).allFinite())
      best.violation = std::numeric_limits<Scalar>::infinity();
    const Scalar accepted = std::max(c.threshold, c.options.plasticIterativeTolerance * c.scale);
    if (!(best.violation <= accepted) || best.gainsEnergy)
      consider(best.gainsEnergy ? nullptr : warmStart, method, iterations, best);
  }
  // The guarantee's last candidate: Gauss–Seidel from λ = 0 (see the header).
  if (best.gainsEnergy) consider(nullptr, method, iterations, best);
  for (Index a = 0; a < m; ++a)
    lambda[rows.active()[static_cast<std::size_t>(a)]] += m_compactLambda[static_cast<std::size_t>(a)];
  best.method = method;
  if (stats) {
    stats->plasticMethod = method;
    stats->plasticIterations = std::max(stats->plasticIterations, static_cast<int>(std::min<std::int64_t>(iterations, INT32_MAX)));
    stats->plasticResidual = std::max(stats->plasticResidual, best.violation);
  }
  return best;
}

// In exact arithmetic the capped state's velocity change is admissible, a sum
// of M⁻¹_c Jᵀλ. Thousands of reflections with impulses up to 1e9 leave
// round-off along the joints' constraint directions (B Δv = 0.02 in finding
// nearly-locked-row-moved-by-its-remaining-mobility), which the joints must
// not see (SPEC §6). Removing the constraint part C Δv (an M-orthogonal
// projection) keeps the nearest admissible change in the M-norm, and with the
// start admissible (ImpactResolver sets the joint error aside) it can only
// lower the energy: ‖v0 + Δv − CΔv‖²_M = ‖v0 + Δv‖²_M − ‖CΔv‖²_M.
// Gauss–Seidel and the conjugate gradient drift the same way: run to their
// cap without converging (residual 2e4, impulses 2e10 on rows a one-body
// joint nearly locks) they moved the joint by 4.8e10 (finding
// 42dof-2-joints-capped-joint-velocity-error-changed-4.8e10-unseeded), so
// their outcomes are projected too, before they are judged.
void PlasticStage::keepChangeAdmissible(const StageContext& c, const Scalar* v0, Scalar* velocity) {
  if (!c.bodies.anyJoint()) return;
  const auto n = static_cast<std::size_t>(c.bodies.dofs());
  m_drift.resize(n);
  for (std::size_t k = 0; k < n; ++k) m_drift[k] = velocity[k] - v0[k];
  c.bodies.splitJointError(m_drift.data(), m_violating);
  for (std::size_t k = 0; k < n; ++k) velocity[k] = v0[k] + m_drift[k];
}

Fallback PlasticStage::settleCapped(const StageContext& c, const Scalar* v0, Scalar* velocity, Scalar* lambda,
                                    ImpactResult* stats) {
  const auto n = static_cast<std::size_t>(c.bodies.dofs());
  keepChangeAdmissible(c, v0, velocity);
  m_capped.assign(velocity, velocity + n);
  const Scalar residualBefore = stats ? stats->plasticResidual : 0;
  const PlasticMethod methodBefore = stats ? stats->plasticMethod : PlasticMethod::NotNeeded;
  const Judgement capped = solve(c, m_capped.data(), velocity, lambda, stats);
  // Rows the propagation already pushed hard (a wedge's opposing pair, biased
  // rows nearly locked by a joint) can leave no feasible outcome from the
  // capped state (findings capped-near-dependent-pair-left-violated-by-a-
  // blocked-row and biased-joints-capped-wedge-plastic-solve-left-violated
  // ended with violations up to 1e6 per unit normal). A large capped cluster
  // is accepted at the iterative solve's own tolerance: it must not pay a
  // second solve for what it cannot do better.
  const bool iterative = static_cast<Index>(c.rows.active().size()) > c.options.plasticDenseLimit;
  const Scalar accepted = iterative ? std::max(c.threshold, c.options.plasticIterativeTolerance * c.scale) : c.threshold;
  if (!capped.gainsEnergy && capped.violation <= accepted) return Fallback::PlasticFromCapped;
  m_fromStart.resize(n);
  m_lambdaFromStart.assign(c.rows.size(), 0);
  const Judgement fromStart = solve(c, v0, m_fromStart.data(), m_lambdaFromStart.data(), stats);
  // The report describes the outcome that stands (the discarded one's
  // residual and method are dropped): the second solve had overwritten the
  // method, and a capped outcome Gauss–Seidel settled was reported as an
  // active-set one, whose residual the fuzz check holds to a far tighter bound
  // (finding capped-16dof-joint-energy-gain-with-the-guarantee-off).
  const auto report = [&](const Judgement& stands) {
    if (!stats) return;
    stats->plasticMethod = stands.violation >= residualBefore ? stands.method : methodBefore;
    stats->plasticResidual = std::max(residualBefore, stands.violation);
  };
  if (!fromStart.betterThan(capped)) {
    report(capped);
    return Fallback::PlasticFromCapped;
  }
  report(fromStart);
  std::copy(m_fromStart.begin(), m_fromStart.end(), velocity);
  std::copy(m_lambdaFromStart.begin(), m_lambdaFromStart.end(), lambda);
  return Fallback::PlasticFromStart;
}

}  // namespace propimpact::detail
