#pragma once
/// \file Pantograph.h
/// The five-bar pantograph of seed 004, Sec. 6 (Fig. 7, Table II), in the
/// actuated joint coordinates q = [q1 q3] (absolute angles of links 1 and 3).
///
/// Model (what the seed states, and the readings chosen where it does not):
/// - Motor axes at (0, 0) and (l5, 0). Link 1 (motor 1 → elbow 1) and link 2
///   (elbow 1 → end effector); link 3 (motor 2 → elbow 2) and link 4 (elbow 2 →
///   end effector). The end effector is a point mass m_EE at the joint of links
///   2 and 4. Angles are absolute, counterclockwise from +x.
/// - a_i is measured from a link's proximal joint (motor for links 1, 3;
///   elbow for links 2, 4); I_i is about the link's centre of mass. Motor
///   rotors and the force sensor have no inertia of their own.
/// - Elbows out: elbow 1 left of the line motor 1 → end effector, elbow 2 right
///   of motor 2 → end effector (the assembly of Fig. 7).
/// - Fig. 8: the end effector 0.225 m above the motor axes, on the symmetry
///   axis x = l5/2 (symmetric) or 0.2 m to its right (asymmetric). The plate's
///   normal is +y; the inert constraint is ẏ_EE⁺ = 0 (one row).
/// - γ is the angle of v_EE⁻ from +y, positive clockwise (towards +x): the
///   seed's "−7.58° … measured counterclockwise".
/// These readings reproduce Tables III and V to their printed digits; the
/// other elbow assembly or a_2 measured from the end effector do not.

#include <Eigen/Core>

#include <propimpact/core/Types.h>

namespace propimpact::compare {

/// Table II of seed 004 (links 3, 4 equal links 1, 2).
struct PantographParameters {
  double l1 = 0.1449, l2 = 0.1984;   ///< link lengths (m).
  double a1 = 0.0519, a2 = 0.1081;   ///< centre of mass from the proximal joint (m).
  double l5 = 0.0445;                ///< distance between the motor axes (m).
  double m1 = 0.1202, m2 = 0.1084;   ///< link masses (kg).
  double mEE = 0.3144;               ///< end-effector mass (kg).
  double I1 = 0.0004, I2 = 0.0007;   ///< moments of inertia about the centres of mass (kg m²).
};

/// The pantograph at one end-effector position.
struct PantographModel {
  MatrixX M;                 ///< 2×2 mass matrix in q = [q1 q3], from T = ½ q̇ᵀ M q̇ summed over the links.
  MatrixX A;                 ///< 1×2 inert constraint row: A q̇ = ẏ_EE.
  Eigen::Matrix2d jacobian;  ///< v_EE = jacobian · q̇.
};

/// Builds the model with the end effector at \p endEffector (m, motor 1 at the
/// origin). Throws std::invalid_argument when the point is out of reach.
[[nodiscard]] PantographModel pantographAt(const Eigen::Vector2d& endEffector,
                                           const PantographParameters& parameters = {});

/// End-effector position of Fig. 8: \p offset metres right of the symmetry
/// axis (0: symmetric, 0.2: asymmetric), \p height above the motor axes.
[[nodiscard]] Eigen::Vector2d pantographContactPoint(double offset, double height = 0.225,
                                                     const PantographParameters& parameters = {});

}  // namespace propimpact::compare
