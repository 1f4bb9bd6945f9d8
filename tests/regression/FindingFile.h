#pragma once
// Loads a fuzz finding kept in tests/regression/findings/ into the problem the
// fuzzer built from it (tests/fuzz/ProblemFuzzer.h).
#include <gtest/gtest.h>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "ProblemFuzzer.h"

namespace propimpact::regression {

/// The case built from the bytes of findings/\p name (a test failure if the file is missing or empty).
/// Findings recorded before the generator dropped round-off witness directions
/// pass RoundOffWitness::Kept to test the problem they were found on.
inline fuzz::Case loadFinding(const std::string& name,
                              fuzz::RoundOffWitness roundOff = fuzz::RoundOffWitness::Dropped) {
  std::ifstream file(std::filesystem::path(PROPIMPACT_FINDINGS_DIR) / name, std::ios::binary);
  const std::vector<std::uint8_t> bytes((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
  EXPECT_FALSE(bytes.empty()) << "finding " << name << " missing or empty";
  fuzz::Case c;
  fuzz::build(bytes.data(), bytes.size(), c, roundOff);
  return c;
}

}  // namespace propimpact::regression
