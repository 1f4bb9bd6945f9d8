#pragma once
/// \file StudyCommon.h
/// Helpers the study implementations share.

#include <algorithm>
#include <stdexcept>
#include <string>
#include <vector>

#include <propimpact/scenes/Solvers.h>

#include "Studies.h"

namespace propimpact::compare {

/// The solvers to run: the requested ones (validated) or all of them.
inline std::vector<std::string> studySolvers(const CommonOptions& options) {
  if (options.solvers.empty()) return scenes::solverNames();
  for (const auto& name : options.solvers)
    if (!scenes::isSolverName(name)) throw std::invalid_argument("unknown solver '" + name + "'");
  return options.solvers;
}

/// Throws when --check is on but none of the checked solvers runs.
inline void requireSomethingToCheck(const CommonOptions& options, const std::vector<std::string>& solvers) {
  if (!options.check) return;
  for (const auto& name : options.checkSolvers) {
    if (!scenes::isSolverName(name)) throw std::invalid_argument("unknown --check-solvers entry '" + name + "'");
    if (std::find(solvers.begin(), solvers.end(), name) != solvers.end()) return;
  }
  throw std::invalid_argument("--check: none of the checked solvers (--check-solvers) is in --solvers");
}

/// True when rows of \p solver are checked.
inline bool isChecked(const CommonOptions& options, const std::string& solver) {
  return options.check &&
         std::find(options.checkSolvers.begin(), options.checkSolvers.end(), solver) != options.checkSolvers.end();
}

}  // namespace propimpact::compare
