#pragma once
/// \file CompassWalker.h
/// The compass walker with torso and round feet of seed 004, Sec. 4 (Fig. 1,
/// Table I), at heel strike.
///
/// Coordinates q = [x, y, q3, q4, q5]: (x, y) the centre of the stance foot's
/// arc, q3, q4, q5 the absolute angles of the stance leg, the swing leg and the
/// torso from the vertical, positive clockwise (leaning towards +x, the
/// walking direction). Each leg points from its foot up to the hip; the torso
/// from the hip up. At heel strike q3 = θ/2, q4 = −θ/2 (θ = 2 q3, the seed's
/// inter-leg angle); q5 = +20° is the torso leaning forward, aligned with the
/// rear leg (Sec. 4.2).
///
/// Model (stated by the seed unless marked "reading"):
/// - total mass m_W = 30 kg, hip point mass m_H = 10 kg, legs of length
///   l = 0.8 m and mass m with their centre of mass b = 0.4 m below the hip,
///   torso of mass m_T with its centre of mass l_T = 0.4 m above the hip;
///   μ = m_T / (2m), so m = (m_W − m_H) / (2 (1 + μ)); foot radius R = ρ l.
/// - Reading: legs and torso are point masses at their centres of mass (no
///   moment of inertia: the compass-gait model of the seed's refs. [14], [15]);
///   the feet are massless arcs of radius R whose centre lies on the leg, l − R
///   from the hip (so the hip is l above the ground for a vertical leg).
/// - Pre-impact velocity (the seed's assumptions 1–3): the stance foot rolls,
///   ẋ = R q̇3, ẏ = 0; q̇5 = 0; q̇3 = q̇4 = 1 rad/s.
/// - Heel strike: the swing foot's contact point P (below its arc's centre)
///   sticks, v_P⁺ = 0 (two rows: tangential x, normal y), eq. 3.
/// - Reading: the old stance foot lifts off when its arc's centre moves up
///   after the strike, ẏ⁺ > 0 (with a point foot, its contact point).

#include <propimpact/core/Types.h>

namespace propimpact::compare {

/// Table I of seed 004 plus the two varied parameters.
struct WalkerParameters {
  double totalMass = 30;   ///< m_W (kg).
  double hipMass = 10;     ///< m_H (kg).
  double legLength = 0.8;  ///< l (m).
  double legCom = 0.4;     ///< b: leg centre of mass below the hip (m).
  double torsoCom = 0.4;   ///< l_T: torso centre of mass above the hip (m).
  double rho = 0;          ///< R / l.
  double mu = 1;           ///< m_T / (2 m).
};

/// The walker at the instant of heel strike.
struct WalkerStrike {
  MatrixX M;      ///< 5×5 mass matrix.
  MatrixX A;      ///< 2×5: rows ẋ_P, ẏ_P of the swing foot's contact point.
  VectorX qdot;   ///< q̇⁻ of assumptions 1–3.
};

/// Builds the heel-strike problem for inter-leg angle \p theta and torso angle
/// \p q5 (radians). Throws std::invalid_argument for parameters without a
/// walker (ρ outside [0, 1), μ ≤ 0: a massless torso has no dynamics, masses not positive).
[[nodiscard]] WalkerStrike walkerStrike(double theta, double q5, const WalkerParameters& parameters);

/// Index of ẏ (the stance foot centre's vertical velocity) in q̇.
constexpr Index kStanceFootVy = 1;

}  // namespace propimpact::compare
