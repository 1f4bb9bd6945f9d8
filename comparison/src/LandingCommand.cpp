#include "LandingCommand.h"

#include "Csv.h"
#include "Sweep.h"

namespace propimpact::compare {

void addLandingCommand(CLI::App& app, LandingCommand& command) {
  LandingOptions& o = command.options;
  CLI::App* cmd = app.add_subcommand(
      "landing", "sphere and cube dropped on a rough incline: post-landing velocities, spin, energy (issue 18)");
  cmd->add_option("-o,--output", command.output, "CSV file to write ('-' = stdout)")->capture_default_str();
  cmd->add_option("-j,--jobs", o.sweep.jobs, "worker threads (results identical for any value)")
      ->capture_default_str()
      ->check(CLI::Range(1, 1024));
  cmd->add_option("--shard", command.shard, "run only shard i of N; join with 'merge'")->capture_default_str();
  cmd->add_option("--solvers", o.solvers, "solvers to run ('propagative-friction': ours with impact friction)")
      ->delimiter(',')
      ->check(CLI::IsMember(landingSolverNames()))
      ->capture_default_str();
  cmd->add_flag("-q,--quiet", command.quiet, "no progress on stderr");
  cmd->add_option("--shapes", o.shapes, "dropped bodies")
      ->delimiter(',')
      ->check(CLI::IsMember({"sphere", "box"}))
      ->capture_default_str();
  cmd->add_option("--angle", o.angles, "incline angles (degrees)")->delimiter(',')->capture_default_str();
  cmd->add_option("--mu", o.frictions, "combined coefficients of friction")->delimiter(',')->capture_default_str();
  cmd->add_option("--cor", o.cors, "combined coefficients of restitution")->delimiter(',')->capture_default_str();
  cmd->add_option("--hz", o.hz, "step rate")->capture_default_str();
  cmd->add_option("--height", o.height, "drop height of the lowest point (m)")->capture_default_str();
  cmd->add_option("--size", o.size, "sphere radius and cube half extent (m)")->capture_default_str();
  cmd->add_option("--settle", o.settle, "seconds watched after the landing")->capture_default_str();
  command.cmd = cmd;
}

std::optional<int> runLandingCommand(LandingCommand& command) {
  if (!command.cmd || !*command.cmd) return std::nullopt;
  parseShard(command.shard, command.options.sweep);
  command.options.sweep.progress = !command.quiet;
  writeCsv(runLanding(command.options).table, command.output);
  return 0;
}

}  // namespace propimpact::compare
