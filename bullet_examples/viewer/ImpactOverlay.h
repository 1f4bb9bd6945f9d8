#pragma once
/// \file ImpactOverlay.h
/// What an impact did, kept from the substep it happened in: contact points
/// and normals, impulse arrows scaled by magnitude (one scale for both
/// worlds, so lengths compare), the order in which the propagation reflected
/// the contacts, and each cluster's ξ and uniqueness certificate from the
/// propagative solver's StepReport.

#include <Eigen/Core>

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "Camera.h"
#include "Renderer.h"
#include "ScenePair.h"

struct ImDrawList;

namespace propimpact::viewer {

/// One contact of an impact as drawn.
struct ContactMark {
  Eigen::Vector3f point = Eigen::Vector3f::Zero();   ///< on body B (world).
  Eigen::Vector3f normal = Eigen::Vector3f::Zero();  ///< from B to A.
  float towardsDynamic = 1;                          ///< +1: the impulse is drawn on A; −1: on B (A is static).
  float impulse = 0;                                 ///< along the normal (N·s).
  int order = 0;                                     ///< 1-based rank of its first reflection; 0: not known.
  bool seed = false;                                 ///< an impact by itself (propagative only).
};

/// One impact cluster of the propagative solver, as listed.
struct ClusterSummary {
  std::size_t contacts = 0;
  std::int64_t reflections = 0;
  double energyBefore = 0, energyAfter = 0, restitution = 1;
  bool xiComputed = false;
  double xi = 0;
  std::string xiOrders, certificate, fallback;
  bool capHit = false;
};

/// The last impact: both worlds' contacts at that substep.
struct ImpactSnapshot {
  bool valid = false;
  double time = 0;  ///< simulated time of the substep (s).
  long step = 0;    ///< substep number.
  std::array<std::vector<ContactMark>, 2> marks;  ///< per Side.
  std::vector<ClusterSummary> clusters;
  float largestImpulse = 0;    ///< over both worlds: the arrow scale.
};

/// Keeps the last impact and draws it.
class ImpactOverlay {
 public:
  /// Takes the impact of the substep just run: the propagative report and
  /// the stock world's manifold points that carried an impulse.
  void capture(ScenePair& pair);
  /// Forgets it (reset).
  void clear() { m_snapshot = ImpactSnapshot{}; }
  [[nodiscard]] const ImpactSnapshot& snapshot() const { return m_snapshot; }

  /// Line segments for \p side: points, normals, arrows (longest = \p arrowLength metres).
  void lines(Side side, float arrowLength, std::vector<LineVertex>& out) const;
  /// The reflection order numbers next to the contacts (propagative side).
  void labels(Side side, const Camera& camera, const Viewport& viewport, float uiScale, ImDrawList& draw) const;

 private:
  ImpactSnapshot m_snapshot;
};

}  // namespace propimpact::viewer
