// Fuzzer findings with bilateral rows whose velocity error was not zero. Two
// core bugs: rows that differ only by a combination of joint rows have the same
// M⁻¹Jᵀ and were merged as duplicates although the joint error gave them
// different relative velocities; and contacts saw only the admissible part of
// the velocity, so they could end approaching once the joint error was added
// back. Now the error enters each contact as a constant term and duplicates
// must agree in it (ResolveOptions::jointErrorAsBias).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <vector>

#include "ProblemFuzzer.h"

namespace propimpact {
namespace {

TEST(FuzzFindings, JointVelocityErrorContactsEndFeasibleAndDuplicatesAgree) {
  int replayed = 0;
  for (const auto& entry : std::filesystem::directory_iterator(PROPIMPACT_FINDINGS_DIR)) {
    if (entry.path().filename().string().rfind("joint-error-", 0) != 0) continue;  // other findings have their own tests
    std::ifstream file(entry.path(), std::ios::binary);
    const std::vector<std::uint8_t> bytes((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
    fuzz::Case c;
    fuzz::build(bytes.data(), bytes.size(), c);
    EXPECT_EQ(fuzz::resolveAndCheck(c), "") << entry.path().filename() << ": " << c.description;
    ++replayed;
  }
  EXPECT_EQ(replayed, 4);
}

}  // namespace
}  // namespace propimpact
