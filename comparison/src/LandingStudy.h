#pragma once
/// \file LandingStudy.h
/// The landing study (issue 18, item 6): a solid sphere or a cube dropped onto
/// a rough incline (scenes::Incline), swept over the incline's angle, the
/// combined friction μ and restitution e. Per cell, the body's velocity just
/// before and just after its first landing (downhill, normal, spin about
/// n × t) and its kinetic energy, for stock Bullet and for ours without and
/// with impact friction, next to Routh's closed form for the sphere
/// (SPEC §7, "Friction during an impact").
///
/// Velocities are mid-step (SPEC §7, kick–reflect–kick): before = the
/// velocity at the start of the landing step plus half the step's gravity
/// kick, after = the velocity at the end of that step minus half a kick. The
/// landing step is the first in which a contact changes the body's normal
/// velocity; a cube's later impacts (its other edge slamming down) show in the
/// rotation and distance measured `settle` seconds on. For ours this is the velocity the impact itself
/// produced, exactly, whenever the contact separates (e > 0); at e = 0 the
/// contact stays and Bullet's pass takes the second half kick in the same
/// step, which moves the measured values by at most ½ g dt along the normal
/// and μ ½ g dt of friction impulse (so up to (5/2) μ ½ g dt of ω r).

#include <string>
#include <vector>

#include "Csv.h"
#include "Studies.h"
#include "Sweep.h"

namespace propimpact::compare {

/// The solvers the landing study accepts: scenes::solverNames() (where
/// "propagative" has impact friction off, the papers' frictionless impacts)
/// and "propagative-friction" (the same solver with
/// SolverSettings::impactFriction on).
[[nodiscard]] const std::vector<std::string>& landingSolverNames();

/// Landing study options.
struct LandingOptions {
  SweepOptions sweep;                                   ///< jobs, shard, progress.
  std::vector<std::string> solvers{"bullet-si", "propagative", "propagative-friction"}; ///< landingSolverNames() entries.
  std::vector<std::string> shapes{"sphere", "box"};     ///< dropped bodies.
  std::vector<double> angles{10, 20, 30, 40};           ///< incline angles (degrees, in [0, 90)).
  std::vector<double> frictions{0, 0.05, 0.1, 0.2, 0.3, 0.5, 1};  ///< combined μ.
  std::vector<double> cors{0, 0.5, 1};                  ///< combined e.
  double hz = 60;                                       ///< step rate (Bullet's default).
  double height = 1;                                    ///< drop height of the lowest point (m).
  double size = 0.5;                                    ///< sphere radius, cube half extent (m).
  double settle = 1;                                    ///< seconds watched after the landing.
};

/// Runs the landing study. Columns: cell, solver, shape, angle_deg, mu, cor,
/// hz, landing_step, vt_before, vn_before (approach speed, > 0), vt_after,
/// vn_after (separation, > 0), spin_after (ω·(n × t), rad/s), omega_r_after
/// (spin × size), lateral_after (|velocity and ω r off the downhill plane|),
/// energy_before, energy_after, energy_ratio, then the sphere's closed form
/// (regime stick / slip, vt_closed, vn_closed, omega_r_closed,
/// err_vs_closed = largest difference / impact speed; "nan" for the cube),
/// for ours the landing step's impact contacts and reflections ("nan" for
/// stock), then settle_s and, that long after the landing, the downhill distance
/// (downhill_m) and the rotation angle since the landing (turn_deg).
[[nodiscard]] StudyOutput runLanding(const LandingOptions& options);

/// The report.md section of landing.csv in \p directory (empty when absent);
/// writes landing_slice.csv (what plots/landing.gp reads) and adds its lines
/// to \p claims.
[[nodiscard]] std::string landingReportSection(const std::string& directory, std::string& claims);

}  // namespace propimpact::compare
