#pragma once
// Whether a propagation can still end within its cap (issue 12, item 4).
//
// A propagation that keeps bouncing between contacts whose unit normals are
// nearly opposite in the kinetic metric — a box hinged to its neighbour and
// resting on its face, a ball touching two parallel walls — turns the
// velocity by the wedge angle γ = π − arccos<û_i, û_j> per reflection and
// needs up to ⌈π/γ⌉ reflections for two contacts (SPEC §3, Thm 1); as γ → 0
// (an exact clamp, to round-off) it cannot end at all, and with more contacts
// nothing bounds it. Spending the whole cap to find that out made a
// 14-contact cluster of Bullet's Chain tutorial cost 3–8 ms.
//
// The forecast replays the propagation in row space: with unit-normal speeds
// s = <û, p> and the unit-normal Gram matrix G (G_ij = <û_i, û_j>), eq. (8)
// across row c is s ← s − 2 s_c G_{·c}, a few flops per row against a real
// reflection's body updates and queue work. The rows replayed are those the
// propagation reached plus every active row on a body they move, replayed
// from the propagation's start; the forecast is trusted only when the replay
// retells what the propagation did so far, reflection for reflection per row
// in the propagation's own order (so not where the metric's round-off makes
// row space drift from velocity space). When a trusted replay
// needs more reflections than the cap leaves, the propagation stops at once
// and takes the cap's fallback.

#include <array>
#include <cstdint>
#include <utility>
#include <vector>

#include "ContactRows.h"
#include "OrderingQueue.h"

namespace propimpact::detail {

/// Row-space replay of a propagation (see the file comment).
class CapForecast {
 public:
  /// At most this many rows are replayed; a larger propagation is not forecast.
  static constexpr int kMaxRows = 64;

  /// Sizes the per-row slots for \p rowCount rows (before a propagation, so
  /// that a forecast inside it allocates nothing).
  void reserve(std::size_t rowCount) {
    if (m_slotOf.size() < rowCount) m_slotOf.resize(rowCount, -1);
  }
  /// Whether the propagation, now at \p velocity (internal order) after \p done
  /// reflections with impulses \p lambda and per-row counts \p reflections,
  /// would need more than \p budget further reflections; \p reached marks
  /// the rows it reached. False whenever the forecast cannot be trusted.
  bool missesCap(const ContactRows& rows, const OrderingRule& rule, bool growFromSeeds, const Scalar* velocity,
                 const Scalar* lambda,
                 const std::vector<char>& reached, const std::vector<std::int64_t>& reflections, std::int64_t done,
                 Scalar threshold, std::int64_t budget);

 private:
  /// Collects the rows to replay; false when there are more than kMaxRows or one is biased.
  bool collect(const ContactRows& rows, const std::vector<char>& reached);
  /// Gram matrix, thresholds, and the unit-normal speeds at the propagation's start.
  void measure(const ContactRows& rows, const Scalar* velocity, const Scalar* lambda, Scalar threshold,
               bool growFromSeeds);
  /// Replays up to \p steps reflections in \p rule's order; returns how many it made.
  std::int64_t replay(const ContactRows& rows, const OrderingRule& rule, std::int64_t steps);

  int m_count = 0;
  std::vector<int> m_slotOf;                       // per row: its slot in the replay or −1
  std::array<int, kMaxRows> m_rows{};              // slot -> row
  std::array<Scalar, kMaxRows> m_speed{};          // unit-normal speed
  std::array<Scalar, kMaxRows> m_threshold{};      // a slower approach is feasible
  std::array<Scalar, kMaxRows> m_sqrtD{};          // sqrt(J M⁻¹ Jᵀ): unit-normal to row speed
  std::array<std::pair<int, int>, kMaxRows> m_groups{};  // the row's groups (the same twice for one)
  std::array<char, kMaxRows> m_eligible{};         // in the propagation's queue if infeasible
  std::array<Scalar, kMaxRows> m_impulse{};        // the propagation's impulses so far, unit-normal form
  std::array<std::int64_t, kMaxRows> m_replayed{};   // reflections per slot in the replay
  std::array<Scalar, kMaxRows * kMaxRows> m_gram{};  // G, column-major over slots
};

}  // namespace propimpact::detail
