// The world fuzzer decides impact friction from the last byte it reads, and
// an exhausted input reads 0 (off). These pin that decoding: the fuzzer
// reaches both settings, and the byte changes nothing else about the world.
// (The findings' tests replay their inputs frictionless, as they were found:
// WorldFindingRun.h.)
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "../fuzz/WorldFuzzer.h"

namespace propimpact {
namespace {

struct Decoded {
  bool impactFriction = false;
  std::string description;
};

Decoded decode(const std::vector<std::uint8_t>& bytes) {
  fuzz::FuzzWorld w;
  fuzz::buildWorld(bytes.data(), bytes.size(), w);
  return {w.solver.settings().impactFriction, w.description};
}

std::string withoutFrictionWord(std::string description) {
  for (const char* word : {" impact friction on,", " impact friction off,"}) {
    const auto at = description.find(word);
    if (at != std::string::npos) description.erase(at, std::string(word).size());
  }
  return description;
}

TEST(WorldCorpus, TheLastByteTurnsTheDefaultImpactFrictionOnAndChangesNothingElse) {
  EXPECT_FALSE(decode({}).impactFriction);  // an empty input: frictionless
  // In an input of zeros (an exhausted input's reads) exactly one byte decides friction.
  const std::vector<std::uint8_t> zeros(256, 0);
  const Decoded off = decode(zeros);
  ASSERT_FALSE(off.impactFriction);
  int deciding = 0;
  for (std::size_t k = 0; k < zeros.size(); ++k) {
    std::vector<std::uint8_t> bytes = zeros;
    bytes[k] = 1;
    const Decoded d = decode(bytes);
    if (!d.impactFriction) continue;
    ++deciding;
    EXPECT_EQ(withoutFrictionWord(d.description), withoutFrictionWord(off.description)) << "byte " << k;
  }
  EXPECT_EQ(deciding, 1);
  EXPECT_TRUE(PropagativeImpactSolver{}.settings().impactFriction);
}

}  // namespace
}  // namespace propimpact
