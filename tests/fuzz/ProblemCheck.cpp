// The fuzz checks: every invariant of a resolution (ProblemFuzzer.h).
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <limits>
#include <sstream>
#include <string>
#include <vector>

#include "CheckMetrics.h"
#include "ProblemFuzzer.h"
#include "propimpact/core/Errors.h"
#include "propimpact/core/ImpactProblem.h"
#include "propimpact/core/ImpactResolver.h"
#include "propimpact/core/ImpactResult.h"
#include "propimpact/core/ResolveOptions.h"

namespace propimpact::fuzz {

bool sameBits(const VectorX& a, const VectorX& b) {
  return a.size() == b.size() &&
         (a.size() == 0 || std::memcmp(a.data(), b.data(), static_cast<std::size_t>(a.size()) * sizeof(Scalar)) == 0);
}

namespace {

using detail::JointMetricCheck;

/// The report's own consistency: sizes, finiteness, the reflection sequence
/// (Lemma 1: no contact twice in a row), impulse signs and α.
std::string checkReportShape(const ImpactProblem& p, const ResolveOptions& o, const ImpactResult& r) {
  const Index n = p.dofCount();
  const int m = p.contactCount();
  if (r.velocity.size() != n || r.impulses.size() != m || r.inCluster.size() != static_cast<std::size_t>(m))
    return "result sizes do not match the problem";
  if (!r.velocity.allFinite()) return "non-finite velocity";
  if (!r.impulses.allFinite()) return "non-finite impulse";
  if (!std::isfinite(r.energyAfter) || !std::isfinite(r.alpha) || !std::isfinite(r.restitution))
    return "non-finite report";
  if (r.reflections != static_cast<std::int64_t>(r.sequence.size())) return "reflections != sequence length";
  if (r.reflections > r.reflectionCap) return "reflections exceed the cap";
  if (o.reflectionCap > 0 && r.reflectionCap != o.reflectionCap) return "cap in force differs from the option";
  if (r.capHit != (r.fallback != Fallback::None)) return "capHit and fallback disagree";
  for (std::size_t k = 0; k < r.sequence.size(); ++k) {
    if (r.sequence[k] < 0 || r.sequence[k] >= m) return "sequence names a contact out of range";
    if (k > 0 && r.sequence[k] == r.sequence[k - 1]) return "sequence repeats a contact twice in a row (Lemma 1)";
  }
  for (int i = 0; i < m; ++i)
    if (!(r.impulses[i] >= 0)) {
      std::ostringstream fail;
      fail << "negative impulse " << r.impulses[i] << " on contact " << i;
      return fail.str();
    }
  if (!(r.alpha >= 0 && r.alpha <= 1)) return "alpha outside [0, 1]";
  return {};
}

/// Everything the invariants are measured in, computed once per case from
/// the problem (dense, independently of the resolver's own data).
struct CheckFrame {
  int m = 0;
  VectorX v0;
  MatrixX minv, mass, j;
  VectorX b;
  Scalar e0 = 0;
  VectorX before, after;  ///< J v + b before and after the impact
  JointMetricCheck metric;
  VectorX d;           ///< J M⁻¹_c Jᵀ per row, in the joints' admissible metric
  VectorX references;  ///< rowReferences
  VectorX movable;     ///< 1 for a row the resolver does not ignore
  Scalar scale = 0;    ///< ResolveOptions' scale
  VectorX prescribed;  ///< the part of v0 the metric cannot move
  Scalar impulseSize = 0, rawImpulseSize = 0, velocityChange = 0;
};

CheckFrame makeFrame(const ImpactProblem& p, const ImpactResult& r, const Tolerances& tol) {
  CheckFrame f;
  f.m = p.contactCount();
  f.v0 = p.velocity();
  f.minv = p.denseInverseMass();
  f.mass = p.denseMass();
  f.j = p.denseContactJacobian();
  f.b = p.contactBiases();
  f.e0 = p.kineticEnergy(f.v0);
  f.before = f.j * f.v0 + f.b;
  f.after = f.j * r.velocity + f.b;
  f.metric = detail::jointMetric(p, f.minv);
  // Unit normals are measured in the metric the impact acts in: with joints,
  // J M⁻¹_c Jᵀ, not J M⁻¹ Jᵀ. The unprojected norm made the scale 200× too
  // small in finding kinematic-only-wedge-with-joints-left-approaching, where
  // a contact the joints nearly lock has a unit-normal speed 200× its raw one.
  f.d = detail::rowMetric(f.j, f.metric.admissible);
  f.references = detail::rowReferences(p, f.j, f.minv);
  f.movable = detail::movableFrom(f.d, f.references);

  // scale as ResolveOptions documents: max(||p0||_g, largest initial unit-normal
  // speed over the rows the resolver does not ignore).
  // A row's start speed is known only to round-off of the velocity it is
  // computed from, ε·|J_i|·|v0| (through a joint's projection every component
  // of the joined group enters it); with velocity only along axes M gives no
  // energy the energy is exactly 0 and that round-off is the whole scale
  // (findings approach-of-round-off-from-zero-energy-motion and its seed-12
  // mutation, whose active-set residual of 5.2e-32 met a scale of 0).
  f.scale = std::sqrt(std::max(Scalar(0), 2 * f.e0));
  for (int i = 0; i < f.m; ++i)
    if (f.movable[i] != 0)
      f.scale = std::max({f.scale, std::abs(f.before[i]) / std::sqrt(f.d[i]),
                          tol.cancellation * f.j.row(i).norm() * f.v0.norm() / std::sqrt(f.d[i])});
  f.prescribed = f.v0 - f.minv * (f.mass * f.v0);
  // Σ λᵢ √dᵢ: the size of the impulses. A capped wedge accumulates opposing
  // reflection impulses far above the momentum (1.4e7 against a scale of 1e-3
  // in finding capped-wedge-round-off-of-cancelling-impulses); their round-off
  // in the velocity is the floor of any residual after it.
  for (int i = 0; i < f.m; ++i) f.impulseSize += r.impulses[i] * std::sqrt(std::max(Scalar(0), f.d[i]));
  // The same in raw terms, Σ λᵢ √referenceᵢ: the round-off of applying λᵢ
  // along M⁻¹_c Jᵢᵀ scales with |Jᵢ|·|M⁻¹|, not with √dᵢ, which a row the
  // joints nearly lock makes tiny (√d 1e4 below √reference in finding
  // contact-moved-although-the-check-metric-locks-it, where impulses of 8.5e9
  // moved a joint, and the contact that mirrors it, by 2e-9 of |B|·|Δv|).
  // A row k then sees up to ε·√reference_k·Σ λᵢ √referenceᵢ.
  for (int i = 0; i < f.m; ++i) f.rawImpulseSize += r.impulses[i] * std::sqrt(f.references[i]);
  f.velocityChange = std::sqrt(std::max(Scalar(0), 2 * p.kineticEnergy(r.velocity - f.v0)));
  return f;
}

/// Velocity along an axis the metric cannot move (a locked factor with a
/// velocity on it, or an infinite-inertia axis that spins) is a prescribed
/// motion, like a kinematic body's: contacts that see it follow Newton's law
/// on the relative velocity, which can raise the energy as a moving paddle does.
bool hasPrescribedMotion(const ImpactProblem& p, const ResolveOptions& o, const CheckFrame& f, const Tolerances& tol) {
  const VectorX seen = f.j * f.prescribed;
  bool prescribedMotion = false;
  for (int i = 0; i < f.m; ++i)
    if (f.movable[i] != 0 && std::abs(seen[i]) / std::sqrt(f.d[i]) > tol.feasibility * f.scale) prescribedMotion = true;
  if (p.bilateralCount() == 0) return prescribedMotion;
  const MatrixX bj = p.denseBilateralJacobian();
  const VectorX error = bj * f.v0;
  // A joint also carries prescribed motion when it sees the velocity along
  // axes M⁻¹ cannot move, even with no error overall: the movable part then
  // violates it and is pulled along (finding
  // joint-driven-by-spin-about-an-infinite-inertia-axis: B·v0 = 0, but 68.9
  // of it along such an axis, and one reflection gained 8.5e-5 of the energy,
  // as a paddle would).
  const VectorX driven = bj * f.prescribed;
  for (Index k = 0; k < bj.rows(); ++k) {
    const Scalar dk = bj.row(k) * f.minv * bj.row(k).transpose();
    const Scalar unit = std::sqrt(std::max(dk, Scalar(1e-13) * bj.row(k).squaredNorm() * f.minv.cwiseAbs().maxCoeff()));
    if (dk > 0 && std::abs(error[k]) / std::sqrt(dk) > tol.feasibility * f.scale) prescribedMotion = true;
    if (unit > 0 && std::abs(driven[k]) / unit > tol.feasibility * f.scale) prescribedMotion = true;
  }
  // The joints' error itself, C v0, is motion no impulse changes either:
  // with jointErrorAsBias the resolver carries it into every contact as a
  // constant (ContactRows::addConstantVelocity, PlasticStage::biased), so
  // it is prescribed motion by the rule for locked-axis motion above: the
  // contact's speed per its own unit normal, not the joint's. One joint's error, 2.2e-10 of the
  // scale per its unit normal, reached a contact the joints nearly lock at
  // 1.3e-5, with no feasible outcome but through a dense block's 1e17
  // modes (finding 9dof-2-joints-capped-plastic-energy-gain-91x-seed-14).
  if (o.jointErrorAsBias) {
    const VectorX carried = f.j * (f.metric.constraintTransfer * error);
    for (int i = 0; i < f.m; ++i)
      if (f.movable[i] != 0 && std::abs(carried[i]) / std::sqrt(f.d[i]) > tol.feasibility * f.scale)
        prescribedMotion = true;
  }
  return prescribedMotion;
}

/// The generator's witness is admissible only to its own round-off: its
/// textbook projection errs by κ(BM⁻¹Bᵀ)·ε along the directions the joints
/// lock, which rows the joints nearly lock see magnified. Its admissible part
/// (M-orthogonal projection) violates the rows by at most this slack, so the
/// least uniform violation is no larger; with two nearly parallel joints it
/// was 1.5e10, half the scale (finding
/// witness-feasible-only-through-a-joint-locked-direction).
Scalar witnessSlack(const ImpactProblem& p, const CheckFrame& f, const VectorX& witness) {
  Scalar slack = 0;
  if (witness.size() != p.dofCount()) return slack;
  const VectorX admissiblePart = f.v0 + f.metric.admissible * (f.mass * (witness - f.v0));
  const VectorX atWitness = f.j * admissiblePart + f.b;
  for (int i = 0; i < f.m; ++i)
    if (f.movable[i] != 0) slack = std::max(slack, -atWitness[i] / std::sqrt(f.d[i]));
  return slack;
}

/// The largest unit-normal approach a contact may keep after the impact, and
/// the active-set solve's residual check. Fills \p allowed; returns a failure or "".
std::string feasibilityAllowance(const ImpactProblem& p, const ResolveOptions& o, const ImpactResult& r,
                                 const CheckFrame& f, const Tolerances& tol, const VectorX& witness,
                                 bool prescribedMotion, Scalar& allowed) {
  // The resolver treats an approach slower than feasibilityTolerance·scale as
  // feasible (no reflection); a case may loosen that option (1e-6), and then
  // the outcome is only that feasible (finding
  // approach-within-a-loosened-feasibility-tolerance).
  allowed = std::max(tol.feasibility, Scalar(1.01) * o.feasibilityTolerance) * f.scale;
  if (r.plasticMethod == PlasticMethod::Iterative) allowed = std::max(allowed, 2 * r.plasticResidual);
  // Prescribed motion can leave no feasible outcome at all (nothing can move
  // it); the report must then say how far off the plastic solve stayed.
  if (prescribedMotion) allowed = std::max(allowed, 2 * r.plasticResidual);
  // Otherwise a feasible outcome exists (biases come from a witness), and the
  // exact active-set solve must find it: nearly dependent rows take large
  // opposing impulses whose cancellation leaves a residual above the resolver's
  // own tolerance but far below this bound. Accept what the report states
  // only while it stays that small.
  if (r.plasticMethod != PlasticMethod::ActiveSet || prescribedMotion) return {};
  const Scalar slack = witnessSlack(p, f, witness);
  if (r.plasticResidual > tol.plasticResidual * f.scale + tol.cancellation * f.impulseSize + Scalar(1.01) * slack) {
    std::ostringstream fail;
    fail << "active-set plastic residual " << r.plasticResidual << " above " << tol.plasticResidual << " x scale "
         << f.scale;
    return fail.str();
  }
  allowed = std::max(allowed, Scalar(1.01) * r.plasticResidual);
  return {};
}

/// Whether contact i, left approaching beyond what is allowed, kept its
/// velocity to round-off: a row no admissible motion can move is ignored
/// (reported), not resolved.
bool keptItsVelocity(const CheckFrame& f, const Tolerances& tol, int i) {
  // "Keeps" up to round-off of the motion the others' impulses cause, which
  // the joints' projection leaves orthogonal to it only to ε.
  const Scalar rawNorm = std::sqrt(std::max(Scalar(0), Scalar(f.j.row(i) * f.minv * f.j.row(i).transpose())));
  // And a row below the cut-off is still moved a little by the others'
  // impulses, by at most √dᵢ·||Δv||_M (Cauchy–Schwarz in the admissible
  // metric): 2.5e-3 at d/reference = 1e-15 in finding
  // nearly-locked-row-moved-by-its-remaining-mobility.
  // √dᵢ = ‖JᵢF‖ as a sum of squares: Jᵢ(F Fᵀ)Jᵢᵀ cancels to ε·reference and
  // came out ≤ 0 for a row whose true dᵢ was 1.67e-16, so the allowance was
  // 0 (finding 7dof-2-joints-bias-row-of-zero-check-metric-moved-and-left-approaching).
  const Scalar remainingMobility =
      (f.metric.admissibleFactor.size() > 0 ? (f.j.row(i) * f.metric.admissibleFactor).norm()
                                            : std::sqrt(std::max(Scalar(0), f.d[i]))) *
      f.velocityChange;
  return std::abs(f.after[i] - f.before[i]) <= tol.feasibility * (std::abs(f.before[i]) + f.scale * rawNorm) +
                                                   tol.cancellation * f.rawImpulseSize * std::sqrt(f.references[i]) +
                                                   Scalar(1.01) * remainingMobility + 1e-300;
}

/// Every contact (of the cluster, when grown from seeds) ends feasible, or
/// kept its velocity as a reported ignored row.
std::string checkFeasibility(const ResolveOptions& o, const ImpactResult& r, const CheckFrame& f,
                             const Tolerances& tol, Scalar allowed) {
  int untouchedInfeasible = 0;
  for (int i = 0; i < f.m; ++i) {
    if (o.growFromSeeds && !r.inCluster[static_cast<std::size_t>(i)]) continue;
    // The resolver counts an approach within the round-off of the velocity it
    // comes from, 1e-13·|J_i|·|v0|, as resting (README, "Approaches of
    // round-off"; finding untouched-row-approaching-at-its-round-off-unseeded).
    if (f.after[i] >= -tol.cancellation * f.j.row(i).norm() * f.v0.norm()) continue;
    const Scalar unit = f.d[i] > 0 ? f.after[i] / std::sqrt(f.d[i]) : -INFINITY;
    // The impulses' round-off reaches a row's raw speed as about
    // ε·√reference·Σλ√d; a row nearly immobile (d far below its reference,
    // 1.9e-12 in finding nearly-immobile-row-amplifies-round-off) magnifies it
    // by √(reference/d) in unit-normal terms.
    const Scalar roundOff =
        f.d[i] > 0 ? tol.cancellation * f.impulseSize * std::sqrt(f.references[i] / f.d[i]) : Scalar(0);
    if (unit >= -(allowed + roundOff)) continue;
    if (keptItsVelocity(f, tol, i)) {
      ++untouchedInfeasible;
      continue;
    }
    std::ostringstream fail;
    fail << "contact " << i << " infeasible after the impact: unit-normal speed " << unit << " < -" << allowed
         << " (scale " << f.scale << ")";
    return fail.str();
  }
  if (untouchedInfeasible > r.ignoredRows) {
    std::ostringstream fail;
    fail << untouchedInfeasible << " contacts stayed infeasible untouched but only " << r.ignoredRows
         << " rows were reported ignored";
    return fail.str();
  }
  return {};
}

/// No kinetic energy gained, unless biases or prescribed motion do work.
std::string checkEnergy(const ImpactProblem& p, const ImpactResult& r, const CheckFrame& f, const Tolerances& tol,
                        bool prescribedMotion) {
  const bool anyBias = prescribedMotion || (f.b.size() > 0 && f.b.cwiseAbs().maxCoeff() > 0);
  // Joints: the resolver's admissible metric comes from a QR of LᵀBᵀ and
  // carries no κ(BM⁻¹Bᵀ)·ε error (the textbook formula drifted 4.5e-9 in
  // finding energy-drift-through-ill-conditioned-joint-rows, 1e-14 now). What
  // remains is the joint coupling blocks of very different mass: the metric of
  // the joined group mixes them, and a reflection keeps the energy only to
  // ε·κ(M_group) (a 1e17 block joined to a 300 one gained 4.5e-9 of the energy
  // in one reflection in finding joint-between-masses-1e15-apart).
  Scalar energyTolerance = tol.energy;
  if (p.bilateralCount() > 0)
    energyTolerance += std::numeric_limits<Scalar>::epsilon() * jointGroupConditioning(p) * Scalar(1 + r.reflections);
  // The round-off of a row's start speed (see scale), ε·|J_i|·|v0|, includes
  // velocity along axes of zero mass (spin about an axis of infinite inertia,
  // which M's pseudo-inverse gives no energy) that the energy does not, and
  // an impulse on a row approaching at a round-off a adds up to 2a²/d
  // (finding approach-of-round-off-from-zero-energy-motion: two rigid bodies
  // and a joint, velocities up to 14,773 all of zero energy, the check summed
  // a row of bodies at rest to exactly 0, the resolver's joint projection left
  // it about −1e-26, and the impact added 1.8e-52 J).
  Scalar roundOffGain = 0;
  for (int i = 0; i < f.m; ++i)
    if (f.movable[i] != 0 && r.impulses[i] > 0) {
      const Scalar unseen = tol.cancellation * f.j.row(i).norm() * f.v0.norm();
      roundOffGain += 2 * unseen * unseen / f.d[i];
    }
  const Scalar gained = anyBias ? Scalar(0) : energyChange(p, f.v0, r.velocity);
  if (gained > f.e0 * energyTolerance + roundOffGain + 1e-300) {
    std::ostringstream fail;
    fail << "energy gained: " << f.e0 << " -> " << f.e0 + gained << " (relative " << gained / f.e0 << ")";
    return fail.str();
  }
  return {};
}

}  // namespace

namespace {

/// With joints: the impact leaves every joint's velocity error as it was,
/// to the round-off and rank cut-off the resolver documents.
std::string checkJoints(const ImpactProblem& p, const ImpactResult& r, const CheckFrame& f, const Tolerances& tol) {
  const MatrixX bj = p.denseBilateralJacobian();
  const Scalar dropped = f.metric.dropped;
  const VectorX jointReferences = detail::rowReferences(p, bj, f.minv);
  for (Index k = 0; k < bj.rows(); ++k) {
    const Scalar dk = bj.row(k) * f.minv * bj.row(k).transpose();
    const Scalar change = bj.row(k).dot(r.velocity - f.v0);
    // The impulses' round-off moves any unit-normal speed by up to about
    // ε·||M⁻¹_c Jᵀλ||_M ≤ ε·Σλ√d, the allowance of the momentum check below.
    // It matters only when a squeeze with no feasible outcome (a joint's own
    // velocity error pressing contacts together) ends with impulses far above
    // the momentum: 4e12 against an energy of 8.9 moved a joint by 2.6e-5
    // per unit normal in finding infeasible-joint-error-squeeze-impulses-of-4e12.
    // A joint row M⁻¹ cannot move (it acts along locked or infinite-inertia
    // axes only: J M⁻¹ Jᵀ at round-off, 2.6e-15 of its reference in finding
    // joint-along-an-immobile-axis-unit-normal-of-round-off) has no
    // meaningful unit normal; the impact must leave it alone to round-off of
    // the velocities it sees, |b|·(|v0| + |Δv|).
    const Scalar reference = bj.row(k).squaredNorm() * f.minv.cwiseAbs().maxCoeff();
    // "Barely moves" is measured against the bodies the joint ties,
    // |b|²·max|M⁻¹| over its joint-connected group, as for contacts
    // (rowReferences) and in the resolver (JointMetric.cpp, kHeavyJoint),
    // not against the lightest body anywhere in the problem: a joint on an
    // isotropic 9.3e10 kg block (b M⁻¹ bᵀ = |b|²/m exactly) counted as
    // immobile because an unrelated block had M⁻¹ = 274 (finding
    // 38dof-2-joints-one-contact-impulse-1e15-moved-an-immobile-joint-unseeded).
    if (!(dk > 1e-13 * jointReferences[k])) {
      const Scalar seenSize = bj.row(k).norm() * (f.v0.norm() + (r.velocity - f.v0).norm());
      if (std::abs(change) > tol.feasibility * seenSize + 1e-300) {
        std::ostringstream fail;
        fail << "immobile bilateral row " << k << " velocity error changed by " << change;
        return fail.str();
      }
      continue;
    }
    // A joint row within the rank cut-off of the others is enforced only to
    // the dropped part: |Δ(Bv)| ≤ σ_dropped·||Δv||_M (finding
    // nearly-dependent-joint-rows-under-huge-impulses: impulses of 2.6e6 from
    // rest moved such a row by 0.0097).
    const Scalar unenforced = 1.01 * dropped * f.velocityChange / std::sqrt(dk);
    // Holding B·v fixed holds it to round-off of the velocities the row
    // sees, ε·|b|·(|v0| + |Δv|), whatever the impulses: a body spinning at
    // 113 about an axis its angular factor locks gave a joint a velocity
    // error of 1e-13 from a coefficient of 8.9e-16, and an impulse of
    // 1.5e-33 from rest then moved that error by 2.7e-33, 1e-20 of itself
    // (finding joint-error-of-round-off-moved-by-impulses-of-1e-33).
    const Scalar seenRoundOff = tol.cancellation * bj.row(k).norm() * (f.v0.norm() + (r.velocity - f.v0).norm());
    const Scalar roundOff = tol.cancellation * std::max(f.impulseSize, f.rawImpulseSize * std::sqrt(reference / dk)) +
                            seenRoundOff / std::sqrt(dk);
    if (std::abs(change) / std::sqrt(dk) > tol.feasibility * f.scale + roundOff + unenforced + 1e-300) {
      std::ostringstream fail;
      fail << "bilateral row " << k << " velocity error changed by " << change;
      return fail.str();
    }
  }
  return {};
}

/// Without joints: the reported impulses account for the velocity change,
/// Δv = M⁻¹ Jᵀ λ.
std::string checkImpulsesExplainVelocity(const ImpactProblem& p, const ResolveOptions& o, const ImpactResult& r,
                                         const CheckFrame& f, const Tolerances& tol) {
  // Two nearly opposing rows (a body pinched between them) can need opposing
  // impulses far above the momentum, ||M⁻¹Jᵢᵀ λᵢ||_M = λᵢ √dᵢ, that cancel;
  // neither the resolver nor this check can sum them to better than a few
  // hundred ulps of their size, so that much is allowed on top. Rows merged
  // as duplicates agree in M⁻¹Jᵀ only to duplicateTolerance: the impulse
  // applied along the kept row is reported shared among them, which moves
  // M⁻¹Jᵀλ by up to that fraction of the shared impulses' size, measured as
  // the resolver compares rows: in the Euclidean norm of M⁻¹Jᵀ (see
  // mergedImpulseSize).
  const VectorX dv = r.velocity - f.v0;
  const VectorX residual = dv - f.minv * f.j.transpose() * r.impulses;
  const Scalar size = std::sqrt(2 * f.e0) + std::sqrt(std::max(Scalar(0), 2 * p.kineticEnergy(dv)));
  const Scalar error = std::sqrt(std::max(Scalar(0), 2 * p.kineticEnergy(residual)));
  const Scalar merging = r.mergedDuplicates > 0
                             ? o.duplicateTolerance * detail::mergedImpulseSize(p, f.mass, f.minv, f.j, r.impulses)
                             : Scalar(0);
  // Applying the impulses in Scalar rounds each velocity component to about
  // ε·|M⁻¹|·Σλᵢ|Jᵢ| (ε·rawImpulseSize·√|M⁻¹|), which the M-norm weighs by up
  // to √|M|: with a dense block of κ ≈ 7e13 and opposing impulses of 1.2e6
  // that is 1.1e-7 of the outcome's size, where Σλᵢ√dᵢ sees 2e-10 (finding
  // impulses-unexplained-through-a-dense-block-of-1e12).
  const Scalar appliedRoundOff = tol.cancellation * f.rawImpulseSize *
                                 std::sqrt(f.minv.cwiseAbs().maxCoeff() * f.mass.cwiseAbs().maxCoeff());
  if (error > tol.momentum * size + tol.cancellation * f.impulseSize + appliedRoundOff + merging + 1e-300) {
    std::ostringstream fail;
    fail << "impulses do not explain the velocity change: ||Δv − M⁻¹Jᵀλ||_M = " << error << " vs " << size;
    return fail.str();
  }
  return {};
}

}  // namespace

/// Checks every invariant; returns an empty string when all hold, else the
/// first that failed, in this order: the report's shape, the plastic solve's
/// residual, feasibility, energy, then joints or momentum.
std::string check(const ImpactProblem& p, const ResolveOptions& o, const ImpactResult& r, const Tolerances& tol,
                  const VectorX& witness) {
  if (std::string failure = checkReportShape(p, o, r); !failure.empty()) return failure;
  const CheckFrame frame = makeFrame(p, r, tol);
  const bool prescribedMotion = hasPrescribedMotion(p, o, frame, tol);
  Scalar allowed = 0;
  if (std::string failure = feasibilityAllowance(p, o, r, frame, tol, witness, prescribedMotion, allowed);
      !failure.empty())
    return failure;
  if (std::string failure = checkFeasibility(o, r, frame, tol, allowed); !failure.empty()) return failure;
  if (std::string failure = checkEnergy(p, r, frame, tol, prescribedMotion); !failure.empty()) return failure;
  return p.bilateralCount() > 0 ? checkJoints(p, r, frame, tol) : checkImpulsesExplainVelocity(p, o, r, frame, tol);
}

/// Resolves the case and checks it (and, when the case asks, that resolving it
/// again with the same and with a fresh resolver gives the same bits).
std::string resolveAndCheck(Case& c, const Tolerances& tol) {
  ImpactResolver resolver;
  return resolveAndCheck(c, resolver, tol);
}

std::string resolveAndCheck(Case& c, ImpactResolver& resolver, const Tolerances& tol) {
  ImpactResult result;
  resolver.resolve(c.problem, c.options, result);
  std::string failure = check(c.problem, c.options, result, tol, c.witness);
  if (!failure.empty() || !c.checkDeterminism) return failure;
  ImpactResult again;
  resolver.resolve(c.problem, c.options, again);
  ImpactResolver fresh;
  const ImpactResult third = fresh.resolve(c.problem, c.options);
  for (const ImpactResult* other : {static_cast<const ImpactResult*>(&again), &third})
    if (!sameBits(result.velocity, other->velocity) || !sameBits(result.impulses, other->impulses) ||
        result.sequence != other->sequence)
      return "a second resolution of the same problem differs";
  return {};
}

}  // namespace propimpact::fuzz
