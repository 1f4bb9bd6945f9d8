// The same problem resolved twice gives the same bits: two resolver objects,
// and one resolver reused across problems (its workspace must not leak state).
#include <gtest/gtest.h>

#include <cstring>
#include <random>

#include "ProblemFuzzer.h"
#include "propimpact/core/ImpactResolver.h"

namespace propimpact {
namespace {

// FNV-1a over the raw bytes: a bit flip anywhere changes it.
std::uint64_t hashBytes(std::uint64_t h, const void* data, std::size_t size) {
  const auto* bytes = static_cast<const unsigned char*>(data);
  for (std::size_t k = 0; k < size; ++k) h = (h ^ bytes[k]) * 0x100000001b3ULL;
  return h;
}

std::uint64_t hashResult(const ImpactResult& r) {
  std::uint64_t h = 0xcbf29ce484222325ULL;
  h = hashBytes(h, r.velocity.data(), static_cast<std::size_t>(r.velocity.size()) * sizeof(Scalar));
  h = hashBytes(h, r.impulses.data(), static_cast<std::size_t>(r.impulses.size()) * sizeof(Scalar));
  h = hashBytes(h, r.sequence.data(), r.sequence.size() * sizeof(int));
  h = hashBytes(h, &r.alpha, sizeof r.alpha);
  h = hashBytes(h, &r.capHit, sizeof r.capHit);
  return h;
}

// std::mt19937_64 is specified bit for bit by the standard, so the problems
// are the same on every platform.
std::vector<fuzz::Case> randomCases(int count) {
  std::mt19937_64 random(0x5eed);
  std::vector<fuzz::Case> cases;
  while (static_cast<int>(cases.size()) < count) {
    std::vector<std::uint8_t> bytes(64 + random() % 1500);
    for (auto& b : bytes) b = static_cast<std::uint8_t>(random());
    fuzz::Case c;
    try {
      fuzz::build(bytes.data(), bytes.size(), c);
    } catch (const InputError&) {
      continue;
    }
    cases.push_back(std::move(c));
  }
  return cases;
}

TEST(Determinism, TwoResolversAndOneReusedGiveIdenticalBits) {
  const std::vector<fuzz::Case> cases = randomCases(300);
  std::vector<std::uint64_t> first;
  {
    ImpactResolver reused;  // one workspace across every problem, in order
    ImpactResult result;
    for (const fuzz::Case& c : cases) {
      reused.resolve(c.problem, c.options, result);
      first.push_back(hashResult(result));
    }
  }
  ImpactResolver reusedBackwards;  // the same workspace, problems in reverse order
  ImpactResult result;
  for (std::size_t k = cases.size(); k-- > 0;) {
    reusedBackwards.resolve(cases[k].problem, cases[k].options, result);
    EXPECT_EQ(hashResult(result), first[k]) << "reused resolver, case " << k << ": " << cases[k].description;
  }
  for (std::size_t k = 0; k < cases.size(); ++k) {
    ImpactResolver fresh;
    EXPECT_EQ(hashResult(fresh.resolve(cases[k].problem, cases[k].options)), first[k])
        << "fresh resolver, case " << k << ": " << cases[k].description;
  }
}

}  // namespace
}  // namespace propimpact
