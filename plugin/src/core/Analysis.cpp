#include "Analysis.h"

#include <Eigen/Eigenvalues>
#include <algorithm>
#include <cmath>

namespace propimpact::detail {

void Analysis::analyse(const StageContext& c, const std::vector<Scalar>& v0, ImpactResult& result) {
  result.certificateTolerance = c.options.certificateTolerance;
  if (static_cast<int>(c.rows.active().size()) > c.options.analysisContactLimit) {
    result.gram.resize(0, 0);
    result.certificate = UniquenessCertificate::NotAnalysed;
    result.energySplitComputed = false;
    return;
  }
  gram(c, result);
  buildDelassus(c);
  if (c.options.computeEnergySplit) {
    energySplit(c, v0, result);
  } else {
    result.energySplitComputed = false;
  }
  result.certificate = certify(c, v0);
}

// Over the input contacts (reported only when the input is small enough; the
// certificate uses the cluster's rows).
void Analysis::gram(const StageContext& c, ImpactResult& result) const {
  const int inputCount = c.bodies.problem().contactCount();
  if (inputCount > c.options.analysisContactLimit) {
    result.gram.resize(0, 0);
    return;
  }
  result.gram.setZero(inputCount, inputCount);
  // Rows on no common group couple by +0, and +0 · 1/√d_i · 1/√d_j is the +0
  // setZero wrote (1/√d is positive and finite for a row that acts): such
  // pairs, most of a cluster's, are not computed (the calls were most of the
  // Gram matrix's instructions on core-random, callgrind).
  const auto shareGroup = [](const Row& a, const Row& b) {
    for (int t = 0; t < a.termCount; ++t)
      for (int u = 0; u < b.termCount; ++u)
        if (a.terms[t].group == b.terms[u].group) return true;
    return false;
  };
  for (int i = 0; i < inputCount; ++i) {
    const Row& ri = c.rows[static_cast<std::size_t>(i)];
    if (ri.representative < 0) continue;  // ignored, or outside the grown cluster
    for (int j = 0; j < inputCount; ++j) {
      const Row& rj = c.rows[static_cast<std::size_t>(j)];
      if (rj.representative < 0 || !shareGroup(ri, rj)) continue;
      result.gram(i, j) = c.rows.coupling(i, j) * ri.invSqrtD * rj.invSqrtD;
    }
  }
}

// W = A M⁻¹ Aᵀ over the active rows, through the per-group adjacency, into m_w.
void Analysis::buildDelassus(const StageContext& c) {
  const ContactRows& rows = c.rows;
  const auto m = static_cast<Index>(rows.active().size());
  m_delassus.assign(static_cast<std::size_t>(m * m), 0);
  for (Index a = 0; a < m; ++a) {
    const Row& ri = rows[static_cast<std::size_t>(rows.active()[static_cast<std::size_t>(a)])];
    for (int t = 0; t < ri.termCount; ++t) {
      const auto g = static_cast<std::size_t>(ri.terms[t].group);
      const Index size = ri.terms[t].size;
      const Scalar* ci = rows.coefficients(ri.terms[t]);
      for (int k = rows.adjacencyBegin(g); k < rows.adjacencyEnd(g); ++k) {
        const int j = rows.adjacent(k);
        const Row& rj = rows[static_cast<std::size_t>(j)];
        for (int u = 0; u < rj.termCount; ++u) {
          if (rj.terms[u].group != ri.terms[t].group) continue;
          const Scalar* wj = rows.w(rj.terms[u]);
          Scalar value = 0;
          for (Index x = 0; x < size; ++x) value += ci[x] * wj[x];
          m_delassus[static_cast<std::size_t>(a + rows.compactOf(j) * m)] += value;
        }
      }
    }
  }
  m_w.resize(m, m);
  for (Index a = 0; a < m; ++a)
    for (Index b = 0; b < m; ++b) m_w(a, b) = m_delassus[static_cast<std::size_t>(a + b * m)];
}

// T_c = ½ (A v)ᵀ (A M⁻¹ Aᵀ)⁺ (A v) with A the (merged) contact rows (seed 004).
void Analysis::energySplit(const StageContext& c, const std::vector<Scalar>& v0, ImpactResult& result) {
  const ContactRows& rows = c.rows;
  const auto m = static_cast<Index>(rows.active().size());
  SmallVector constrainedVelocity(m);
  for (Index a = 0; a < m; ++a) {
    const int r = rows.active()[static_cast<std::size_t>(a)];
    constrainedVelocity[a] = rows.velocity(r, v0.data()) - rows[static_cast<std::size_t>(r)].bias;
  }
  Scalar constrained = 0;
  if (m > 0) {
    Eigen::SelfAdjointEigenSolver<SmallMatrix> eig(m_w);
    const SmallVector values = eig.eigenvalues();
    const Scalar cutoff = 1e-12 * values.cwiseAbs().maxCoeff();
    const SmallVector projected = eig.eigenvectors().transpose() * constrainedVelocity;
    for (Index k = 0; k < m; ++k)
      if (values[k] > cutoff) constrained += projected[k] * projected[k] / values[k];
  }
  result.constrainedEnergy = 0.5 * constrained;
  result.admissibleEnergy = result.energyBefore - result.constrainedEnergy;
  result.energySplitComputed = true;
}

UniquenessCertificate Analysis::certify(const StageContext& c, const std::vector<Scalar>& v0) {
  const ContactRows& rows = c.rows;
  const auto m = static_cast<Index>(rows.active().size());
  const Scalar tolerance = c.options.certificateTolerance;
  if (m <= 1) return UniquenessCertificate::Trivial;
  const auto unitGram = [&](Index a, Index b) {
    return m_w(a, b) * rows[static_cast<std::size_t>(rows.active()[static_cast<std::size_t>(a)])].invSqrtD *
           rows[static_cast<std::size_t>(rows.active()[static_cast<std::size_t>(b)])].invSqrtD;
  };
  bool orthogonal = true;
  for (Index a = 0; a < m && orthogonal; ++a)
    for (Index b = a + 1; b < m && orthogonal; ++b) orthogonal = std::abs(unitGram(a, b)) <= tolerance;
  if (orthogonal) return UniquenessCertificate::Orthogonal;
  if (m == 2 && std::abs(unitGram(0, 1) + 0.5) <= tolerance) return UniquenessCertificate::ThirdOfPi;
  if (m <= c.options.enumerationContactLimit) {
    if (enumerateOrders(c, v0) && m_leafCount == 1) return UniquenessCertificate::AllOrdersAgree;
  }
  return UniquenessCertificate::None;
}

void Analysis::collectSegments(const StageContext& c) {
  m_segments.clear();
  for (const int r : c.rows.active()) {
    const Row& row = c.rows[static_cast<std::size_t>(r)];
    for (int t = 0; t < row.termCount; ++t)
      m_segments.push_back({row.terms[t].velocityOffset, row.terms[t].size, row.terms[t].group});
  }
  std::sort(m_segments.begin(), m_segments.end(), [](const Segment& a, const Segment& b) { return a.offset < b.offset; });
  m_segments.erase(std::unique(m_segments.begin(), m_segments.end(),
                               [](const Segment& a, const Segment& b) { return a.offset == b.offset; }),
                   m_segments.end());
  m_compact = 0;
  for (const Segment& g : m_segments) m_compact += g.size;
}

void Analysis::load(const Scalar* compact) {
  for (const Segment& g : m_segments) {
    std::copy(compact, compact + g.size, m_work.data() + g.offset);
    compact += g.size;
  }
}

void Analysis::store(Scalar* compact) const {
  for (const Segment& g : m_segments) {
    std::copy(m_work.data() + g.offset, m_work.data() + g.offset + g.size, compact);
    compact += g.size;
  }
}

// Two leaves agree outside the segments (v0 there), so ||a − b||²_M is the sum
// over the blocks the segments hold, in block order: kineticInner's terms
// without its exact zeros, at the cost of the cluster, not of the problem.
void Analysis::collectSegmentBlocks(const StageContext& c) {
  const SolverBodies& bodies = c.bodies;
  m_groupCompactOffset.assign(bodies.groups().size(), -1);
  Index compact = 0;
  for (const Segment& g : m_segments) {
    m_groupCompactOffset[static_cast<std::size_t>(g.group)] = compact;
    compact += g.size;
  }
  m_segmentBlocks.clear();
  for (int b = 0; b < bodies.problem().blockCount(); ++b) {
    const Index at = m_groupCompactOffset[static_cast<std::size_t>(bodies.groupOf(b))];
    if (at >= 0) m_segmentBlocks.push_back({b, at + bodies.offsetInGroup(b)});
  }
  m_difference.resize(static_cast<std::size_t>(m_compact));
}

Scalar Analysis::leafDistanceSquared(const StageContext& c, int k, const Scalar* outcome) {
  const Scalar* stored = m_leaves.data() + static_cast<std::size_t>(k) * static_cast<std::size_t>(m_compact);
  for (std::size_t i = 0; i < static_cast<std::size_t>(m_compact); ++i) m_difference[i] = stored[i] - outcome[i];
  Scalar value = 0;
  for (const SegmentBlock& b : m_segmentBlocks)
    value += c.bodies.blockInner(b.block, m_difference.data() + b.compactOffset, m_difference.data() + b.compactOffset);
  return value;
}

void Analysis::leaf(const StageContext& c, int k, Scalar* problemOrder) {
  load(m_leaves.data() + static_cast<std::size_t>(k) * static_cast<std::size_t>(m_compact));
  c.bodies.scatter(m_work.data(), problemOrder);
}

bool Analysis::enumerateOrders(const StageContext& c, const std::vector<Scalar>& v0) {
  m_leafCount = 0;
  m_nodes = 0;
  m_incomplete = false;
  collectSegments(c);
  const auto m = static_cast<std::size_t>(m_compact);
  // Sized once for the deepest tree enumerate() may walk (its level and node
  // caps) and for every leaf it may keep, so that an order tree deeper or
  // bushier than any before allocates nothing inside a step.
  const auto rowCount = static_cast<std::size_t>(c.rows.active().size());
  const std::size_t levels =
      std::min<std::size_t>(64 * rowCount + 66, static_cast<std::size_t>(std::max<std::int64_t>(
                                                     c.options.enumerationNodeCap, 0)) + 2);
  if (m_stack.size() < std::max<std::size_t>(levels, 2) * m) m_stack.resize(std::max<std::size_t>(levels, 2) * m);
  if (m_leaves.capacity() < (kLeafCap + 1) * m) m_leaves.reserve((kLeafCap + 1) * m);
  collectSegmentBlocks(c);
  m_work.assign(v0.begin(), v0.end());
  store(m_stack.data());
  enumerate(c, 0, -1);
  return !m_incomplete;
}

void Analysis::enumerate(const StageContext& c, int level, int last) {
  const ContactRows& rows = c.rows;
  if (m_incomplete) return;
  if (++m_nodes > c.options.enumerationNodeCap || level > 64 * static_cast<int>(rows.active().size()) + 64) {
    m_incomplete = true;
    return;
  }
  const auto m = static_cast<std::size_t>(m_compact);
  const std::size_t needed = (static_cast<std::size_t>(level) + 2) * m;
  if (m_stack.size() < needed) m_stack.resize(needed * 2);
  bool any = false;
  // m_work holds this level's velocity on entry (the caller stored it so, and
  // nothing outside the segments moves): it is loaded again only after a
  // deeper level moved it, not before every row (the copies were a fifth of
  // the enumeration's instructions on core-random, callgrind).
  bool moved = false;
  for (const int r : rows.active()) {
    if (r == last) continue;
    if (moved) load(m_stack.data() + static_cast<std::size_t>(level) * m);
    moved = false;
    const Scalar relative = rows.velocity(r, m_work.data());
    if (!rows.infeasible(r, relative, c.threshold)) continue;
    any = true;
    rows.applyImpulse(r, -2 * relative / rows[static_cast<std::size_t>(r)].d, m_work.data());
    store(m_stack.data() + static_cast<std::size_t>(level + 1) * m);
    enumerate(c, level + 1, r);
    moved = true;
    if (m_incomplete) return;
  }
  if (any) return;
  // A leaf: keep it if it differs from every stored outcome.
  const Scalar* outcome = m_stack.data() + static_cast<std::size_t>(level) * m;
  const Scalar tolerance = c.options.certificateTolerance * c.scale;
  for (int k = 0; k < m_leafCount; ++k)
    if (std::sqrt(std::max(Scalar(0), leafDistanceSquared(c, k, outcome))) <= tolerance) return;
  if (m_leafCount >= static_cast<int>(kLeafCap)) {
    m_incomplete = true;
    return;
  }
  m_leaves.resize(static_cast<std::size_t>(m_leafCount + 1) * m);
  std::copy(outcome, outcome + m, m_leaves.data() + static_cast<std::size_t>(m_leafCount) * m);
  ++m_leafCount;
}

void Analysis::computeXi(const StageContext& c, const XiInputs& in, Propagator& propagator, PlasticStage& plastic,
                         Blend& blend, ImpactResult& result) {
  result.xiComputed = true;
  const Index n = c.bodies.dofs();
  const Scalar norm0 = std::sqrt(2 * result.energyBefore);
  std::vector<VectorX> outcomes;
  const auto finalFromElastic = [&](const VectorX& elastic) {
    if (in.restitution >= 1 || result.plasticVelocity.size() == 0) return elastic;
    const Scalar alpha = blend.alpha(c.bodies, c.rows.anyBias(), elastic, result.plasticVelocity, result.energyBefore,
                                     result.energyPlastic, in.restitution);
    return VectorX(result.plasticVelocity + alpha * (elastic - result.plasticVelocity));
  };
  XiOrderSet set = c.options.xiOrders;
  if (set == XiOrderSet::AllOrders) {
    if (static_cast<int>(c.rows.active().size()) <= std::max(c.options.enumerationContactLimit, 1) &&
        enumerateOrders(c, in.v0)) {
      for (int k = 0; k < m_leafCount; ++k) {
        VectorX outcome(n);
        leaf(c, k, outcome.data());
        outcome += in.jointError;
        outcomes.push_back(finalFromElastic(outcome));
      }
    }
    if (outcomes.empty()) set = XiOrderSet::AllPolicies;
  }
  if (set != XiOrderSet::AllOrders) {
    std::vector<OrderingPolicy> policies{OrderingPolicy::MostApproaching, OrderingPolicy::LeastApproaching};
    if (set == XiOrderSet::AllPolicies) {
      policies.push_back(OrderingPolicy::IndexOrder);
      policies.push_back(OrderingPolicy::ReverseIndexOrder);
    }
    for (const OrderingPolicy order : policies) {
      std::vector<Scalar> velocity(in.v0);
      m_lambda.assign(c.rows.size(), 0);
      OrderingRule rule = in.rule;
      rule.policy = order;
      const Propagation p = propagator.run(c.rows, rule, c.threshold, false, result.reflectionCap, velocity.data(),
                                           m_lambda.data(), nullptr);
      if (p.capHit) plastic.settleCapped(c, in.v0.data(), velocity.data(), m_lambda.data(), nullptr);
      VectorX elastic(n);
      c.bodies.scatter(velocity.data(), elastic.data());
      elastic += in.jointError;
      outcomes.push_back(finalFromElastic(elastic));
    }
  }
  result.xiOrders = set;
  Scalar largest = 0;
  for (std::size_t a = 0; a < outcomes.size(); ++a)
    for (std::size_t b = a + 1; b < outcomes.size(); ++b) {
      const VectorX difference = outcomes[a] - outcomes[b];
      largest = std::max(largest, std::sqrt(std::max(Scalar(0), c.bodies.kineticInner(difference, difference))));
    }
  result.xi = norm0 > 0 ? largest / norm0 : 0;
}

}  // namespace propimpact::detail
