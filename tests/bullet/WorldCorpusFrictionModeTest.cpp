// The world fuzzer decides impact friction from the last byte it reads, and an
// exhausted input reads 0 (off). The findings in tests/fuzz/world-corpus were
// all found before impact friction was fuzzed, frictionless; their tests
// (WorldFindings*Test) replay them through fuzz::buildWorld, so each must
// still decode to the frictionless world it was found in, or those tests would
// watch a different trajectory from the one their names describe.
#include <gtest/gtest.h>

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "../fuzz/WorldFuzzer.h"
#include "WorldFindingFile.h"

namespace propimpact {
namespace {

TEST(WorldCorpus, FindingsDecodeToTheFrictionlessWorldsTheyWereFoundIn) {
  int findings = 0;
  for (const auto& entry : std::filesystem::directory_iterator(PROPIMPACT_WORLD_CORPUS_DIR)) {
    const std::string name = entry.path().filename().string();
    if (name.rfind("world-", 0) != 0) continue;  // seed-N: plain corpus entries, either mode
    const std::vector<std::uint8_t> bytes = testing::worldFinding(name);
    fuzz::FuzzWorld w;
    fuzz::buildWorld(bytes.data(), bytes.size(), w);
    EXPECT_FALSE(w.solver.settings().impactFriction) << name;
    ++findings;
  }
  EXPECT_GE(findings, 20);
}

// The default solver has impact friction on; the fuzzer reaches it too.
TEST(WorldCorpus, AnOddLastByteFuzzesTheDefaultImpactFriction) {
  const std::vector<std::uint8_t> bytes = testing::worldFinding("world-box-sinks-through-the-floor-at-60-hz");
  // Zeros read as an exhausted input does, so padding changes nothing until
  // the byte that decides friction; make that one odd.
  std::vector<std::uint8_t> padded = bytes;
  padded.resize(bytes.size() + 64, 0);
  bool reachedOn = false;
  for (std::size_t last = bytes.size(); last < padded.size() && !reachedOn; ++last) {
    std::vector<std::uint8_t> candidate(padded.begin(), padded.begin() + static_cast<std::ptrdiff_t>(last + 1));
    candidate.back() = 1;
    fuzz::FuzzWorld w;
    fuzz::buildWorld(candidate.data(), candidate.size(), w);
    reachedOn = w.solver.settings().impactFriction;
  }
  EXPECT_TRUE(reachedOn);
  EXPECT_TRUE(PropagativeImpactSolver{}.settings().impactFriction);
}

}  // namespace
}  // namespace propimpact
