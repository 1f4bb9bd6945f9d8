#pragma once
/// \file TailedBiped.h
/// A planar tailed biped in the spirit of TREX (seed 000, Sec. VII-B, Fig. 6):
/// a two-part body, two two-segment legs and a tail, whose right foot and tail
/// tip touch the floor (y = 0) together. The seed does not give enough of its
/// model to rebuild it (issue 14), so this is our own, stated in full:
///
/// Coordinates q = [x, y, θ, ϕL, γL, ϕR, γR, ϕT] (8 DOF, the seed's list). All
/// angles counterclockwise; +x is forward.
/// - Anterior body: a sphere of radius r1 centred at (x, y), pitch θ.
/// - Posterior body: a sphere of radius r2 behind it, hinged at the anterior
///   sphere's rear point (x, y) − r1 e(θ); its axis turns by ϕT relative to the
///   anterior one (ϕT > 0 lowers the tail). Its centre lies r2 further back.
/// - Tail: a rod rigid to the posterior body, from its rear point straight back
///   along its axis, of length L_tail(r1, r2) (the seed's taper formula).
/// - Legs: hips at the anterior centre; thigh of length lu at absolute angle
///   θ + ϕ, shank of length ll at θ + ϕ + γ (ϕ = −π/2, γ = 0: a straight leg
///   hanging down when θ = 0).
/// - Masses (the seed's densities): bodies are solid spheres of water density
///   (1 g/cm³, I = 2/5 m r²); limbs and tail are rods of carbon fibre (2 g/cm³)
///   with a 1.25 cm² section (I = m L²/12 about their middle).
/// - At the impact every joint is free: the knee and body springs and the PD
///   hip torques are finite forces, which do not act during an impulse.
/// - Contacts: gap functions φ_foot = y of the right foot tip, φ_tail = y of the
///   tail tip; covectors u = Dφ_foot, v = Dφ_tail (rows of the 2×8 J).

#include <array>

#include <propimpact/core/Types.h>

namespace propimpact::compare {

/// Design parameters and posture of the tailed biped (lengths in metres).
struct TailedBipedDesign {
  double r1 = 0.07, r2 = 0.04;   ///< anterior and posterior body radii.
  double lu = 0.08, ll = 0.10;   ///< thigh and shank lengths.
  double x = 0, y = 0.2;         ///< anterior body centre.
  double theta = 0;              ///< body pitch.
  double phiL = -1.2, gammaL = -0.4;  ///< left hip and knee.
  double phiR = -1.7, gammaR = 0.3;   ///< right hip and knee.
  double phiT = 0.3;             ///< body joint (posterior and tail relative to anterior).
};

/// Tail length from the body radii (seed 000, Sec. VII-B): the tail tapers with r1 / r2.
[[nodiscard]] double tailLength(double r1, double r2);

/// Generalized coordinates q of \p design (the order of the file comment).
[[nodiscard]] VectorX bipedCoordinates(const TailedBipedDesign& design);

/// Everything the impact needs at one configuration.
struct TailedBipedState {
  MatrixX M;                 ///< 8×8 mass matrix.
  MatrixX J;                 ///< 2×8 contact covectors: row 0 right foot, row 1 tail tip.
  Eigen::Vector2d footTip, tailTip;  ///< positions (m).
  double clearance = 0;      ///< lowest point of everything else (spheres, knees, left foot) (m).
  double mass = 0;           ///< total mass (kg).
};

/// Mass matrix, contact rows and geometry of \p design. Throws
/// std::invalid_argument for a design without a body (radii or lengths not
/// positive, r2 >= r1 so no tail length).
[[nodiscard]] TailedBipedState bipedState(const TailedBipedDesign& design);

/// Unit-normal Gram entry ⟨û, v̂⟩_g = u M⁻¹ vᵀ / (‖u‖_g ‖v‖_g) of the two contacts.
[[nodiscard]] double contactGram(const TailedBipedState& state);

}  // namespace propimpact::compare
