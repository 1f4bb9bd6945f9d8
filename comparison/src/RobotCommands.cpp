#include "RobotCommands.h"

#include <fmt/format.h>

#include <cstdio>

namespace propimpact::compare {
namespace {

void addShared(CLI::App& app, RobotStudyOptions& options, RobotCommands& commands) {
  app.add_option("-o,--output", commands.output, "CSV file to write ('-' = stdout)")->capture_default_str();
  app.add_option("-j,--jobs", options.sweep.jobs, "worker threads (results identical for any value)")
      ->capture_default_str()
      ->check(CLI::Range(1, 1024));
  app.add_option("--shard", commands.shard, "run only shard i of N (1-based); join with 'merge'")->capture_default_str();
  app.add_flag("-q,--quiet", commands.quiet, "no progress on stderr");
  app.add_flag("--check", options.check, "compare with the paper: exit 1 naming every row or claim that fails");
}

void addPantograph(CLI::App& app, RobotCommands& c) {
  PantographOptions& o = c.pantograph;
  c.pantographCmd = app.add_subcommand(
      "pantograph", "inert-constraint impact of a five-bar pantograph on a plate (seed 004, Sec. 6, Tables III, V)");
  addShared(*c.pantographCmd, o, c);
  c.pantographCmd->add_option("--energy", o.energy, "pre-impact kinetic energy T- (J)")->capture_default_str();
  c.pantographCmd->add_option("--height", o.height, "end effector above the motor axes (m)")->capture_default_str();
  c.pantographCmd->add_option("--offset", o.offset, "asymmetric configuration: right of the symmetry axis (m)")
      ->capture_default_str();
  c.pantographCmd->add_option("--sweep-step", o.sweepStep, "gamma step of the sweep rows (degrees)")
      ->capture_default_str();
}

void addWalker(CLI::App& app, RobotCommands& c) {
  WalkerOptions& o = c.walker;
  c.walkerCmd = app.add_subcommand(
      "walker", "heel strike of a compass walker with torso and round feet (seed 004, Sec. 4, Figs. 2-5)");
  addShared(*c.walkerCmd, o, c);
  c.walkerCmd->add_option("--theta-min", o.thetaMin, "smallest inter-leg angle (degrees)")->capture_default_str();
  c.walkerCmd->add_option("--theta-max", o.thetaMax, "largest inter-leg angle (degrees)")->capture_default_str();
  c.walkerCmd->add_option("--theta-step", o.thetaStep, "inter-leg angle step (degrees)")->capture_default_str();
  c.walkerCmd->add_option("--rho", o.rhos, "foot radius / leg length")->delimiter(',')->capture_default_str();
  c.walkerCmd->add_option("--mu", o.mus, "torso mass / (2 leg mass)")->delimiter(',')->capture_default_str();
  c.walkerCmd->add_option("--q5", o.q5s, "torso angles (degrees, forward positive)")->delimiter(',')->capture_default_str();
}

void addDesign(CLI::App& app, RobotCommands& c) {
  DesignOptions& o = c.design;
  c.designCmd = app.add_subcommand(
      "design", "tailed biped optimised for order-independent double impacts (seed 000, Sec. VII-B; seed 001)");
  addShared(*c.designCmd, o, c);
  c.designCmd->add_option("--target-gram", o.targetGram, "stop when |<u,v>_g| (unit normals) is below this")
      ->capture_default_str();
  c.designCmd->add_option("--max-iterations", o.maxIterations, "Gauss-Newton iterations at most")->capture_default_str();
}

int finish(const StudyOutput& out, const RobotStudyOptions& options, const std::string& output) {
  writeCsv(out.table, output);
  if (!options.check) return 0;
  for (const auto& failure : out.failures) fmt::print(stderr, "FAIL {}\n", failure);
  if (!out.failures.empty()) {
    fmt::print(stderr, "check failed: {} problem(s) in {} checked row(s) or claim(s)\n", out.failures.size(),
               out.checkedRows);
    return 1;
  }
  fmt::print(stderr, "check passed: {} row(s) or claim(s)\n", out.checkedRows);
  return 0;
}

void prepare(RobotStudyOptions& options, const RobotCommands& commands) {
  parseShard(commands.shard, options.sweep);
  options.sweep.progress = !commands.quiet;
}

}  // namespace

void addRobotCommands(CLI::App& app, RobotCommands& commands) {
  addPantograph(app, commands);
  addWalker(app, commands);
  addDesign(app, commands);
}

std::optional<int> runRobotCommand(RobotCommands& commands) {
  if (commands.pantographCmd && *commands.pantographCmd) {
    prepare(commands.pantograph, commands);
    return finish(runPantograph(commands.pantograph), commands.pantograph, commands.output);
  }
  if (commands.walkerCmd && *commands.walkerCmd) {
    prepare(commands.walker, commands);
    return finish(runWalker(commands.walker), commands.walker, commands.output);
  }
  if (commands.designCmd && *commands.designCmd) {
    prepare(commands.design, commands);
    return finish(runDesign(commands.design), commands.design, commands.output);
  }
  return std::nullopt;
}

}  // namespace propimpact::compare
