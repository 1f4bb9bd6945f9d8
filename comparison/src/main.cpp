// propimpact-compare: the comparison harness (studies cradle, billiards,
// bounce, landing; the robot studies pantograph, walker, design; merge; report; world
// replay and scene export). Progress and diagnostics go to stderr, CSV to
// --output or stdout.
#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <cstdio>
#include <exception>
#include <optional>
#include <string>
#include <vector>

#include <propimpact/bullet/Precision.h>
#include <propimpact/scenes/Solvers.h>

#include "LandingCommand.h"
#include "MultiBodyCommand.h"
#include "PileOverlap.h"
#include "RobotCommands.h"
#include "Studies.h"
#include <propimpact/scenes/WorldFile.h>
#include "WorldPlot.h"

namespace {

using namespace propimpact::compare;

/// Options every study subcommand takes.
struct CommonFlags {
  std::string output = "-";
  std::string shard = "1/1";
  bool quiet = false;
};

void addCommon(CLI::App& app, CommonOptions& options, CommonFlags& flags) {
  app.add_option("-o,--output", flags.output, "CSV file to write ('-' = stdout)")->capture_default_str();
  app.add_option("-j,--jobs", options.sweep.jobs, "worker threads (results identical for any value)")
      ->capture_default_str()
      ->check(CLI::Range(1, 1024));
  app.add_option("--shard", flags.shard, "run only shard i of N (1-based: cells with index % N == i-1); join with 'merge'")
      ->capture_default_str();
  app.add_option("--solvers", options.solvers, "solvers to run (default: all)")
      ->delimiter(',')
      ->check(CLI::IsMember(propimpact::scenes::solverNames()));
  app.add_flag("-q,--quiet", flags.quiet, "no progress on stderr");
  app.add_flag("--check", options.check, "regression mode: exit 1 naming every row that fails the thresholds");
  app.add_option("--check-solvers", options.checkSolvers, "solvers whose rows --check checks")
      ->delimiter(',')
      ->capture_default_str();
}

int finish(const StudyOutput& out, const CommonOptions& options, const CommonFlags& flags) {
  writeCsv(out.table, flags.output);
  if (!options.check) return 0;
  for (const auto& failure : out.failures) fmt::print(stderr, "FAIL {}\n", failure);
  if (!out.failures.empty()) {
    fmt::print(stderr, "check failed: {} problem(s) in {} checked row(s)\n", out.failures.size(), out.checkedRows);
    return 1;
  }
  fmt::print(stderr, "check passed: {} row(s)\n", out.checkedRows);
  return 0;
}

int finishWorld(const StudyOutput& out, const WorldOptions& options, const std::string& output) {
  writeCsv(out.table, output);
  if (!options.check) return 0;
  for (const auto& failure : out.failures) fmt::print(stderr, "FAIL {}\n", failure);
  if (!out.failures.empty()) {
    fmt::print(stderr, "check failed: {} of {} checked solver(s) drift more than {:.3g}\n", out.failures.size(),
               out.checkedRows, options.maxDrift);
    return 1;
  }
  fmt::print(stderr, "check passed: {} solver(s) within a relative drift of {:.3g}\n", out.checkedRows,
             options.maxDrift);
  return 0;
}

/// Output flags of `world`.
struct WorldFlags {
  std::string output = "-";  ///< CSV ("-" = stdout).
  std::string plot;          ///< PNG, empty: no plot.
};

CLI::App* addWorldCommand(CLI::App& app, WorldOptions& world, WorldFlags& flags) {
  CLI::App* worldCmd = app.add_subcommand("world", "replay a .bullet file under each solver: energy per step, drift summary");
  worldCmd->add_option("file", world.file, ".bullet file (Bullet's btDefaultSerializer, PyBullet's saveBullet)")->required();
  worldCmd->add_option("-o,--output", flags.output, "CSV file to write ('-' = stdout)")->capture_default_str();
  worldCmd->add_option("--solvers", world.solvers, "solvers to run, each on its own copy of the world")
      ->delimiter(',')
      ->check(CLI::IsMember(propimpact::scenes::solverNames()))
      ->capture_default_str();
  worldCmd->add_option("--seconds", world.seconds, "simulated time (s)")->capture_default_str();
  worldCmd->add_option("--hz", world.hz, "stepSimulation calls per second, fixed step 1/hz")->capture_default_str();
  worldCmd->add_option("--max-substeps", world.maxSubSteps, "stepSimulation's maxSubSteps")->capture_default_str();
  worldCmd->add_option("--every", world.every, "write a CSV row every this many steps")->capture_default_str();
  worldCmd->add_flag("--check", world.check, "exit 1 naming every checked solver whose drift exceeds --max-drift");
  worldCmd->add_option("--max-drift", world.maxDrift, "--check: worst |E - E0| / |E0|")->capture_default_str();
  worldCmd->add_option("--check-solvers", world.checkSolvers, "solvers --check checks")->delimiter(',')->capture_default_str();
  worldCmd->add_option("--plot", flags.plot, "also write an energy plot (PNG, gnuplot) to this file");
  worldCmd->add_flag("-q,--quiet", world.quiet, "no summary on stderr");
  return worldCmd;
}

CLI::App* addExportCommand(CLI::App& app, ExportOptions& exported) {
  CLI::App* exportCmd = app.add_subcommand("export", "write a scene of the shared library as a .bullet file (with velocities)");
  exportCmd->add_option("scene", exported.scene, "scene")->required()->check(CLI::IsMember(exportSceneNames()));
  exportCmd->add_option("-o,--output", exported.output, ".bullet file to write")->required();
  exportCmd->add_option("--count", exported.count, "bodies (default: the scene's)");
  exportCmd->add_option("--cor", exported.cor, "combined coefficient of restitution (default: the scene's)");
  exportCmd->add_option("--speed", exported.speed, "impact / initial speed in m/s (default: the scene's)");
  exportCmd->add_option("--hz", exported.hz, "step rate the scene is placed for (cradle, chain, billiards)")->capture_default_str();
  exportCmd->add_option("--phase", exported.phase, "first-contact depth fraction (cradle, chain, billiards)")->capture_default_str();
  exportCmd->add_option("--seed", exported.seed, "pile and gas seed")->capture_default_str();
  return exportCmd;
}

int runWorldCommand(const WorldOptions& world, const WorldFlags& flags) {
  if (!propimpact::scenes::haveWorldImporter()) {
    fmt::print(stderr, "propimpact-compare: world: this build has no Bullet importer (libbullet-extras-dev for "
                       "{}-precision Bullet); install it and reconfigure\n",
               sizeof(btScalar) == 8 ? "double" : "single");
    return 2;
  }
  const StudyOutput out = runWorld(world);
  if (!flags.plot.empty()) plotWorld(out.table, flags.plot, world.file);
  return finishWorld(out, world, flags.output);
}

void applyCommon(CommonOptions& options, const CommonFlags& flags) {
  parseShard(flags.shard, options.sweep);
  options.sweep.progress = !flags.quiet;
}

CLI::App* addCradleCommand(CLI::App& app, CradleOptions& cradle, CommonFlags& flags) {
  CLI::App* cradleCmd = app.add_subcommand("cradle", "three-ball line cradle, B-C touching (seed 000, Fig. 2b)");
  addCommon(*cradleCmd, cradle, flags);
  cradleCmd->add_option("--v0-count", cradle.v0Count, "impact speeds, log-spaced")->capture_default_str();
  cradleCmd->add_option("--v0-min", cradle.v0Min, "smallest impact speed (m/s)")->capture_default_str();
  cradleCmd->add_option("--v0-max", cradle.v0Max, "largest impact speed (m/s)")->capture_default_str();
  cradleCmd->add_option("--cor", cradle.cors, "coefficients of restitution (combined)")->delimiter(',')->capture_default_str();
  cradleCmd->add_option("--hz", cradle.hz, "step rates")->delimiter(',')->capture_default_str();
  cradleCmd->add_option("--phase", cradle.phases, "first-contact depth as a fraction of one step's travel, in (0,1]")
      ->delimiter(',')
      ->capture_default_str();
  cradleCmd->add_option("--settle-steps", cradle.settleSteps, "steps after the impact step")->capture_default_str();
  cradleCmd->add_option("--energy-tol", cradle.energyTolerance, "--check: max |energy_ratio - energy_ideal|")
      ->capture_default_str();
  cradleCmd->add_option("--velocity-tol", cradle.velocityTolerance, "--check: max err_vs_propagative")
      ->capture_default_str();
  return cradleCmd;
}

CLI::App* addBilliardsCommand(CLI::App& app, BilliardsOptions& billiards, CommonFlags& flags) {
  CLI::App* billiardsCmd = app.add_subcommand("billiards", "indeterminacy xi(theta) of a three-ball break (seed 000, Fig. 5)");
  addCommon(*billiardsCmd, billiards, flags);
  billiardsCmd->add_option("--theta-count", billiards.thetaCount, "angles from the touching minimum to pi")->capture_default_str();
  billiardsCmd->add_option("--hz", billiards.hz, "step rate")->capture_default_str();
  billiardsCmd->add_option("--phase", billiards.phase, "first-contact depth fraction")->capture_default_str();
  billiardsCmd->add_option("--speed", billiards.speed, "cue ball speed (m/s)")->capture_default_str();
  billiardsCmd->add_option("--cor", billiards.cor, "coefficient of restitution")->capture_default_str();
  billiardsCmd->add_option("--settle-steps", billiards.settleSteps, "steps after the impact step")->capture_default_str();
  billiardsCmd->add_option("--tol", billiards.tolerance, "--check: outcome and xi tolerance")->capture_default_str();
  return billiardsCmd;
}

CLI::App* addBounceCommand(CLI::App& app, BounceOptions& bounce, CommonFlags& flags) {
  CLI::App* bounceCmd = app.add_subcommand("bounce", "apex height per bounce of a ball dropped on a static box");
  addCommon(*bounceCmd, bounce, flags);
  bounceCmd->add_option("--cor", bounce.cors, "coefficients of restitution")->delimiter(',')->capture_default_str();
  bounceCmd->add_option("--hz", bounce.hz, "step rate")->capture_default_str();
  bounceCmd->add_option("--height", bounce.height, "drop height (m)")->capture_default_str();
  bounceCmd->add_option("--bounces", bounce.bounces, "apexes to record")->capture_default_str();
  bounceCmd->add_option("--max-time", bounce.maxTime, "simulated seconds at most")->capture_default_str();
  bounceCmd->add_option("--check-bounces", bounce.checkBounces, "--check: first bounces checked")->capture_default_str();
  bounceCmd->add_option("--apex-tol", bounce.apexTolerance, "--check: max |apex / (h cor^2k) - 1|")->capture_default_str();
  return bounceCmd;
}

/// `merge` and `report`: the subcommands that work on study CSVs rather than run a study.
struct TableCommands {
  std::vector<std::string> mergeInputs;
  std::string mergeOutput = "-";
  std::string reportDir = "out";
  std::string reportCommit = "unknown";
  CLI::App* merge = nullptr;
  CLI::App* report = nullptr;
};

void addTableCommands(CLI::App& app, TableCommands& tables) {
  tables.merge = app.add_subcommand("merge", "join shard CSVs of one study (sorted by cell)");
  tables.merge->add_option("inputs", tables.mergeInputs, "shard CSV files")->required();
  tables.merge->add_option("-o,--output", tables.mergeOutput, "merged CSV ('-' = stdout)")->capture_default_str();
  tables.report = app.add_subcommand("report", "write report.md and plot data from the study CSVs in a directory");
  tables.report
      ->add_option("--dir", tables.reportDir,
                   "directory holding the study CSVs (cradle, billiards, bounce, landing, pantograph, walker, design)")
      ->capture_default_str();
  tables.report->add_option("--commit", tables.reportCommit, "source revision the CSVs came from")->capture_default_str();
}

/// Runs `merge` or `report` when one was given; returns its exit status, or nothing.
std::optional<int> runTableCommands(const TableCommands& tables) {
  if (*tables.merge) {
    std::vector<Table> parts;
    for (const auto& path : tables.mergeInputs) parts.push_back(readCsv(path));
    writeCsv(mergeTables(parts), tables.mergeOutput);
    return 0;
  }
  if (*tables.report) {
    fmt::print("{}", writeReport(tables.reportDir, tables.reportCommit));
    return 0;
  }
  return std::nullopt;
}

}  // namespace

int main(int argc, char** argv) {
  if (!propimpact::bulletPrecisionMatches()) {
    fmt::print(stderr, "propimpact-compare: Bullet precision mismatch between the harness and libpropimpact_bullet\n");
    return 3;
  }
  CLI::App app{"propimpact-compare: stock Bullet solvers against the propagative impact solver.\n"
               "Studies write one CSV (header row, first column 'cell'); 'merge' joins shards; 'report' writes report.md."};
  app.require_subcommand(1);

  CradleOptions cradle;
  CommonFlags cradleFlags;
  CLI::App* cradleCmd = addCradleCommand(app, cradle, cradleFlags);
  BilliardsOptions billiards;
  CommonFlags billiardsFlags;
  CLI::App* billiardsCmd = addBilliardsCommand(app, billiards, billiardsFlags);
  BounceOptions bounce;
  CommonFlags bounceFlags;
  CLI::App* bounceCmd = addBounceCommand(app, bounce, bounceFlags);

  WorldOptions world;
  WorldFlags worldFlags;
  CLI::App* worldCmd = addWorldCommand(app, world, worldFlags);
  ExportOptions exported;
  CLI::App* exportCmd = addExportCommand(app, exported);
  RobotCommands robots;
  addRobotCommands(app, robots);
  MultiBodyCommand multiBody;
  addMultiBodyCommand(app, multiBody);
  LandingCommand landing;
  addLandingCommand(app, landing);
  PileOverlapCommand pileOverlap;
  addPileOverlapCommand(app, pileOverlap);

  TableCommands tables;
  addTableCommands(app, tables);

  CLI11_PARSE(app, argc, argv);
  try {
    if (*cradleCmd) {
      applyCommon(cradle, cradleFlags);
      return finish(runCradle(cradle), cradle, cradleFlags);
    }
    if (*billiardsCmd) {
      applyCommon(billiards, billiardsFlags);
      return finish(runBilliards(billiards), billiards, billiardsFlags);
    }
    if (*bounceCmd) {
      applyCommon(bounce, bounceFlags);
      return finish(runBounce(bounce), bounce, bounceFlags);
    }
    if (*worldCmd) return runWorldCommand(world, worldFlags);
    if (const auto code = runRobotCommand(robots)) return *code;
    if (const auto code = runMultiBodyCommand(multiBody)) return *code;
    if (const auto code = runLandingCommand(landing)) return *code;
    if (const auto code = runPileOverlapCommand(pileOverlap)) return *code;
    if (*exportCmd) {
      const std::string what = exportScene(exported);
      fmt::print(stderr, "wrote {}: {}\n", exported.output, what);
      return 0;
    }
    if (const auto code = runTableCommands(tables)) return *code;
  } catch (const std::exception& error) {
    fmt::print(stderr, "propimpact-compare: {}\n", error.what());
    return 2;
  }
  return 0;
}
