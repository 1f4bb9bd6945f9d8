#pragma once
/// \file InertConstraints.h
/// A plastic impact onto bilateral velocity constraints ("inert constraints",
/// seed 004, Sec. 2–3): a foot that sticks to the ground, a plate that stops
/// an end effector. At the event the constraints A q̇⁺ = 0 (eq. 3) are
/// established; the configuration does not change.
///
/// With G = A M⁻¹ Aᵀ (the Delassus matrix, invertible when the m rows of A are
/// independent):
///
///   P_c = M⁻¹ Aᵀ G⁻¹ A,  P_a = I − P_c                    (eqs. 4, 5)
///   v_c = P_c q̇⁻,  v_a = P_a q̇⁻                          (eq. 6)
///   T_c = ½ v_cᵀ M v_c,  T_a = ½ v_aᵀ M v_a,  T = T_c + T_a (eq. 7; P_aᵀ M P_c = 0)
///   q̇⁺ = P_a q̇⁻  (T⁺ = T_a⁻: T_c⁻ is lost)               (eq. 15)
///   λ̄ = −G⁻¹ A v_c = −G⁻¹ A q̇⁻  (impulse M Δq̇ = Aᵀ λ̄)      (eqs. 14, 16)
///   −2 T_c⁻ = q̇⁻ᵀ Aᵀ λ̄                                    (eq. 17)
///   ξ = T_c⁻ / T⁻                                          (eq. 22)
///
/// Unlike resolveDense (unilateral contacts, SPEC §4), the constraints are
/// bilateral: λ̄ may have either sign, and the rows that separate are not
/// released. This is what the seed's heel strike and pantograph analyses use.
/// On a set of unilateral contacts whose plastic multipliers are all positive
/// the two agree (SPEC §6).
///
/// \code
///   Eigen::MatrixXd M = Eigen::MatrixXd::Identity(2, 2);   // unit point mass in the plane
///   Eigen::VectorXd v(2); v << 1, -1;                       // moving down-right
///   Eigen::MatrixXd A(1, 2); A << 0, 1;                     // floor: ẏ⁺ = 0
///   auto r = propimpact::resolveInert(M, v, A);
///   // r.velocity == (1, 0), r.lostEnergy == 0.5, r.impulse == (1), r.xi == 0.5
/// \endcode

#include "propimpact/core/Errors.h"
#include "propimpact/core/Types.h"

namespace propimpact {

/// The decomposition and outcome of one inert-constraint event (eqs. 4–22 of
/// seed 004). Energies are ½ q̇ᵀ M q̇ in the units of M and q̇.
struct InertImpact {
  MatrixX constrainedProjector;  ///< P_c (n×n), eq. 4: M-orthogonal projector onto the constrained motions.
  MatrixX admissibleProjector;   ///< P_a = I − P_c (n×n), eq. 5.
  VectorX constrainedVelocity;   ///< v_c⁻ = P_c q̇⁻, eq. 6.
  VectorX admissibleVelocity;    ///< v_a⁻ = P_a q̇⁻, eq. 6.
  Scalar energy = 0;             ///< T⁻ = ½ q̇⁻ᵀ M q̇⁻.
  Scalar constrainedEnergy = 0;  ///< T_c⁻, eq. 7: the energy the event removes.
  Scalar admissibleEnergy = 0;   ///< T_a⁻ = T⁺, eq. 7: the energy that stays.
  Scalar lostEnergy = 0;         ///< T⁻ − T⁺ computed from q̇⁺ (equals T_c⁻ to round-off).
  Scalar xi = 0;                 ///< ξ = T_c⁻ / T⁻, eq. 22 (0 when T⁻ = 0).
  VectorX impulse;               ///< λ̄ (m), eq. 16: one impulse per row of A, M(q̇⁺ − q̇⁻) = Aᵀ λ̄.
  VectorX velocity;              ///< q̇⁺ = P_a q̇⁻, eq. 15.
};

/// Options of resolveInert.
struct InertOptions {
  /// Rows of A are refused as dependent when the smallest singular value of
  /// L⁻¹Aᵀ (M = L Lᵀ; its squares are the eigenvalues of G) falls below this
  /// fraction of the largest. At 1e-10, cond(G) ≤ 1e20 would already lose every
  /// digit of G⁻¹, but P_c is computed from the QR factor of L⁻¹Aᵀ, whose
  /// condition number (≤ 1e10) is what costs digits: about six remain.
  Scalar rankTolerance = 1e-10;
};

/// Thrown by resolveInert when the rows of A are linearly dependent in the
/// kinetic metric (G singular): eq. 16 then has no unique impulse. code() is
/// ErrorCode::DependentRows.
class DependentConstraintRows : public InputError {
 public:
  /// \param detail which rows and the singular values found.
  explicit DependentConstraintRows(const std::string& detail) : InputError(ErrorCode::DependentRows, detail) {}
};

/// Resolves the plastic impact of generalized velocity \p v (n) with
/// symmetric positive definite mass matrix \p M (n×n) onto the bilateral
/// constraints \p A (m×n, m ≥ 0, independent rows): A q̇⁺ = 0 (eq. 3).
/// Throws InputError: DimensionMismatch (sizes, or m > n), NonFiniteMass,
/// NonFiniteVelocity, NonFiniteRow, MassNotPositiveDefinite, ZeroNormRow (an
/// all-zero row), and DependentConstraintRows (a subclass) for rank(A) < m.
[[nodiscard]] InertImpact resolveInert(const Eigen::Ref<const MatrixX>& M, const Eigen::Ref<const VectorX>& v,
                                       const Eigen::Ref<const MatrixX>& A, const InertOptions& options = {});

}  // namespace propimpact
