#pragma once
/// \file ImpactFriction.h
/// Coulomb friction during an impact, loaded by the impact's own normal
/// impulses (issue 18; SPEC §7 "Friction during an impact"). Runs after
/// ImpactResolver: the normal impulses λ_n of the cluster (propagative,
/// plastic or blended) are known, and each contact with friction gets a
/// tangential impulse.
///
/// ## The model
/// Contact i has the normal row J_i (the impact's), two tangent rows T_i
/// (orthonormal tangent directions for a rigid contact) and a coefficient μ_i.
/// Friction is the isotropic **cone** ||λ_t,i||₂ ≤ μ_i (λ_n,i + δ_i) — not
/// Bullet's pyramid — where δ_i ≥ 0 is a normal impulse the friction stage
/// may add (below). With u the relative velocities (J v + b, T v + b_t) at the
/// start of the stage and x = (λ_t, δ) the stage's impulses, the stage
/// minimises, by block Gauss–Seidel in contact index order (per contact its
/// block, then its normal row),
///
///   f(x) = ½ xᵀ A x + xᵀ u − sᵀ δ,      A = [T; J] M⁻¹ [T; J]ᵀ,
///
/// over the cone above and δ ≥ 0, for normal targets s:
///  - *Newton targets*, tried first: s_i = u_n,i, the separation speed the
///    impact left at contact i (it ended feasible, so s_i ≥ −tolerance). Where
///    friction would slow a contact's separation (a box's corner: a
///    tangential impulse off the centre of mass turns the body), δ restores
///    the impact's separation speed, so a single contact obeys Newton's law
///    J v+ = −e J v− together with Coulomb's, as in the textbook
///    single-contact impact with friction.
///  - *Dissipative targets*, when Newton's version gained energy (it can: the
///    Kane–Levinson double pendulum): s_i = min(0, u_n,i). Then f(x) ≤ f(0) = 0
///    at every step, and with b = 0 f is exactly the change of kinetic energy.
///  - A contact *outside the cluster* (ImpactResult::inCluster) has, in both
///    versions, the target s_i = min(u_n,i, −r_i), r_i its resting speed
///    (ImpactProblem::setRestingSpeed, 0 by default, giving min(0, u_n,i)):
///    friction may push it into a slower approach than r_i, which the
///    propagation too leaves to the host's resting pass, but no further.
///    Without that slack a friction push into a settled pile spreads δ over
///    every resting contact of the touching component. Since s_i ≤ 0 there,
///    the energy change is f + sᵀδ ≤ f.
///
/// Each update is an exact minimisation of f over the feasible segment or
/// disc of one block: a contact's two tangent rows together (a 2 × 2
/// trust-region problem, solved to round-off), then each normal row
/// (δ_i ← max(δ_min, δ_i + (s_i − J_i v − b_i) / d_i), δ_min keeping the
/// current tangential impulse inside the cone). So f never rises, λ_t = 0,
/// δ = 0 is feasible, and at a fixed point (where the sweeps stop, to within
/// their tolerance below)
///  - sticking contacts (||λ_t|| < μ(λ_n + δ)) have zero slip,
///  - slipping contacts have λ_t = −μ (λ_n + δ) · slip / ||slip|| (for an
///    isotropic tangent block; in general the impulse is the
///    maximum-dissipation one within the cone),
///  - every normal row meets J_i v + b_i ≥ s_i, with δ_i > 0 only at equality
///    (the closing normal pass only pushes, so a row may end above its
///    target by a fraction of the coupled sweeps' last residual).
/// Sphere on a plane (tangent rows orthogonal to the normal in the metric):
/// nothing couples, δ = 0, and the outcome is Routh's closed form (SPEC §7).
///
/// ## What a sweep visits, and when it stops
/// The order is fixed, but only *due* updates run: at the start every normal
/// row meets its target (s_i ≤ u_n,i), so only the blocks are due; an update
/// that changes the velocity by more than the tolerance makes the others on
/// the bodies it moved due, later in the same sweep or in the next. An update
/// not run would have seen only changes below the tolerance, so the outcome is
/// the full sweeps' (FrictionOptions::worklist off runs every update of every
/// sweep, the reference) to within the stage's convergence accuracy: on random
/// rigid clusters the two differ by up to 3.5e-9 of the speed scale
/// (tests/core/FrictionWorklistPropertyTest.cpp). The work follows what the
/// friction moves, not the size of the problem.
///
/// The sweeps stop when no update moves the velocity by more than
/// FrictionOptions::tolerance (1e-13) of the *impact's* speed scale — √(2T)
/// for the larger of the kinetic energies before and after the impact, the
/// scale of the resolver's own tolerances — or, after looseAfter (100) sweeps,
/// by more than looseTolerance (1e-11) of it: a plastic landing leaves speeds
/// of 1e-7 of the impact's, and resolving friction to 1e-13 of those took the
/// sweeps to the cap. Then a pass over the normal rows alone, with the blocks
/// fixed, raises δ (never lowers it: each push is a descent step) until no
/// push exceeds normalTolerance (1e-13) of the post-impact scale, so every row
/// meets its target to round-off before the verification below looks.
///
/// Over-relaxation (FrictionOptions::relaxation, 1.6): an update moves ω times
/// its exact step, which is still a descent for ω < 2, and a relaxed update
/// makes itself due again (its own row is left (ω − 1) × step off). A block is
/// relaxed only while the relaxed point stays strictly inside its disc, a
/// normal row with a block only while that block is inside half its cone:
/// overshooting into a slipping contact's bound reaches another fixed point,
/// where an oversized δ carries the friction that holds it (the tilted rod's
/// slipping branch ended 4 % off Newton–Coulomb), and the fixed points are the
/// model, not the minimiser of f (a joint λ_t–δ step would dissipate more,
/// see the known limits).
///
/// ## Guarantees (checked, not assumed)
/// After the sweeps (tolerance or cap) the stage *verifies* f ≤ ε (no energy
/// gained; ε round-off) and that every contact ends with J_i v + b_i ≥
/// min(0, u_n,i) − tolerance (every touching contact that was feasible after
/// the impact still is), or ≥ min(u_n,i, −r_i) − tolerance outside the
/// cluster (not driven beyond its resting speed, nor further in than it was).
/// Newton targets that fail are replaced by dissipative ones; if those fail
/// too (sweep cap hit before convergence), friction is dropped and the
/// frictionless outcome stands (FrictionOutcome::Reverted, reported). So the
/// stage always terminates, never gains energy (b = 0), and always ends
/// feasible. The checks read the final velocity and impulses, whatever made
/// the sweeps stop: a looser stop changes how often a version passes, never
/// what passing means (with dissipative targets every update, relaxed or
/// not, is a descent of f from f(0) = 0, so their energy check holds at any
/// stopping point; feasibility is what the normal pass restores).
///
/// ## Known limits
///  - Not Routh's or Stronge's integration through the impact: the normal
///    impulse comes from the frictionless (propagative) impact and friction is
///    applied after it, so slip reversal during the impact and Stronge's
///    energetic restitution with friction are not modelled. For coupled
///    contacts (a box corner) the outcome is Newton–Coulomb, not Poisson.
///  - Painlevé-type cases (friction large enough that a Newton–Coulomb
///    single-contact law has no or several solutions, e.g. a rod sliding
///    towards its tip with μ beyond the critical value) cannot arise as
///    non-existence here — f is a convex quadratic over a convex set — but
///    the outcome there is the minimiser the sweeps reach, typically a
///    jammed (sticking) contact with δ > 0, not a claim about which physical
///    branch occurs.
///  - The cone ties friction to λ_n + δ; Gauss–Seidel over that coupled set
///    can stop at a point where only a joint change of λ_t and δ would
///    dissipate more (then the contact is reported slipping at the bound,
///    which is Coulomb's law, though not the most dissipative point).
///  - With a kinematic body's motion (b ≠ 0) f is the energy change in the
///    contacts' frame: a moving conveyor may legitimately speed a body up.
///  - Friction at contacts outside the impact cluster (resting contact) is
///    left to the host engine.
///  - Cost: Gauss–Seidel over coupled friction and normal rows converges
///    linearly and slowly on a pile (a ball landing on a settled pile couples
///    ~250 contacts: 200–500 sweeps); the impact-relative tolerance and the
///    normal pass make a plastic landing cheap, not the pile
///    (docs/performance.md, "What impact friction costs").

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "propimpact/core/ImpactProblem.h"
#include "propimpact/core/ImpactResult.h"
#include "propimpact/core/ResolveOptions.h"
#include "propimpact/core/Types.h"

namespace propimpact {

/// The tangent rows and coefficient of each contact that has friction.
/// Filled like ImpactProblem, for the same problem, and reused across clear().
class FrictionRows {
 public:
  /// Removes every entry, keeping capacity (the rejection count restarts;
  /// the InputErrors mode stays).
  void clear();
  /// Capacity for an entry at every contact of a problem within \p bounds.
  void reserve(const ProblemBounds& bounds);

  /// Chooses how invalid input is reported, as ImpactProblem::setInputErrors:
  /// Throw (the default) or Record, where a rejected entry is counted and
  /// nothing of it is added. A Bullet step records: nothing throws inside it.
  void setInputErrors(InputErrors mode) { m_inputErrors = mode; }
  /// Under InputErrors::Record: entries rejected since clear(), and the last one's code.
  [[nodiscard]] int rejectedCount() const { return m_rejected; }
  [[nodiscard]] ErrorCode lastError() const { return m_lastError; }

  /// Friction at contact \p contact of \p problem with coefficient \p mu and two
  /// tangent rows over the contact's blocks: row k of \p tangentsA (2 × size of
  /// the contact's first block) and of \p tangentsB (2 × size of its second
  /// block; ignored for a one-block contact). \p tangentBias are the rows'
  /// constant terms (a kinematic partner's tangential motion). A zero row is
  /// allowed (planar problems: one tangent direction). Rejects (InputErrors)
  /// with BadFriction a NaN, infinite or negative μ or a second entry for the
  /// contact, with NonFiniteRow non-finite rows, with BadBlockIndex /
  /// DimensionMismatch a wrong contact or sizes. Returns whether it was added.
  bool add(const ImpactProblem& problem, int contact, Scalar mu, const Eigen::Ref<const MatrixX>& tangentsA,
           const Eigen::Ref<const MatrixX>& tangentsB, const Eigen::Vector2d& tangentBias = Eigen::Vector2d::Zero());

  /// A rigid contact added by ImpactProblem::addRigidContact with the same
  /// bodies and offsets: tangent rows t_k·(vA + ωA×rA) − t_k·(vB + ωB×rB) for
  /// two unit directions \p t1, \p t2 orthogonal to the contact normal.
  bool addRigid(const ImpactProblem& problem, int contact, int bodyA, int bodyB, Scalar mu, const Vector3& t1,
                const Vector3& t2, const Vector3& offsetA, const Vector3& offsetB,
                const Eigen::Vector2d& tangentBias = Eigen::Vector2d::Zero());

  /// One entry: which contact, μ, and where its coefficients are.
  struct Entry {
    int contact = 0;
    Scalar mu = 0;
    Index offset[2] = {0, 0};  ///< per term of the contact row: 2 × block-size coefficients (row-major).
    Scalar bias[2] = {0, 0};   ///< tangent rows' constant terms.
  };
  [[nodiscard]] int size() const { return static_cast<int>(m_entries.size()); }
  [[nodiscard]] const Entry& entry(int k) const { return m_entries[static_cast<std::size_t>(k)]; }
  /// Tangent row \p row (0 or 1) of term \p term of entry \p k: block-size coefficients.
  [[nodiscard]] const Scalar* coefficients(int k, int term, int row, Index blockSize) const {
    return m_coefficients.data() + entry(k).offset[term] + row * blockSize;
  }

 private:
  std::vector<Entry> m_entries;
  /// Throws, or records and returns false (InputErrors); \p describe runs only to throw.
  bool reject(ErrorCode code, const std::function<std::string()>& describe);

  std::vector<Scalar> m_coefficients;
  std::vector<char> m_hasEntry;  // per contact: one entry at most
  InputErrors m_inputErrors = InputErrors::Throw;
  ErrorCode m_lastError = ErrorCode::BadOption;  // meaningful once m_rejected > 0
  int m_rejected = 0;
};

/// Whether a contact's friction stuck or slipped.
enum class FrictionState : std::uint8_t {
  None,      ///< no friction here (μ = 0, no normal impulse, or outside the cluster).
  Stuck,     ///< ||λ_t|| below the cone's bound: the tangential slip ends at zero.
  Slipping,  ///< at the bound, opposing the slip.
};

/// Name of a state ("none", "stuck", "slipping").
const char* toString(FrictionState state);

/// Which version of the stage stands (see the file comment).
enum class FrictionOutcome : std::uint8_t {
  NotNeeded,    ///< no contact with μ > 0 and a normal impulse: the frictionless outcome, bit for bit.
  Newton,       ///< Newton targets: each contact keeps the impact's separation speed.
  Dissipative,  ///< Newton's version gained energy; dissipative targets.
  Reverted,     ///< neither verified (sweep cap): the frictionless outcome stands.
};

/// Name of an outcome.
const char* toString(FrictionOutcome outcome);

/// Limits of the friction stage's Gauss–Seidel (the file comment: when it stops).
struct FrictionOptions {
  /// Stop when no update changes the velocity by more than this fraction of the impact's speed scale.
  Scalar tolerance = 1e-13;
  /// From sweep looseAfter + 1 on, stop at this fraction of the impact's speed scale instead.
  Scalar looseTolerance = 1e-11;
  int looseAfter = 100;
  /// The normal pass's tolerance, a fraction of the post-impact speed scale (the verification's).
  Scalar normalTolerance = 1e-13;
  /// Over-relaxation where it is safe (the file comment), in (0, 2); 1 is plain Gauss–Seidel.
  Scalar relaxation = 1.6;
  /// Sweeps per attempt (and per normal pass); when reached, the verification decides.
  int sweepCap = 1000;
  /// Visit only what the impact's friction moves (see the file comment); off,
  /// every block and normal row of the problem in every sweep (the reference
  /// the worklist is tested against, to round-off).
  bool worklist = true;
};

/// What the friction stage did, per entry of FrictionRows and overall.
struct FrictionResult {
  std::vector<Eigen::Vector2d> tangentialImpulse;  ///< per entry: (λ_t1, λ_t2) along its tangent rows.
  std::vector<Scalar> normalCorrection;            ///< per entry: δ, added to ImpactResult::impulses.
  std::vector<Scalar> slipSpeed;                   ///< per entry: ||T v+ + b_t|| after.
  std::vector<FrictionState> state;                ///< per entry.
  FrictionOutcome outcome = FrictionOutcome::NotNeeded;
  int sweeps = 0;                ///< sweeps of the attempt that stands (0 when none ran).
  Scalar energyBefore = 0;       ///< kinetic energy of the frictionless outcome.
  Scalar dissipation = 0;        ///< −f of the standing attempt (energy lost when b = 0), ≥ 0.
};

/// The friction stage; owns its workspace (reuse one per thread: no heap
/// traffic once capacities have grown).
class ImpactFriction {
 public:
  ImpactFriction();
  ~ImpactFriction();
  ImpactFriction(ImpactFriction&&) noexcept;
  ImpactFriction& operator=(ImpactFriction&&) noexcept;
  ImpactFriction(const ImpactFriction&) = delete;
  ImpactFriction& operator=(const ImpactFriction&) = delete;

  /// Sizes the workspace for any problem within \p bounds (as
  /// ImpactResolver::reserve), so that apply() allocates nothing for such a
  /// problem of rigid bodies without joints.
  void reserve(const ProblemBounds& bounds);

  /// Adds friction to \p result, the frictionless outcome of \p problem resolved
  /// with \p resolveOptions (its feasibility tolerance and joint rule apply).
  /// Updates result.velocity, energyAfter and impulses (+ δ); with no entry
  /// that has μ > 0 and a normal impulse, \p result is left untouched.
  void apply(const ImpactProblem& problem, const FrictionRows& friction, const ResolveOptions& resolveOptions,
             const FrictionOptions& options, ImpactResult& result, FrictionResult& frictionResult);

 private:
  struct Workspace;
  std::unique_ptr<Workspace> m_workspace;
};

/// Dense entry point for analysis: resolves the impact of resolveDense()
/// (M, v, J with one restitution per row) and applies friction with one
/// coefficient per contact \p mu and tangent rows \p T (2 per contact: rows
/// 2i and 2i+1 belong to contact i; a zero row means "no second direction").
/// \p frictionResult receives the friction report. Throws InputError for bad input.
[[nodiscard]] ImpactResult resolveDenseWithFriction(const Eigen::Ref<const MatrixX>& M,
                                                    const Eigen::Ref<const VectorX>& v,
                                                    const Eigen::Ref<const MatrixX>& J,
                                                    const Eigen::Ref<const VectorX>& restitutions,
                                                    const Eigen::Ref<const VectorX>& mu,
                                                    const Eigen::Ref<const MatrixX>& T, FrictionResult& frictionResult,
                                                    const ResolveOptions& options = {},
                                                    const FrictionOptions& frictionOptions = {});

}  // namespace propimpact
