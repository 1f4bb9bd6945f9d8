// libFuzzer entry: bytes -> impact problem -> resolve -> invariants.
// Invalid generated input (InputError while building) is a rejected input;
// any failed invariant, other exception, sanitizer report or hang is a finding.
#include <cstdio>
#include <cstdlib>

#include "ProblemFuzzer.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static propimpact::fuzz::Case c;  // reused so capacity growth is exercised too
  // One resolver for every input (resolveAndCheck says why). A finding that
  // replays clean on its own input points at state kept between resolutions.
  static propimpact::ImpactResolver resolver;
  try {
    propimpact::fuzz::build(data, size, c);
  } catch (const propimpact::InputError&) {
    return -1;  // keeps rejected inputs out of the corpus
  }
  const std::string failure = propimpact::fuzz::resolveAndCheck(c, resolver);
  if (!failure.empty()) {
    std::fprintf(stderr, "propimpact invariant failed: %s\n  case: %s\n", failure.c_str(), c.description.c_str());
    std::abort();
  }
  return 0;
}
