#pragma once
/// \file Studies.h
/// The studies of propimpact-compare: cradle (seed 000, Fig. 2b), billiards
/// (Fig. 5) and bounce. Each runs a sweep of independent cells and returns a
/// Table plus the rows that failed --check.

#include <LinearMath/btScalar.h>

#include <cstdint>
#include <string>
#include <vector>

#include "Csv.h"
#include "Sweep.h"

namespace propimpact::compare {

/// Options every study shares.
struct CommonOptions {
  SweepOptions sweep;                      ///< jobs, shard, progress.
  std::vector<std::string> solvers;        ///< solvers to run (scenes::solverNames() when empty).
  bool check = false;                      ///< regression mode.
  std::vector<std::string> checkSolvers{"propagative"}; ///< rows of these solvers are checked.
};

/// What a study produced.
struct StudyOutput {
  Table table;                             ///< the CSV.
  std::vector<std::string> failures;       ///< one line per failing row (empty: passed or not checked).
  std::size_t checkedRows = 0;             ///< rows the check looked at.
};

/// Cradle study: three equal balls on a line, B–C touching, A hits B.
struct CradleOptions : CommonOptions {
  int v0Count = 12;                        ///< impact speeds, log-spaced from v0Min to v0Max.
  double v0Min = 0.1;                      ///< m/s.
  double v0Max = 10;                       ///< m/s.
  std::vector<double> cors{1, 0.7, 0};     ///< combined coefficients of restitution.
  std::vector<double> hz{60, 600, 6000};   ///< step rates.
  std::vector<double> phases{0.1, 0.3, 0.5, 0.7, 0.9, 0.99}; ///< first-contact depth fractions φ.
  int settleSteps = 60;                    ///< steps simulated after the detecting step.
  /// check: |energy_ratio − energy_ideal|; round-off of btScalar (issue 3:
  /// 1e-9 in double, 1e-5 in the single-precision build).
  double energyTolerance = sizeof(btScalar) == 8 ? 1e-9 : 1e-5;
  double velocityTolerance = sizeof(btScalar) == 8 ? 1e-6 : 1e-5;  ///< check: err_vs_propagative.
};
/// The impact speeds the cradle study sweeps.
[[nodiscard]] std::vector<double> cradleSpeeds(const CradleOptions& options);
/// Runs the cradle study.
[[nodiscard]] StudyOutput runCradle(const CradleOptions& options);

/// Billiards study: ξ(θ) of the three-ball break, analytic and simulated.
struct BilliardsOptions : CommonOptions {
  int thetaCount = 25;                     ///< θ values, evenly from the touching minimum to π.
  double hz = 600;                         ///< step rate.
  double phase = 0.5;                      ///< first-contact depth fraction.
  double speed = 1;                        ///< cue speed (m/s).
  double cor = 1;                          ///< combined coefficient of restitution.
  int settleSteps = 30;                    ///< steps after the detecting step.
  double tolerance = 1e-6;                 ///< check: outcome and ξ against the analytic ones.
};
/// Runs the billiards study.
[[nodiscard]] StudyOutput runBilliards(const BilliardsOptions& options);

/// Bounce study: apex height per bounce of a ball dropped on a static box.
struct BounceOptions : CommonOptions {
  std::vector<double> cors{1, 0.8, 0.5};   ///< combined coefficients of restitution.
  double hz = 240;                         ///< step rate.
  double height = 10;                      ///< drop height of the ball's lowest point (m).
  int bounces = 10;                        ///< apexes recorded.
  double maxTime = 60;                     ///< simulated seconds at most.
  int checkBounces = 5;                    ///< check the first this many bounces...
  double minCheckedFraction = 0.01;        ///< ...whose expected apex is at least this fraction of the height.
  double apexTolerance = 0.02;             ///< check: |apex / (h·cor^(2k)) − 1|.
};
/// Runs the bounce study.
[[nodiscard]] StudyOutput runBounce(const BounceOptions& options);

/// World replay: a user's `.bullet` file stepped under each solver, with the
/// energy (kinetic + gravitational potential of the dynamic bodies) per step.
struct WorldOptions {
  std::string file;                        ///< the .bullet file.
  std::vector<std::string> solvers{"bullet-si", "propagative"}; ///< solvers to run, each on its own copy.
  double seconds = 10;                     ///< simulated time.
  double hz = 60;                          ///< stepSimulation calls per second (fixed step 1/hz).
  int maxSubSteps = 1;                     ///< stepSimulation's maxSubSteps, as the user's world.
  int every = 1;                           ///< write every this many steps (the drift looks at all).
  bool check = false;                      ///< regression mode.
  double maxDrift = 1e-6;                  ///< check: worst |E − E0| / |E0|.
  std::vector<std::string> checkSolvers{"propagative"}; ///< solvers --check checks.
  bool quiet = false;                      ///< no summary on stderr.
};
/// Runs the replay. Throws scenes::BadWorldFile (propimpact/scenes/WorldFile.h) for a file it cannot replay.
[[nodiscard]] StudyOutput runWorld(const WorldOptions& options);

/// Scene export: one scene of the shared library written as a `.bullet` file.
struct ExportOptions {
  std::string scene;                       ///< exportSceneNames() entry.
  std::string output;                      ///< the .bullet file to write.
  int count = 0;                           ///< bodies (0: the scene's default).
  double cor = -1;                         ///< combined COR (< 0: the scene's default).
  double speed = -1;                       ///< impact / initial speed (m/s; < 0: the scene's default).
  double hz = 60;                          ///< step rate the scene is placed for (cradle, chain, billiards).
  double phase = 0.5;                      ///< first-contact depth fraction (cradle, chain, billiards).
  std::uint32_t seed = 1;                  ///< pile and gas seed.
};
/// The scenes export accepts.
[[nodiscard]] const std::vector<std::string>& exportSceneNames();
/// Builds the scene and writes it; returns a one-line description.
std::string exportScene(const ExportOptions& options);

/// Writes report.md and the aggregated CSVs the plots read into \p dir from
/// the study CSVs found there; returns the summary table as Markdown.
/// \p commit names the source revision that produced the CSVs.
std::string writeReport(const std::string& dir, const std::string& commit);

}  // namespace propimpact::compare
