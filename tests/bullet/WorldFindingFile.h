// The world fuzzer's findings, read from tests/fuzz/world-corpus/ where they
// are kept for the fuzzer: one copy of each input, not one per test.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

namespace propimpact::testing {

inline std::vector<std::uint8_t> worldFinding(const std::string& name) {
  std::ifstream file(std::filesystem::path(PROPIMPACT_WORLD_CORPUS_DIR) / name, std::ios::binary);
  std::vector<std::uint8_t> bytes((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
  EXPECT_FALSE(bytes.empty()) << "world finding " << name << " missing or empty";
  return bytes;
}

}  // namespace propimpact::testing
