#pragma once
/// \file ImpactResult.h
/// Everything a resolution reports (issue: "what every resolution reports").

#include <cstdint>
#include <vector>

#include "propimpact/core/ResolveOptions.h"
#include "propimpact/core/ReusableArray.h"
#include "propimpact/core/Types.h"

namespace propimpact {

/// Why the outcome is known to be independent of the reflection order.
enum class UniquenessCertificate {
  None,            ///< no certificate (not proven unique, or not analysed).
  NotAnalysed,     ///< the problem exceeded analysisContactLimit.
  Trivial,         ///< at most one contact is ever infeasible (zero or one contact).
  Orthogonal,      ///< Thm 2 / Lemma 7: unit normals pairwise orthogonal in the kinetic metric.
  ThirdOfPi,       ///< Thm 3: two contacts with G_12 = −1/2 (the equal-mass cradle).
  AllOrdersAgree,  ///< every minimal sequence enumerated and all outcomes agree.
};

/// Name of a certificate.
const char* toString(UniquenessCertificate certificate);

/// What ran instead of the elastic propagation, if anything.
enum class Fallback {
  None,              ///< the propagation ended feasible by itself.
  PlasticFromCapped, ///< the cap was hit: plastic outcome from the state reached (no energy gained).
  PlasticFromStart,  ///< the cap was hit and no outcome was feasible from the state reached (rows it had
                     ///< pushed can take no negative impulse): plastic outcome from the start instead,
                     ///< taken when it is less violated (plasticResidual says by how much).
};

/// Name of a fallback.
const char* toString(Fallback fallback);

/// How the plastic outcome was solved.
enum class PlasticMethod {
  NotNeeded,   ///< R = 1 everywhere and no fallback: no plastic solve ran.
  ActiveSet,   ///< exact active-set (Lawson–Hanson) solve, to round-off.
  Iterative,   ///< projected over-relaxed Gauss–Seidel: clusters above plasticDenseLimit, or an exact
               ///< solve left violated (no feasible outcome, or round-off) that Gauss–Seidel beat.
};

/// Thread CPU seconds per stage of one resolution (ResolveOptions::timeStages).
struct StageSeconds {
  double prepare = 0;    ///< solver bodies, contact rows, duplicates, scales.
  double propagate = 0;  ///< the elastic propagation (eq. 14).
  double plastic = 0;    ///< the plastic solve (a capped state's settling, growth on R = 0) and the blend.
  double analysis = 0;   ///< Gram matrix, T_c/T_a, certificates, ξ.
};

/// A result's vectors keep their capacity across cluster sizes (ReusableArray.h):
/// a resolver reusing one ImpactResult allocates nothing once it has held a
/// cluster as large.
using ResultVector = ReusableArray<VectorX>;
using ResultMatrix = ReusableArray<MatrixX>;

/// Outcome and report of one resolution.
struct ImpactResult {
  ResultVector velocity;      ///< v+ (final, after restitution blending).
  ResultVector impulses;      ///< total impulse per contact (input order), λ ≥ 0.
  ResultVector elasticVelocity;  ///< the propagative elastic outcome (or its fallback).
  ResultVector plasticVelocity;  ///< the plastic outcome (empty when not needed).
  std::vector<int> sequence;  ///< contacts reflected, in order (input indices).
  std::vector<char> inCluster;  ///< per input contact: 1 if it took part (always 1 unless growFromSeeds).
  std::int64_t reflections = 0;  ///< sequence length.

  Scalar energyBefore = 0;  ///< ½ v−ᵀ M v−.
  Scalar energyAfter = 0;   ///< ½ v+ᵀ M v+.
  Scalar energyElastic = 0; ///< energy of the elastic outcome.
  Scalar energyPlastic = 0; ///< energy of the plastic outcome (0 when not computed).

  Scalar restitution = 1;  ///< the coefficient R used for the blend (mixed rule in ImpactResolver.h).
  Scalar alpha = 1;        ///< blend weight of eq. (17): p+ = α p_e + (1 − α) p_p.

  bool energySplitComputed = false;  ///< whether T_c / T_a below are filled.
  Scalar constrainedEnergy = 0;      ///< T_c of seed 004 with A = all (merged) contact rows.
  Scalar admissibleEnergy = 0;       ///< T_a = T − T_c.

  ResultMatrix gram;  ///< G_ij = <û_i, û_j>_g over input contacts (empty when not analysed).
  UniquenessCertificate certificate = UniquenessCertificate::None;  ///< see enum.
  Scalar certificateTolerance = 0;  ///< the tolerance the certificate was established with.

  bool xiComputed = false;                         ///< whether xi is filled.
  Scalar xi = 0;                                   ///< ξ = max ||p_a − p_b||_g / ||p0||_g over xiOrders.
  XiOrderSet xiOrders = XiOrderSet::MostVersusLeast;  ///< the set actually used.

  /// The outcome measured above the start's energy (in long double, against
  /// the dense blocks' given M) and was moved toward the plastic outcome
  /// until it did not: alpha is then below the blend's. Only problems with a
  /// dense block of extreme conditioning (κ(M) ≳ 1e9) have needed it.
  bool energyGuarded = false;

  bool capHit = false;             ///< the reflection cap was reached, or foreseen (capForeseen).
  /// The propagation stopped before the cap: two contacts it kept bouncing
  /// between would on their own have needed more reflections than the cap
  /// left (a clamp; Propagation.h). The fallback is the cap's.
  bool capForeseen = false;
  Fallback fallback = Fallback::None;  ///< what ran because of it.
  std::int64_t reflectionCap = 0;  ///< the cap in force.

  PlasticMethod plasticMethod = PlasticMethod::NotNeeded;  ///< how the plastic outcome was found.
  Scalar plasticResidual = 0;  ///< max KKT violation of the plastic solve (velocity units of J v).
  int plasticIterations = 0;   ///< active-set changes or sweeps.

  int mergedDuplicates = 0;   ///< rows merged into an identical row (impulse shared equally).
  int ignoredRows = 0;        ///< rows with zero norm in the admissible metric (cannot be acted on).

  StageSeconds stageSeconds;  ///< filled only with ResolveOptions::timeStages (zero otherwise).
};

}  // namespace propimpact
