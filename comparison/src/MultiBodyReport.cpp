// report.md section of the multibody cradle study (multibody_cradle.csv in
// the report directory): per solver and step rate, the worst energy error and
// the worst velocity error against the propagative ideal, at COR 1 and over
// every coefficient.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <map>
#include <utility>

#include "Csv.h"
#include "MultiBodyStudy.h"

namespace propimpact::compare {

std::string multiBodyReportSection(const std::string& directory, std::string& claims) {
  const std::filesystem::path path = std::filesystem::path(directory) / "multibody_cradle.csv";
  if (!std::filesystem::exists(path)) return {};
  const Table t = readCsv(path.string());
  struct Worst {
    double energyCor1 = 0, velocityCor1 = 0, energy = 0, velocity = 0;
    int rows = 0;
  };
  std::map<std::pair<std::string, double>, Worst> worst;  // (solver, hz)
  for (std::size_t i = 0; i < t.rows.size(); ++i) {
    Worst& w = worst[{t.text(i, "solver"), t.number(i, "hz")}];
    const double energy = std::abs(t.number(i, "energy_ratio") - t.number(i, "energy_ideal"));
    const double velocity = t.number(i, "err_vs_propagative");
    w.energy = std::max(w.energy, energy);
    w.velocity = std::max(w.velocity, velocity);
    if (t.number(i, "cor") == 1) {
      w.energyCor1 = std::max(w.energyCor1, energy);
      w.velocityCor1 = std::max(w.velocityCor1, velocity);
    }
    ++w.rows;
  }
  std::string md =
      "## Cradle through multibodies (issue 13)\n\nThe three-ball cradle with every ball a floating-base `btMultiBody` "
      "in a `btMultiBodyDynamicsWorld`: Bullet's `btMultiBodyConstraintSolver` (bullet-multibody) against "
      "`PropagativeMultiBodySolver` (propagative). Worst |energy ratio − ideal| and worst velocity error (fraction "
      "of v0) against the propagative ideal, over the impact speeds and first-contact depths.\n\n"
      "| solver | Hz | rows | energy error, COR 1 | velocity error, COR 1 | energy error, all COR | velocity error, all COR |\n"
      "|---|---|---|---|---|---|---|\n";
  for (const auto& [key, w] : worst)
    md += fmt::format("| {} | {} | {} | {:.3g} | {:.3g} | {:.3g} | {:.3g} |\n", key.first, key.second, w.rows,
                      w.energyCor1, w.velocityCor1, w.energy, w.velocity);
  md += "\n";
  double stockEnergy = 0, stockVelocity = 0, oursVelocity = 0;
  for (const auto& [key, w] : worst) {
    if (key.first == "bullet-multibody") {
      stockEnergy = std::max(stockEnergy, w.energyCor1);
      stockVelocity = std::max(stockVelocity, w.velocityCor1);
    }
    if (key.first == "propagative") oursVelocity = std::max(oursVelocity, w.velocity);
  }
  claims += fmt::format("| issue 13: Bullet's multibody solver gets the cradle wrong (0.70 v0 off, energy 14 % off at "
                        "1 m/s) | multibody cradle, COR 1: stock velocity error up to {:.3g} v0, energy error up to "
                        "{:.3g}; ours: velocity error ≤ {:.3g} v0 at every COR |\n",
                        stockVelocity, stockEnergy, oursVelocity);
  return md;
}

}  // namespace propimpact::compare
