// propimpact-compare: the comparison harness (studies cradle, billiards,
// bounce; merge; report). Progress and diagnostics go to stderr, CSV to
// --output or stdout.
#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <cstdio>
#include <exception>

#include <propimpact/bullet/Precision.h>
#include <propimpact/scenes/Solvers.h>

#include "Studies.h"

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

void applyCommon(CommonOptions& options, const CommonFlags& flags) {
  parseShard(flags.shard, options.sweep);
  options.sweep.progress = !flags.quiet;
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
  CLI::App* cradleCmd = app.add_subcommand("cradle", "three-ball line cradle, B-C touching (seed 000, Fig. 2b)");
  addCommon(*cradleCmd, cradle, cradleFlags);
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

  BilliardsOptions billiards;
  CommonFlags billiardsFlags;
  CLI::App* billiardsCmd = app.add_subcommand("billiards", "indeterminacy xi(theta) of a three-ball break (seed 000, Fig. 5)");
  addCommon(*billiardsCmd, billiards, billiardsFlags);
  billiardsCmd->add_option("--theta-count", billiards.thetaCount, "angles from the touching minimum to pi")->capture_default_str();
  billiardsCmd->add_option("--hz", billiards.hz, "step rate")->capture_default_str();
  billiardsCmd->add_option("--phase", billiards.phase, "first-contact depth fraction")->capture_default_str();
  billiardsCmd->add_option("--speed", billiards.speed, "cue ball speed (m/s)")->capture_default_str();
  billiardsCmd->add_option("--cor", billiards.cor, "coefficient of restitution")->capture_default_str();
  billiardsCmd->add_option("--settle-steps", billiards.settleSteps, "steps after the impact step")->capture_default_str();
  billiardsCmd->add_option("--tol", billiards.tolerance, "--check: outcome and xi tolerance")->capture_default_str();

  BounceOptions bounce;
  CommonFlags bounceFlags;
  CLI::App* bounceCmd = app.add_subcommand("bounce", "apex height per bounce of a ball dropped on a static box");
  addCommon(*bounceCmd, bounce, bounceFlags);
  bounceCmd->add_option("--cor", bounce.cors, "coefficients of restitution")->delimiter(',')->capture_default_str();
  bounceCmd->add_option("--hz", bounce.hz, "step rate")->capture_default_str();
  bounceCmd->add_option("--height", bounce.height, "drop height (m)")->capture_default_str();
  bounceCmd->add_option("--bounces", bounce.bounces, "apexes to record")->capture_default_str();
  bounceCmd->add_option("--max-time", bounce.maxTime, "simulated seconds at most")->capture_default_str();
  bounceCmd->add_option("--check-bounces", bounce.checkBounces, "--check: first bounces checked")->capture_default_str();
  bounceCmd->add_option("--apex-tol", bounce.apexTolerance, "--check: max |apex / (h cor^2k) - 1|")->capture_default_str();

  std::vector<std::string> mergeInputs;
  std::string mergeOutput = "-";
  CLI::App* mergeCmd = app.add_subcommand("merge", "join shard CSVs of one study (sorted by cell)");
  mergeCmd->add_option("inputs", mergeInputs, "shard CSV files")->required();
  mergeCmd->add_option("-o,--output", mergeOutput, "merged CSV ('-' = stdout)")->capture_default_str();

  std::string reportDir = "out", reportCommit = "unknown";
  CLI::App* reportCmd = app.add_subcommand("report", "write report.md and plot data from the study CSVs in a directory");
  reportCmd->add_option("--dir", reportDir, "directory holding cradle.csv, billiards.csv, bounce.csv")->capture_default_str();
  reportCmd->add_option("--commit", reportCommit, "source revision the CSVs came from")->capture_default_str();

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
    if (*mergeCmd) {
      std::vector<Table> tables;
      for (const auto& path : mergeInputs) tables.push_back(readCsv(path));
      writeCsv(mergeTables(tables), mergeOutput);
      return 0;
    }
    if (*reportCmd) {
      fmt::print("{}", writeReport(reportDir, reportCommit));
      return 0;
    }
  } catch (const std::exception& error) {
    fmt::print(stderr, "propimpact-compare: {}\n", error.what());
    return 2;
  }
  return 0;
}
