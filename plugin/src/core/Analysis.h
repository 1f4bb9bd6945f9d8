#pragma once
// Stage "analysis" (only when asked; SPEC §3, §6):
// - the Gram matrix of unit normals G_ij = <û_i, û_j>_g;
// - seed 004's energy split T_c = ½ (A v)ᵀ (A M⁻¹ Aᵀ)⁺ (A v), T_a = T − T_c,
//   with A the (merged) contact rows;
// - the uniqueness certificate: pairwise orthogonal (Thm 2, Lemma 7), two
//   contacts with G_12 = −½ (Thm 3), or every minimal sequence enumerated and
//   all outcomes agreeing;
// - ξ = max ||p_a − p_b||_g / ||p0||_g over a named set of orders (Sec. VII-A).

#include <cstdint>
#include <vector>

#include "Blend.h"
#include "PlasticStage.h"
#include "Propagation.h"
#include "StageContext.h"
#include "propimpact/core/ImpactResult.h"

namespace propimpact::detail {

/// What ξ needs beyond the stage context: the start, the outcome's plastic part and R.
struct XiInputs {
  const std::vector<Scalar>& v0;         ///< internal order, joint error removed.
  Eigen::Map<const VectorX> jointError;  ///< problem order, added back to every outcome.
  const OrderingRule& rule;              ///< the resolution's rule (quantum, seeds).
  Scalar restitution;                    ///< the cluster's R.
};

/// Gram matrix, energy split, certificates, enumeration of orders and ξ.
class Analysis {
 public:
  /// Fills result.gram, the energy split and the certificate (result.energyBefore must be set).
  void analyse(const StageContext& c, const std::vector<Scalar>& v0, ImpactResult& result);
  /// Fills result.xi over options.xiOrders; result must hold the plastic outcome (if any).
  void computeXi(const StageContext& c, const XiInputs& in, Propagator& propagator, PlasticStage& plastic, Blend& blend,
                 ImpactResult& result);

 private:
  void buildDelassus(const StageContext& c);
  void gram(const StageContext& c, ImpactResult& result) const;
  void energySplit(const StageContext& c, const std::vector<Scalar>& v0, ImpactResult& result);
  UniquenessCertificate certify(const StageContext& c, const std::vector<Scalar>& v0);
  /// Every minimal sequence from v0; leaves in m_leaves. False when the tree was too big.
  bool enumerateOrders(const StageContext& c, const std::vector<Scalar>& v0);
  void enumerate(const StageContext& c, int level, int last);
  /// The internal velocity segments the active rows touch (their groups).
  void collectSegments(const StageContext& c);
  /// Compact state (the segments only) into m_work, and back.
  void load(const Scalar* compact);
  void store(Scalar* compact) const;
  /// The blocks of the segments' groups, in block order, with their place in compact storage.
  void collectSegmentBlocks(const StageContext& c);
  /// ||leaf k − outcome||²_M, both compact: kineticInner of their difference.
  Scalar leafDistanceSquared(const StageContext& c, int k, const Scalar* outcome);
  /// Leaf \p k in problem order.
  void leaf(const StageContext& c, int k, Scalar* problemOrder);

  std::vector<Scalar> m_delassus;
  SmallMatrix m_w;
  /// Distinct outcomes kept before the enumeration is called incomplete.
  static constexpr std::size_t kLeafCap = 256;
  // The enumeration's states hold only the segments the active rows touch
  // (m_compact entries): a reflection changes nothing else. Stored whole,
  // a 4-row cluster in a 10,000-body problem (a near problem holds every body
  // of its component) zero-filled 155 MB of stack, half of the Bullet chain's
  // step (callgrind). m_work is the whole internal velocity, v0 outside the
  // segments, that the rows read and write.
  struct Segment {
    Index offset = 0;
    Index size = 0;
    int group = -1;
  };
  std::vector<Segment> m_segments;
  Index m_compact = 0;
  std::vector<Scalar> m_work;
  std::vector<Scalar> m_stack;
  std::vector<Scalar> m_leaves;
  struct SegmentBlock {
    int block = 0;
    Index compactOffset = 0;
  };
  std::vector<SegmentBlock> m_segmentBlocks;
  std::vector<Index> m_groupCompactOffset;  // per group: its segment's compact offset, −1 if none
  std::vector<Scalar> m_difference;
  int m_leafCount = 0;
  std::int64_t m_nodes = 0;
  bool m_incomplete = false;
  std::vector<Scalar> m_lambda;
};

}  // namespace propimpact::detail
