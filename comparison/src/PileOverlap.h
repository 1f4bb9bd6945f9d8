#pragma once
/// \file PileOverlap.h
/// `propimpact-compare pile-overlap` (issue 18, item 5): how deep bodies sink
/// into each other in a pile (scenes::Pile), stock against ours. Per solver
/// and restitution, over a window of the run: the deepest sphere–sphere
/// overlap and the deepest penetration into the floor or a wall (from the
/// manifold points' negative distances), and over the whole run the
/// mechanical energy (kinetic + m g y) against its start.

#include <CLI/CLI.hpp>

#include <optional>
#include <string>
#include <vector>

#include "Studies.h"

namespace propimpact::compare {

/// Options of `pile-overlap`.
struct PileOverlapOptions {
  SweepOptions sweep;                                  ///< jobs, progress.
  std::vector<std::string> solvers{"bullet-si", "propagative", "propagative-friction"}; ///< landingSolverNames() entries.
  std::vector<double> cors{1, 0.8};                    ///< combined restitutions.
  int count = 300;                                     ///< spheres (r = 0.5 m) in the 12 × 12 m box.
  double hz = 60;                                      ///< step rate.
  double seconds = 20;                                 ///< simulated time.
  double windowStart = 10;                             ///< overlaps are measured from this time on (s).
};

/// Runs it. Columns: cell, solver, cor, count, hz, seconds, window_start,
/// deepest_overlap_m, overlap_step_travel_m (the pair's relative normal speed
/// before that step × dt: the depth a body reaches in one step before any
/// contact exists), deepest_penetration_m, penetration_step_travel_m,
/// energy_start, energy_end,
/// energy_min_ratio, energy_max_ratio.
[[nodiscard]] StudyOutput runPileOverlap(const PileOverlapOptions& options);

/// The parsed `pile-overlap` subcommand.
struct PileOverlapCommand {
  PileOverlapOptions options;
  std::string output = "-";
  bool quiet = false;
  CLI::App* cmd = nullptr;
};

/// Adds `pile-overlap` to \p app; \p command must outlive the parse.
void addPileOverlapCommand(CLI::App& app, PileOverlapCommand& command);
/// Runs it when it was given; returns its exit status, or nothing.
[[nodiscard]] std::optional<int> runPileOverlapCommand(PileOverlapCommand& command);

}  // namespace propimpact::compare
