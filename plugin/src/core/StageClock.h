#pragma once
// Thread CPU time for ResolveOptions::timeStages: other processes on a shared
// machine do not count, as in the benchmarks. Reads nothing when timing is off.

#include <ctime>

namespace propimpact::detail {

/// Laps of one resolution's stages; a disabled clock never reads the time.
class StageClock {
 public:
  explicit StageClock(bool enabled) : m_enabled(enabled), m_last(enabled ? now() : 0) {}
  /// Adds the time since the previous lap (or construction) to \p into.
  void lap(double& into) {
    if (!m_enabled) return;
    const double t = now();
    into += t - m_last;
    m_last = t;
  }

 private:
  static double now() {
#if defined(CLOCK_THREAD_CPUTIME_ID)
    timespec t{};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return double(t.tv_sec) + 1e-9 * double(t.tv_nsec);
#else
    return double(std::clock()) / CLOCKS_PER_SEC;  // process CPU time where threads have no clock of their own
#endif
  }

  bool m_enabled;
  double m_last;
};

}  // namespace propimpact::detail
