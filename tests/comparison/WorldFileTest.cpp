// propimpact-compare world / export end to end: velocities restored from the
// file, gravity kept, the cradle study reproduced through a .bullet round
// trip, --check failing stock Bullet and passing ours on an elastic gas, and
// bad files (missing, garbage, truncated at many lengths, no dynamic body,
// unsupported shape) refused with exit code 2 and one line, never a crash.
#include <gtest/gtest.h>
#include <fmt/format.h>
#include <BulletCollision/CollisionShapes/btEmptyShape.h>
#include <LinearMath/btScalar.h>
#include <LinearMath/btSerializer.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <map>
#include <string>

#include <propimpact/scenes/World.h>

#include "CliSupport.h"
#include "Csv.h"

namespace propimpact::compare {
namespace {

using cli::runCompare;
using cli::slurp;
using cli::tempPath;

/// Round-off of a replayed trajectory against the study's own (same Bullet, same inputs).
constexpr double kRoundTripTolerance = sizeof(btScalar) == 8 ? 1e-12 : 1e-5;
/// The propagative solver keeps an elastic gas's energy to round-off.
constexpr double kElasticDriftBound = sizeof(btScalar) == 8 ? 1e-12 : 1e-5;
/// Stock Bullet loses (or gains) at least this much on the same gas in 10 s.
constexpr double kStockDriftAtLeast = 0.1;
constexpr double kGravity = 9.81;
/// Relative round-off of an energy computed from btScalar positions and velocities.
constexpr double kSingleRoundOff = 1e-6;
constexpr double kEnergyRoundOff = sizeof(btScalar) == 8 ? 1e-12 : kSingleRoundOff;

#if PROPIMPACT_HAVE_WORLD_IMPORTER
#define REQUIRE_IMPORTER() (void)0
#else
#define REQUIRE_IMPORTER() GTEST_SKIP() << "this build has no Bullet importer (libbullet-extras-dev)"
#endif

/// Worst |drift| of \p solver's rows, and its step-0 row.
struct SolverRows {
  double worstDrift = 0;
  std::size_t first = 0, last = 0;
  bool seen = false;
};
std::map<std::string, SolverRows> bySolver(const Table& table) {
  std::map<std::string, SolverRows> rows;
  for (std::size_t i = 0; i < table.rows.size(); ++i) {
    SolverRows& r = rows[table.text(i, "solver")];
    if (!r.seen) r.first = i;
    r.seen = true;
    r.last = i;
    r.worstDrift = std::max(r.worstDrift, std::abs(table.number(i, "drift")));
  }
  return rows;
}

std::string exportGas(int count, double speed) {
  const std::string file = tempPath(fmt::format("gas{}_{}.bullet", count, speed));
  EXPECT_EQ(runCompare(fmt::format("export gas --count {} --speed {} -o {}", count, speed, file)), 0);
  return file;
}

/// Writes \p world with Bullet's own serializer, as a user's program would.
void serialize(scenes::World& world, const std::string& path) {
  btDefaultSerializer serializer;
  world.dynamics().serialize(&serializer);
  std::ofstream(path, std::ios::binary)
      .write(reinterpret_cast<const char*>(serializer.getBufferPointer()), serializer.getCurrentBufferSize());
}

TEST(WorldCli, ReplayStartsWithTheFilesVelocities) {
  REQUIRE_IMPORTER();
  const int count = 8;
  const double speed = 2;
  const std::string csv = tempPath("velocities.csv");
  ASSERT_EQ(runCompare(fmt::format("world {} -q --seconds 0.1 -o {}", exportGas(count, speed), csv)), 0);
  const Table table = readCsv(csv);
  for (const auto& [solver, rows] : bySolver(table)) {
    // Bullet's importer alone would give 0: every sphere moves at `speed`.
    const double expected = count * 0.5 * speed * speed;
    EXPECT_NEAR(table.number(rows.first, "kinetic"), expected, kEnergyRoundOff * expected) << solver;
    EXPECT_EQ(table.number(rows.first, "potential"), 0) << solver;
  }
  EXPECT_EQ(bySolver(table).size(), 2U) << "default solvers: bullet-si and propagative";
}

TEST(WorldCli, GravityComesFromTheFile) {
  REQUIRE_IMPORTER();
  const std::string file = tempPath("bounce.bullet"), csv = tempPath("bounce.csv");
  ASSERT_EQ(runCompare("export bounce -o " + file), 0);
  ASSERT_EQ(runCompare(fmt::format("world {} -q --solvers propagative --seconds 1 --hz 240 -o {}", file, csv)), 0);
  const Table table = readCsv(csv);
  // Ball (1 kg, r 0.5) dropped with its lowest point at 10 m, g = 9.81 (not Bullet's default 10).
  EXPECT_NEAR(table.number(0, "potential"), kGravity * 10.5, kEnergyRoundOff * kGravity * 10.5);
  EXPECT_EQ(table.number(0, "kinetic"), 0);
  EXPECT_LT(table.number(table.rows.size() - 1, "potential"), kGravity * 10.5 - 1) << "the ball falls";
}

TEST(WorldCli, RoundTripReproducesTheCradleStudy) {
  REQUIRE_IMPORTER();
  const std::string study = tempPath("roundtrip_study.csv");
  ASSERT_EQ(runCompare("cradle -q --solvers bullet-si,propagative --v0-count 1 --v0-min 1 --v0-max 1 --cor 1,0.7 "
                       "--hz 60 --phase 0.5 -o " +
                       study),
            0);
  const Table cells = readCsv(study);
  ASSERT_EQ(cells.rows.size(), 4U);
  for (std::size_t c = 0; c < cells.rows.size(); ++c) {
    const std::string solver = cells.text(c, "solver"), cor = cells.text(c, "cor");
    const std::string file = tempPath("roundtrip_" + cor + ".bullet"), csv = tempPath("roundtrip_" + cor + ".csv");
    ASSERT_EQ(runCompare(fmt::format("export cradle --cor {} --hz 60 --phase 0.5 -o {}", cor, file)), 0);
    // The study steps the detecting step (2) and 60 more: 62 steps at 60 Hz.
    ASSERT_EQ(
        runCompare(fmt::format("world {} -q --solvers {} --hz 60 --seconds {} -o {}", file, solver, 62.0 / 60, csv)),
        0);
    const Table replay = readCsv(csv);
    const std::size_t last = replay.rows.size() - 1;
    ASSERT_EQ(replay.text(last, "step"), "62");
    const double ratio = replay.number(last, "energy") / replay.number(0, "energy");
    EXPECT_NEAR(ratio, cells.number(c, "energy_ratio"), kRoundTripTolerance) << solver << " cor " << cor;
  }
}

TEST(WorldCli, CheckFailsStockBulletAndPassesOursOnAnElasticGas) {
  REQUIRE_IMPORTER();
  const std::string file = exportGas(29, 1), csv = tempPath("gas29.csv");
  std::string err;
  ASSERT_EQ(runCompare(fmt::format("world {} --seconds 10 --hz 120 --every 10 -o {}", file, csv), &err), 0) << err;
  EXPECT_NE(err.find("worst drift"), std::string::npos) << "summary on stderr: " << err;
  const auto rows = bySolver(readCsv(csv));
  EXPECT_GT(rows.at("bullet-si").worstDrift, kStockDriftAtLeast);
  EXPECT_LT(rows.at("propagative").worstDrift, kElasticDriftBound);

  const std::string check =
      fmt::format("world {} -q --seconds 10 --hz 120 -o /dev/null --check --max-drift 1e-6", file);
  EXPECT_EQ(runCompare(check, &err), 0) << err;
  EXPECT_EQ(runCompare(check + " --check-solvers bullet-si,propagative", &err), 1);
  EXPECT_NE(err.find("solver=bullet-si"), std::string::npos) << err;
  EXPECT_EQ(err.find("solver=propagative"), std::string::npos) << err;
  EXPECT_EQ(runCompare(check + " --solvers bullet-si"), 2) << "checking a solver that does not run is a usage error";
}

TEST(WorldCli, FilesOfEitherPrecisionReplayInThisBuild) {
  REQUIRE_IMPORTER();
  // Written by `export gas --count 4 --speed 2` from the single- and the
  // double-precision build: 4 spheres of 1 kg at 2 m/s, 8 J.
  for (const char* precision : {"single", "double"}) {
    const std::string file = fmt::format("{}/gas4_{}.bullet", PROPIMPACT_TEST_DATA_DIR, precision);
    const std::string csv = tempPath(fmt::format("gas4_{}.csv", precision));
    std::string err;
    ASSERT_EQ(runCompare(fmt::format("world {} --seconds 5 --hz 120 -o {}", file, csv), &err), 0) << err;
    EXPECT_NE(err.find(fmt::format("{}-precision file", precision)), std::string::npos) << err;
    const Table table = readCsv(csv);
    const auto rows = bySolver(table);
    // A single-precision file holds each velocity component rounded to float.
    const double roundOff = std::string(precision) == "single" ? kSingleRoundOff : kEnergyRoundOff;
    for (const auto& [solver, r] : rows)
      EXPECT_NEAR(table.number(r.first, "kinetic"), 8.0, roundOff * 8) << precision << " " << solver;
    EXPECT_LT(rows.at("propagative").worstDrift, kElasticDriftBound) << precision;
    EXPECT_GT(rows.at("bullet-si").worstDrift, kStockDriftAtLeast) << precision;
  }
}

/// Exit code 2 and exactly one line on stderr naming the file.
void expectRefused(const std::string& file, const std::string& reason) {
  std::string err;
  EXPECT_EQ(runCompare(fmt::format("world {} -q -o /dev/null", file), &err), 2) << reason << ": " << err;
  EXPECT_EQ(std::count(err.begin(), err.end(), '\n'), 1) << err;
  EXPECT_NE(err.find(file), std::string::npos) << err;
}

TEST(WorldCli, BadFilesAreRefusedWithOneLine) {
  REQUIRE_IMPORTER();
  expectRefused(tempPath("does_not_exist.bullet"), "missing");
  const std::string empty = tempPath("empty.bullet"), text = tempPath("text.bullet");
  std::ofstream(empty).flush();
  std::ofstream(text) << "solver,step\nnot a bullet file\n";
  expectRefused(empty, "empty");
  expectRefused(text, "text");

  scenes::World statics("bullet-si");
  scenes::BodySpec floor;
  floor.mass = 0;
  statics.addBox(btVector3(5, 1, 5), floor);
  const std::string noDynamic = tempPath("static_only.bullet");
  serialize(statics, noDynamic);
  expectRefused(noDynamic, "no dynamic body");

  scenes::World unsupported("bullet-si");
  unsupported.addBody(std::make_unique<btEmptyShape>(), scenes::BodySpec{});
  const std::string emptyShape = tempPath("empty_shape.bullet");
  serialize(unsupported, emptyShape);
  expectRefused(emptyShape, "shape the importer cannot build");
}

TEST(WorldCli, TruncatedFilesNeverCrash) {
  REQUIRE_IMPORTER();
  const std::string bytes = slurp(exportGas(4, 1));
  ASSERT_GT(bytes.size(), 1000U);
  const std::string cut = tempPath("truncated.bullet");
  // Every length of the header region, then lengths spread over the file
  // (Bullet's importer reads a cut record or DNA block out of bounds and crashes).
  std::vector<std::size_t> lengths;
  for (std::size_t n = 0; n <= 16; ++n) lengths.push_back(n);
  constexpr std::size_t kSpread = 40;
  for (std::size_t k = 1; k < kSpread; ++k) lengths.push_back(bytes.size() * k / kSpread);
  for (std::size_t n = bytes.size() - 64; n < bytes.size(); n += 8) lengths.push_back(n);
  for (const std::size_t n : lengths) {
    std::ofstream(cut, std::ios::binary).write(bytes.data(), static_cast<std::streamsize>(n));
    const int code = runCompare(fmt::format("world {} -q --seconds 0.05 -o /dev/null", cut));
    // The chunk walk refuses every truncation before Bullet's parser sees it.
    EXPECT_EQ(code, 2) << "length " << n << " of " << bytes.size();
  }
}

TEST(WorldCli, PlotWritesAnImage) {
  REQUIRE_IMPORTER();
  if (std::system("command -v gnuplot > /dev/null 2>&1") != 0) GTEST_SKIP() << "gnuplot is not installed";
  const std::string png = tempPath("gas.png");
  std::remove(png.c_str());
  const std::string file = exportGas(8, 1);
  std::string err;
  ASSERT_EQ(runCompare(fmt::format("world {} -q --seconds 1 --plot {} -o /dev/null", file, png), &err), 0) << err;
  EXPECT_EQ(slurp(png).substr(1, 3), "PNG");
}

}  // namespace
}  // namespace propimpact::compare
