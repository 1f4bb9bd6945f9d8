#include "MultiBodyCommand.h"

#include <fmt/format.h>

#include <cstdio>

#include "Csv.h"
#include "Sweep.h"

namespace propimpact::compare {

void addMultiBodyCommand(CLI::App& app, MultiBodyCommand& command) {
  MultiBodyCradleOptions& o = command.cradle;
  CLI::App* cmd = app.add_subcommand(
      "multibody-cradle", "the cradle study through floating-base btMultiBody balls: stock multibody solver vs ours");
  cmd->add_option("-o,--output", command.output, "CSV file to write ('-' = stdout)")->capture_default_str();
  cmd->add_option("-j,--jobs", o.sweep.jobs, "worker threads (results identical for any value)")
      ->capture_default_str()
      ->check(CLI::Range(1, 1024));
  cmd->add_option("--shard", command.shard, "run only shard i of N; join with 'merge'")->capture_default_str();
  cmd->add_option("--solvers", o.solvers, "solvers to run (default: all)")
      ->delimiter(',')
      ->check(CLI::IsMember(multiBodySolverNames()));
  cmd->add_flag("-q,--quiet", command.quiet, "no progress on stderr");
  cmd->add_flag("--check", o.check, "regression mode: exit 1 naming every row that fails the thresholds");
  cmd->add_option("--v0-count", o.v0Count, "impact speeds, log-spaced")->capture_default_str();
  cmd->add_option("--v0-min", o.v0Min, "smallest impact speed (m/s)")->capture_default_str();
  cmd->add_option("--v0-max", o.v0Max, "largest impact speed (m/s)")->capture_default_str();
  cmd->add_option("--cor", o.cors, "coefficients of restitution (combined)")->delimiter(',')->capture_default_str();
  cmd->add_option("--hz", o.hz, "step rates")->delimiter(',')->capture_default_str();
  cmd->add_option("--phase", o.phases, "first-contact depth as a fraction of one step's travel, in (0,1]")
      ->delimiter(',')
      ->capture_default_str();
  cmd->add_option("--settle-steps", o.settleSteps, "steps after the impact step")->capture_default_str();
  cmd->add_option("--energy-tol", o.energyTolerance, "--check: max |energy_ratio - energy_ideal|")->capture_default_str();
  cmd->add_option("--velocity-tol", o.velocityTolerance, "--check: max err_vs_propagative")->capture_default_str();
  command.cradleCmd = cmd;
}

std::optional<int> runMultiBodyCommand(MultiBodyCommand& command) {
  if (!command.cradleCmd || !*command.cradleCmd) return std::nullopt;
  parseShard(command.shard, command.cradle.sweep);
  command.cradle.sweep.progress = !command.quiet;
  const StudyOutput out = runMultiBodyCradle(command.cradle);
  writeCsv(out.table, command.output);
  if (!command.cradle.check) return 0;
  for (const auto& failure : out.failures) fmt::print(stderr, "FAIL {}\n", failure);
  if (!out.failures.empty()) {
    fmt::print(stderr, "check failed: {} problem(s) in {} checked row(s)\n", out.failures.size(), out.checkedRows);
    return 1;
  }
  fmt::print(stderr, "check passed: {} row(s)\n", out.checkedRows);
  return 0;
}

}  // namespace propimpact::compare
