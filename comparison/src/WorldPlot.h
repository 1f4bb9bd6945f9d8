#pragma once
/// \file WorldPlot.h
/// The energy plot of a `world` run: the table beside the PNG as CSV, drawn
/// by gnuplot with comparison/plots/world_energy.gp.

#include <string>

#include "Csv.h"

namespace propimpact::compare {

/// Writes \p table to \p png with ".csv" appended and draws |E − E0|/|E0|
/// against time per solver into \p png. \p name titles the plot. Throws
/// std::runtime_error when gnuplot or the script is missing or fails.
void plotWorld(const Table& table, const std::string& png, const std::string& name);

}  // namespace propimpact::compare
