#pragma once
/// \file RobotStudies.h
/// The robot studies of propimpact-compare (issue 14): the pantograph and the
/// compass walker of seed 004 (inert constraints, resolveInert) and the
/// order-independent design of a tailed biped (seed 000 Sec. VII-B, seed 001;
/// resolveDense). They are analyses in generalized coordinates: no Bullet
/// world, so no --solvers.

#include <string>
#include <vector>

#include "Studies.h"

namespace propimpact::compare {

/// Options every robot study shares.
struct RobotStudyOptions {
  SweepOptions sweep;  ///< jobs, shard, progress.
  bool check = false;  ///< regression mode: compare with the paper.
};

/// Pantograph (seed 004, Sec. 6, Tables III and V): the end effector hits the
/// plate with T⁻ = energy at angle γ; one row per case of the paper plus a γ
/// sweep per configuration for the plot.
struct PantographOptions : RobotStudyOptions {
  double energy = 0.01;        ///< T⁻ (J).
  double height = 0.225;       ///< end effector above the motor axes (m), Fig. 8.
  double offset = 0.2;         ///< asymmetric configuration: right of the symmetry axis (m), Fig. 8b.
  double sweepStep = 1;        ///< γ step of the sweep rows (degrees), from −90° to 90°.
  double speedTolerance = 5e-4;   ///< check: ‖v_EE⁻‖ (m/s), the paper's last printed digit.
  double energyTolerance = 0.02;  ///< check: T_c⁻, T_a⁻ (mJ).
  double xiTolerance = 0.006;     ///< check: ξ (printed to 0.01).
  double angleTolerance = 0.1;    ///< check: the ξ = 1 direction (degrees).
};
/// Runs the pantograph study.
[[nodiscard]] StudyOutput runPantograph(const PantographOptions& options);

/// Compass walker with torso and round feet (seed 004, Sec. 4): the heel
/// strike as an inert constraint on the swing foot, over θ × ρ × μ × q5.
struct WalkerOptions : RobotStudyOptions {
  double thetaMin = 10, thetaMax = 60, thetaStep = 1;  ///< inter-leg angle θ (degrees).
  std::vector<double> rhos{0, 0.25, 0.5};              ///< foot radius / leg length.
  std::vector<double> mus{0.1, 1, 10};                 ///< torso mass / (2 · leg mass).
  std::vector<double> q5s{-20, -15, -10, -5, 0, 5, 10, 15, 20};  ///< torso angle (degrees, forward positive).
  double paperLiftoff = 43;                            ///< Sec. 4.1: lift-off stops near θ = 43° (ρ = 0).
  double liftoffTolerance = 2;                         ///< check: |threshold − 43°| (degrees).
};
/// Runs the walker study.
[[nodiscard]] StudyOutput runWalker(const WalkerOptions& options);

/// Tailed biped (seed 000, Sec. VII-B): its stance foot and tail tip touch the
/// ground together; the design is optimised until their contact covectors are
/// orthogonal in the kinetic metric (Thm 2).
struct DesignOptions : RobotStudyOptions {
  double targetGram = 1e-12;   ///< stop the optimisation when |⟨û, v̂⟩_g| is below this.
  int maxIterations = 50;      ///< Gauss–Newton steps at most.
  double minDrop = 1e3;        ///< check: ξ and spread fall by at least this factor.
  double minInitialXi = 1e-4;  ///< check: the initial design is clearly order dependent.
};
/// Runs the design study.
[[nodiscard]] StudyOutput runDesign(const DesignOptions& options);

/// Report sections of the robot studies from the CSVs in \p dir (each skipped
/// when its CSV is absent); claims rows are appended to \p claims. Returns the
/// Markdown body ("" when none of the CSVs exists).
[[nodiscard]] std::string robotReportSections(const std::string& dir, std::string& claims);

}  // namespace propimpact::compare
