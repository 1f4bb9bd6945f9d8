#pragma once
// Stage "plastic solve" (SPEC §4, Correction 2):
//   min ½||v+ − v−||²_M  subject to  J v+ + b ≥ 0,
// solved exactly by the active-set method of PlasticSolver.h up to
// ResolveOptions::plasticDenseLimit rows, by projected over-relaxed
// Gauss–Seidel beyond, which hands a slowly converging tail (a stack) to the
// projected conjugate gradient of ProjectedConjugateGradient.h.
//
// For a joined group, whose M⁻¹_c is built from its factor (M⁻¹_c = L Lᵀ),
// and for a dense block outside joints, whose L is C⁻ᵀ from the Cholesky
// factor of its own mass M = C Cᵀ (MassFactor.h), the exact solve's outcome
// is v + L·(Aᵀλ), from the LCP's own primal (its velocity change in the
// factor's coordinates, A = J L), not v + M⁻¹_c Jᵀλ. A rigid body keeps
// v + M⁻¹Jᵀλ: its M⁻¹ is the problem's, and momentum (Δv = M⁻¹Jᵀλ) holds
// through it exactly (PlasticStage::applyPrimal). Rows then read
// s0 + (J L)(Aᵀλ): the LCP's own s, up to the round-off of two products,
// about ε·(Σλ‖aᵢ‖ + ‖J‖‖L‖‖Aᵀλ‖), whatever the multipliers and however
// closely L Lᵀ matches M⁻¹_c. Applying λ along M⁻¹_c Jᵀ added
// (M⁻¹_c − L Lᵀ)Jᵀλ: round-off of the metric times multipliers of 1e10,
// which rows far below their reference saw as violations up to 1e-4 of the
// scale (the rigid-joint-bias findings). L must also move what M⁻¹ moves: a
// dense block's factor is never an eigen-decomposition of M⁻¹ whose
// eigenvalues below 1e-13 of the largest are cut (right for a rigid body's
// locked axes): with κ(M) ≈ 7e13 that made the block's heaviest mode
// immobile to the LCP, rows that saw it had no feasible outcome, and the
// least violation, 2e-5..1e-4 of the scale, was returned (the dense-block
// findings, tests/regression/DenseBlockPlasticFindingsTest.cpp). For a dense
// block the primal agrees with M⁻¹Jᵀλ only to round-off growing with κ(M):
// what applying the impulses in Scalar costs at that conditioning anyway.
//
// One chooser over candidate outcomes decides what stands. Candidates are
// computed only while the best so far is not good enough: the exact solve
// (or Gauss–Seidel above the dense limit) and its iterative refinement from
// the outcome's true row velocities, then Gauss–Seidel from the same
// start, then — for a capped propagation — the plastic outcome from the
// impact's start. A candidate that gains energy is never preferred to one
// that does not; among those that do not, the less violated stands, and
// among those that all do, the smaller gain.
//
// Energy guarantee (no bias, SPEC §4): with b = 0 the outcome's energy change
// is f(λ) = ½λᵀWλ + λᵀJv₀, W = J M⁻¹ Jᵀ. Projected Gauss–Seidel with a
// relaxation factor in (0, 2) lowers the convex f at every row update, so
// from λ = 0 (f = 0) its outcome never has more energy than the start, in
// exact arithmetic and up to the round-off of its own small steps in floating
// point; the conjugate-gradient tail it may hand over to lowers f at every
// step too. The exact solve can lose that to cancellation when nearly dependent
// rows need multipliers of 1e10 (findings energy-gain-16dof-48contacts*: a
// 16-dof block of κ(M) = 7e13 went from 8.0 to 12.8 and 16.1). So every
// candidate's energy is measured, one above the start's by more than
// kEnergyRoundOff is rejected, and Gauss–Seidel from λ = 0 is always the last
// candidate: the plastic outcome never gains energy beyond that allowance,
// whatever the conditioning. With a bias (a kinematic body's motion, a joint
// error counted as bias) energy is not a conserved quantity of the dynamic
// bodies and only the violation decides; so with a prescribed motion (velocity
// along an axis no impulse can change, seen by a contact), which acts like one.
// A joint error or a prescribed motion that no row sees above 1e-8 of the
// scale is round-off, not a bias: the guarantee stays on (biased()).

#include <cstdint>
#include <vector>

#include "ContactRows.h"
#include "PlasticSolver.h"
#include "ProjectedConjugateGradient.h"
#include "SolverBodies.h"
#include "StageContext.h"
#include "propimpact/core/ImpactResult.h"
#include "propimpact/core/ResolveOptions.h"

namespace propimpact::detail {

/// Relative energy gain above which a plastic candidate counts as round-off garbage.
constexpr Scalar kEnergyRoundOff = 1e-10;

/// Solves plastic problems and settles capped propagations.
class PlasticStage {
 public:
  /// The plastic outcome from \p start (internal order) into \p out; its
  /// multipliers are added to \p lambda (per row). \p warmStart (per row,
  /// optional): the elastic impulses, half of which start Gauss–Seidel.
  /// \p stats (optional) receives method, iterations and residual.
  /// Returns how the outcome that stands was judged.
  struct Judgement {
    Scalar violation = 0;      ///< largest unit-normal approach left.
    bool gainsEnergy = false;  ///< energy above the start's by more than kEnergyRoundOff (never with a bias).
    PlasticMethod method = PlasticMethod::ActiveSet;  ///< how the outcome that stands was found.
    Scalar gain = 0;           ///< energy above the start's (0 with a bias).
    [[nodiscard]] bool betterThan(const Judgement& o) const {
      if (gainsEnergy != o.gainsEnergy) return !gainsEnergy;
      // Both gaining: the smaller gain. At κ(M) = 1e13 Gauss–Seidel's own
      // round-off gained 3.2e-10 of the energy and the exact solve 106 %, and
      // the less violated, the exact one, stood (finding
      // 16dof-joint-plastic-energy-gain-15.5-to-31.9-corpus-mutation).
      if (gainsEnergy) return gain < o.gain;
      return violation < o.violation;
    }
  };
  Judgement solve(const StageContext& c, const Scalar* start, Scalar* out, Scalar* lambda, ImpactResult* stats,
                  const Scalar* warmStart = nullptr);

  /// The cap's fallback: \p velocity is the capped state and \p lambda the
  /// impulses that reached it; both become the fallback's. From the capped
  /// state only more non-negative impulse is allowed, so rows the propagation
  /// pushed hard can leave no feasible outcome from there although one exists
  /// from \p v0, the impact's start; that outcome is then a candidate too.
  Fallback settleCapped(const StageContext& c, const Scalar* v0, Scalar* velocity, Scalar* lambda, ImpactResult* stats);

  /// Whether energy is a conserved quantity of this impact: no bias the
  /// rows see, no prescribed motion (decided once per begin()).
  [[nodiscard]] bool conservesEnergy(const StageContext& c);

  /// Room for a problem within \p bounds whose exact solves take at most
  /// \p denseLimit rows (ResolveOptions::plasticDenseLimit).
  void reserve(const ProblemBounds& bounds, int denseLimit);

  /// Starts a resolution whose impact starts at \p v0: whether energy is a
  /// conserved quantity of it is decided on the first solve.
  void begin(const Scalar* v0) {
    m_v0 = v0;
    m_conservationKnown = false;
  }

 private:
  Judgement judge(const StageContext& c, const Scalar* velocity, Scalar startEnergy);
  [[nodiscard]] Scalar energyOf(const StageContext& c, const Scalar* internal);
  [[nodiscard]] static bool biased(const StageContext& c);
  std::int64_t solveExact(const StageContext& c, const Scalar* start, Scalar* out);
  void applyPrimal(const StageContext& c, Scalar* out);
  std::int64_t refineExact(const StageContext& c, Scalar* out, Scalar startEnergy, Judgement& best);
  void startIterative(const StageContext& c, const Scalar* start, Scalar* out, std::vector<Scalar>& compact,
                      const Scalar* warmStart);
  std::int64_t solveIterative(const StageContext& c, const Scalar* start, Scalar* out, std::vector<Scalar>& compact,
                              const Scalar* warmStart, bool mayHandOver = false);
  void keepChangeAdmissible(const StageContext& c, const Scalar* v0, Scalar* velocity);
  void buildFactorRows(const StageContext& c);

  ActiveSetLcp m_lcp;
  ProjectedConjugateGradient m_conjugateGradient;
  // Rows of A = J L with M⁻¹ = L Lᵀ (per group; L from M⁻¹'s eigen-decomposition,
  // or the joints' exact factor), so that A Aᵀ is the Delassus matrix without
  // ever forming it.
  std::vector<Scalar> m_factorTransposed;
  std::vector<Scalar> m_factorRows;   // m × factorDofs, row-major, compact active order
  std::vector<RowSupport> m_factorSupport;  // per compact row: its groups' columns in factorRows
  std::vector<Index> m_factorColumn;  // per group: first column in factorRows, or -1
  std::vector<Index> m_factorOffset;  // per group: where its Lᵀ sits in m_factorTransposed
  std::vector<char> m_groupTouched;
  std::vector<char> m_massFactored;  // per group: L from its dense block's mass, outcome from the primal
  Index m_factorDofs = 0;
  std::vector<Scalar> m_compactS, m_compactUnit, m_compactLambda;
  std::vector<Scalar> m_primal;  // Aᵀλ of the exact solve, per factor column
  std::vector<Scalar> m_candidate, m_candidateLambda, m_refineLambda;
  std::vector<Scalar> m_capped, m_fromStart, m_lambdaFromStart;
  std::vector<Scalar> m_problemOrder;
  std::vector<Scalar> m_prescribed;
  std::vector<char> m_prescribedGroups;  // groups the active rows touch, for m_prescribed
  std::vector<Scalar> m_drift, m_violating;
  const Scalar* m_v0 = nullptr;
  bool m_conservationKnown = false;
  bool m_conserves = false;
  bool m_handedOver = false;  // solveIterative stopped early for the conjugate-gradient solve
};

}  // namespace propimpact::detail
