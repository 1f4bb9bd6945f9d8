#pragma once
// Stage "propagate": the propagative elastic outcome (seed 000, eq. 14),
//   p+ = p− Γ(w1) Γ(w2) … Γ(wk),
// each Γ the reflection map of eq. (8),
//   v ← v − 2 (J_i v + b_i) / (J_i M⁻¹ J_iᵀ) · M⁻¹ J_iᵀ,
// applied across a still-infeasible contact chosen by the ordering rule until
// every touching contact is feasible (SPEC Correction 1). A reflection keeps
// the kinetic inner product (Lemma 5), so energy is conserved to round-off.
// Two contacts end within ⌈π/γ⌉ reflections (Thm 1); for more there is no
// proof, hence the cap (the plastic stage settles a capped state). Contacts
// that keep the propagation bouncing between them with so small a wedge
// angle that Thm 1's count exceeds what the cap leaves (a hinged box resting
// on its neighbour's face, any clamp) are found by replaying the propagation
// in row space (CapForecast.h); when the replay runs past the cap the
// propagation stops there, long before the cap, with the cap's fallback.

#include <cstdint>
#include <vector>

#include "CapForecast.h"
#include "ContactRows.h"
#include "OrderingQueue.h"

namespace propimpact::detail {

/// How a propagation ended.
struct Propagation {
  std::int64_t reflections = 0;
  bool capHit = false;       ///< stopped at the cap, or before it with capForeseen.
  bool capForeseen = false;  ///< a pair of rows would have needed more than the cap left.
};

/// When the propagation looks for a pair that cannot end: after
/// kForecastStart + kForecastPerRow × (active rows) reflections, then at every
/// doubling.
constexpr std::int64_t kForecastStart = 64;
constexpr std::int64_t kForecastPerRow = 8;

/// Runs propagations; owns the queue and the per-row speeds.
class Propagator {
 public:
  /// Reflects \p velocity (internal order) until feasible or \p cap
  /// reflections; adds each impulse to \p lambda (per row) and appends the
  /// rows reflected to \p sequence when given. With \p growFromSeeds only seed
  /// rows start; another row joins when a reflection makes it infeasible.
  Propagation run(const ContactRows& rows, const OrderingRule& rule, Scalar threshold, bool growFromSeeds,
                  std::int64_t cap, Scalar* velocity, Scalar* lambda, std::vector<int>* sequence);
  /// Room for \p rows rows.
  void reserve(int rows);
  /// Per row: whether the last run reached it.
  [[nodiscard]] const std::vector<char>& reached() const { return m_reached; }

 private:
  void refresh(const ContactRows& rows, const OrderingRule& rule, Scalar threshold, int r);
  void reflect(const ContactRows& rows, const OrderingRule& rule, Scalar threshold, int c, Scalar* velocity,
               Scalar* lambda);

  std::vector<Scalar> m_speed;  // J_i v + b_i of the current velocity
  std::vector<std::int64_t> m_reflections;
  std::vector<char> m_reached;
  OrderingQueue m_queue;
  CapForecast m_forecast;
};

}  // namespace propimpact::detail
