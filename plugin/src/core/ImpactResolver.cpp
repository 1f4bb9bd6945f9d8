#include "propimpact/core/ImpactResolver.h"

#include <Eigen/Eigenvalues>
#include <Eigen/QR>
#include <Eigen/SVD>
#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <string>

#include "PlasticSolver.h"
#include "propimpact/core/Errors.h"

namespace propimpact {
namespace {

// A metric group: blocks tied together by bilateral rows share one dense
// admissible inverse mass; without joints a group is exactly one block.
struct Group {
  Index offset = 0;
  Index size = 0;
  Index matrixOffset = 0;
};

struct Term {
  int group = -1;
  Index offset = 0;  // into coefficient and w storage, group-size entries
};

struct Row {
  Term terms[2];
  int termCount = 0;
  Scalar d = 0;            // J M⁻¹ Jᵀ in the admissible metric
  Scalar invSqrtD = 0;     // turns J v into the unit-normal speed <û, p>_g
  Scalar bias = 0;
  Scalar restitution = 1;
  std::uint64_t key = 0;
  int representative = -1;  // itself when active, the merged row when a duplicate, -1 when ignored
  Scalar restingSpeed = 0;  // a slower approach is resting contact, not infeasible
};

struct HeapEntry {
  std::int64_t primary;
  std::uint64_t key;
  int row;
  bool operator<(const HeapEntry& o) const {
    if (primary != o.primary) return primary < o.primary;
    if (key != o.key) return key < o.key;
    return row < o.row;
  }
};

constexpr int kAnalysisMax = 64;
// Projected successive over-relaxation for the iterative plastic solve. Any
// factor in (0, 2) still lowers ½λᵀWλ + λᵀJv₀ at every row (so energy is never
// gained) and converges for a symmetric PSD Delassus matrix; 1.5 took about a
// quarter of plain Gauss–Seidel's sweeps on the settled 1,000-sphere pile.
constexpr Scalar kOverRelaxation = 1.5;
// Below this fraction of its reference (|J|² · max|M⁻¹| before any joint's
// projection), J M⁻¹ Jᵀ counts as zero: no admissible motion moves the row.
// Measured against the projected metric instead, an over-constrained joint
// (M⁻¹_c zero up to round-off) made round-off look like mobility (finding
// contact-moved-only-by-round-off-of-an-over-constrained-joint).
constexpr Scalar kMetricNoise = 1e-13;
// A singular value of A = LᵀBᵀ (M⁻¹ = LLᵀ) at or below this fraction of the
// largest is a joint direction dependent on the others: the cut-off
// (BM⁻¹Bᵀ)⁺ had at 1e-12 of its largest eigenvalue, in A's terms.
constexpr Scalar kJointRankCutoff = 1e-6;
using SmallMatrix = Eigen::Matrix<Scalar, Eigen::Dynamic, Eigen::Dynamic, Eigen::ColMajor, kAnalysisMax, kAnalysisMax>;
using SmallVector = Eigen::Matrix<Scalar, Eigen::Dynamic, 1, Eigen::ColMajor, kAnalysisMax, 1>;

std::uint64_t splitMix(std::uint64_t x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

void checkOptions(const ResolveOptions& o) {
  const auto bad = [](const std::string& what) { throw InputError(ErrorCode::BadOption, what); };
  if (o.reflectionCap < 0) bad("reflectionCap must be >= 0");
  if (!(o.feasibilityTolerance >= 0 && o.feasibilityTolerance < 1)) bad("feasibilityTolerance must be in [0, 1)");
  if (!(o.tieTolerance > 0 && o.tieTolerance < 1)) bad("tieTolerance must be in (0, 1)");
  if (!(o.duplicateTolerance >= 0 && o.duplicateTolerance < 1)) bad("duplicateTolerance must be in [0, 1)");
  if (!(o.certificateTolerance >= 0 && o.certificateTolerance < 1)) bad("certificateTolerance must be in [0, 1)");
  if (o.analysisContactLimit < 0 || o.analysisContactLimit > kAnalysisMax)
    bad("analysisContactLimit must be in [0, " + std::to_string(kAnalysisMax) + "]");
  if (o.enumerationContactLimit < 0) bad("enumerationContactLimit must be >= 0");
  if (o.enumerationNodeCap < 0) bad("enumerationNodeCap must be >= 0");
  if (o.plasticDenseLimit < 0) bad("plasticDenseLimit must be >= 0");
  if (!(o.plasticIterativeTolerance > 0)) bad("plasticIterativeTolerance must be > 0");
  if (o.plasticIterativeSweepCap < 1) bad("plasticIterativeSweepCap must be >= 1");
}

}  // namespace

struct ImpactResolver::Workspace {
  const ImpactProblem* problem = nullptr;
  const ResolveOptions* options = nullptr;

  // Metric.
  std::vector<Group> groups;
  std::vector<int> blockGroup;
  std::vector<Index> blockOffsetInGroup;
  std::vector<Scalar> inverseMass;
  // Per joined group, C = M⁻¹Bᵀ(BM⁻¹Bᵀ)⁺B: the part of a velocity that violates
  // the joints (seed 004's P_c). Empty when there are no bilateral rows.
  std::vector<Scalar> constraintProjector;
  std::vector<Index> projectorOffset;
  std::vector<Scalar> groupScale;  // per group: max |M⁻¹| before the joints' projection
  std::vector<Scalar> vConstraint;  // internal ordering
  mutable std::vector<Scalar> vConstraintProblemStorage;  // problem ordering, see problemVector()
  bool anyProjector = false;
  std::vector<Row> rows;
  std::vector<Scalar> coefficients;
  std::vector<Scalar> w;  // M⁻¹ Jᵀ, same layout as coefficients
  std::vector<int> adjacencyStart;
  std::vector<int> adjacency;  // active rows touching each group
  std::vector<int> active;     // compact list of active rows
  std::vector<int> compactOf;  // row -> position in active, or -1
  Index dofs = 0;
  Scalar duplicateSpeedScale = 0;  // √(2 T₀): the velocity scale duplicates' speeds are compared at

  // Scales.
  Scalar scale = 0;
  Scalar threshold = 0;
  Scalar quantum = 1;
  bool anyBias = false;

  // Propagation state.
  std::vector<Scalar> v0;  // internal ordering
  std::vector<Scalar> v;
  std::vector<Scalar> vPlastic;
  std::vector<Scalar> s;
  std::vector<std::int64_t> reflectionCount;
  std::vector<char> awake;
  bool grow = false;
  std::vector<HeapEntry> heap;
  std::vector<int> heapPosition;
  OrderingPolicy policy = OrderingPolicy::MostApproaching;

  // Plastic.
  bool delassusReady = false;
  std::vector<Scalar> delassus;
  std::vector<Scalar> compactS;
  std::vector<Scalar> compactUnit;
  std::vector<Scalar> compactLambda;
  std::vector<Scalar> iterativeOut;  // the iterative solve tried after an exact one left rows violated
  std::vector<Scalar> iterativeLambda;
  detail::ActiveSetLcp lcp;
  // Rows of A = J L with M⁻¹ = L Lᵀ (per group, L = V Λ^½ from M⁻¹'s
  // eigen-decomposition, stored as Lᵀ), so that A Aᵀ is the Delassus matrix
  // without ever forming it for the plastic solve (see PlasticSolver.h).
  std::vector<Scalar> factorTransposed;  // per group, size × size, layout of inverseMass
  std::vector<Scalar> factorRows;        // m × factorDofs, row-major, compact active order
  std::vector<Index> factorColumn;       // per group: first column in factorRows, or -1
  std::vector<char> groupTouched;
  Index factorDofs = 0;
  void buildFactorRows();

  // Impulses per row.
  std::vector<Scalar> lambdaElastic;
  std::vector<Scalar> lambdaPlastic;
  std::vector<Scalar> lambdaScratch;
  std::vector<int> scratchSequence;

  // Problem-ordered scratch.
  // Storage of problem-ordered vectors of size dofs: Eigen's own vectors
  // would reallocate whenever the cluster size changes, these keep capacity.
  mutable std::vector<Scalar> scratchAStorage, scratchBStorage, scratchCStorage, v0ProblemStorage;
  Eigen::Map<VectorX> problemVector(std::vector<Scalar>& storage) const {
    if (storage.size() < static_cast<std::size_t>(dofs)) storage.resize(static_cast<std::size_t>(dofs));
    return Eigen::Map<VectorX>(storage.data(), dofs);
  }

  // Reused buffers (no allocation once capacities have grown).
  std::vector<Scalar> capped;
  std::vector<Scalar> fromStart;  // the cap's second fallback (settleCapped)
  std::vector<Scalar> lambdaFromStart;
  std::vector<int> unionParent, rootGroup, members;
  std::vector<Scalar> bufferB, bufferFactor, bufferTransfer;
  // Per joined group, F = L Q⊥ with M⁻¹_c = F Fᵀ (layout of inverseMass, zero
  // columns past the admissible dofs); meaningful where projectorOffset ≥ 0.
  std::vector<Scalar> jointFactor;
  std::vector<int> groupBlockStart, groupBlocks;
  // Joint projection: fixed-capacity decompositions for groups and joint-row
  // counts up to kAnalysisMax (no heap; dynamic Householder workspaces
  // allocate), dynamic ones past that.
  Eigen::SelfAdjointEigenSolver<SmallMatrix> smallBlockEigen;
  Eigen::SelfAdjointEigenSolver<MatrixX> blockEigen;
  Eigen::JacobiSVD<SmallMatrix> smallJointSvd;
  Eigen::JacobiSVD<MatrixX> jointSvd;
  SmallMatrix smallJointA, smallJointScaled;

  // Enumeration.
  std::vector<Scalar> enumerationStack;
  std::vector<Scalar> leaves;
  int leafCount = 0;
  std::int64_t enumerationNodes = 0;
  bool enumerationIncomplete = false;

  void buildMetric();
  void findDuplicates(ImpactResult& result);
  void buildAdjacency();

  [[nodiscard]] Scalar rowVelocity(int r, const Scalar* velocity) const {
    const Row& row = rows[static_cast<std::size_t>(r)];
    Scalar value = row.bias;
    for (int t = 0; t < row.termCount; ++t) {
      const Group& g = groups[static_cast<std::size_t>(row.terms[t].group)];
      const Scalar* c = coefficients.data() + row.terms[t].offset;
      const Scalar* x = velocity + g.offset;
      if (g.size == 6) {
        // A rigid body: a fixed trip count the compiler unrolls (same order, same bits).
        for (Index k = 0; k < 6; ++k) value += c[k] * x[k];
      } else {
        for (Index k = 0; k < g.size; ++k) value += c[k] * x[k];
      }
    }
    return value;
  }
  void applyImpulse(int r, Scalar lambda, Scalar* velocity) const {
    const Row& row = rows[static_cast<std::size_t>(r)];
    for (int t = 0; t < row.termCount; ++t) {
      const Group& g = groups[static_cast<std::size_t>(row.terms[t].group)];
      const Scalar* dw = w.data() + row.terms[t].offset;
      Scalar* x = velocity + g.offset;
      if (g.size == 6) {
        for (Index k = 0; k < 6; ++k) x[k] += lambda * dw[k];
      } else {
        for (Index k = 0; k < g.size; ++k) x[k] += lambda * dw[k];
      }
    }
  }
  /// Largest unit-normal approach over the active rows (0 when all separate).
  [[nodiscard]] Scalar largestViolation(const Scalar* velocity) const {
    Scalar worst = 0;
    for (const int r : active)
      worst = std::max(worst, -rowVelocity(r, velocity) * rows[static_cast<std::size_t>(r)].invSqrtD);
    return worst;
  }
  [[nodiscard]] bool infeasible(int r, Scalar relativeVelocity) const {
    const Row& row = rows[static_cast<std::size_t>(r)];
    return relativeVelocity * row.invSqrtD < -threshold && relativeVelocity < -row.restingSpeed;
  }

  void gather(const Scalar* problemOrder, Scalar* internal) const;
  void scatter(const Scalar* internal, Scalar* problemOrder) const;

  HeapEntry keyOf(int r) const;
  void heapSiftUp(std::size_t i);
  void heapSiftDown(std::size_t i);
  void heapUpdate(int r);
  void heapRemove(int r);

  std::int64_t propagate(OrderingPolicy order, Scalar* velocity, Scalar* lambda, std::vector<int>* sequence,
                         std::int64_t cap, bool& capHit);
  void ensureDelassus();
  void solvePlastic(const Scalar* start, Scalar* out, Scalar* lambda, ImpactResult* stats,
                    const Scalar* warmStart = nullptr);
  Scalar blendAlpha(const VectorX& elastic, const VectorX& plastic, Scalar energyBefore, Scalar energyPlastic,
                    Scalar restitution) const;
  Scalar kineticInner(const Eigen::Ref<const VectorX>& a, const Eigen::Ref<const VectorX>& b) const;
  /// ½ vᵀ M v, the same arithmetic as ImpactProblem::kineticEnergy without its per-block temporaries.
  Scalar kineticEnergy(const Eigen::Ref<const VectorX>& velocity) const { return 0.5 * kineticInner(velocity, velocity); }
  mutable std::vector<Scalar> massTimes;

  void analyse(ImpactResult& result);
  void enumerate(int level, int last);
  std::int64_t capFor() const;
  Fallback settleCapped(Scalar* velocity, Scalar* lambda, ImpactResult* stats);
  std::int64_t solveIterative(const Scalar* start, Scalar* out, std::vector<Scalar>& compact, const Scalar* warmStart);
};

ImpactResolver::ImpactResolver() : m_work(std::make_unique<Workspace>()) {}
ImpactResolver::~ImpactResolver() = default;
ImpactResolver::ImpactResolver(ImpactResolver&&) noexcept = default;
ImpactResolver& ImpactResolver::operator=(ImpactResolver&&) noexcept = default;

void ImpactResolver::Workspace::gather(const Scalar* problemOrder, Scalar* internal) const {
  for (int b = 0; b < problem->blockCount(); ++b) {
    const BlockLayout& layout = problem->block(b);
    const Group& g = groups[static_cast<std::size_t>(blockGroup[static_cast<std::size_t>(b)])];
    std::copy(problemOrder + layout.velocityOffset, problemOrder + layout.velocityOffset + layout.size,
              internal + g.offset + blockOffsetInGroup[static_cast<std::size_t>(b)]);
  }
}

void ImpactResolver::Workspace::scatter(const Scalar* internal, Scalar* problemOrder) const {
  for (int b = 0; b < problem->blockCount(); ++b) {
    const BlockLayout& layout = problem->block(b);
    const Group& g = groups[static_cast<std::size_t>(blockGroup[static_cast<std::size_t>(b)])];
    const Scalar* from = internal + g.offset + blockOffsetInGroup[static_cast<std::size_t>(b)];
    std::copy(from, from + layout.size, problemOrder + layout.velocityOffset);
  }
}

void ImpactResolver::Workspace::buildMetric() {
  const ImpactProblem& p = *problem;
  const auto blockCount = static_cast<std::size_t>(p.blockCount());
  blockGroup.assign(blockCount, -1);
  blockOffsetInGroup.assign(blockCount, 0);
  groups.clear();
  inverseMass.clear();
  constraintProjector.clear();
  projectorOffset.clear();
  anyProjector = false;
  dofs = p.dofCount();

  if (p.bilateralCount() == 0) {
    groupScale.assign(blockCount, 0);
    for (std::size_t b = 0; b < blockCount; ++b) {
      const BlockLayout& layout = p.block(static_cast<int>(b));
      Group g;
      g.offset = layout.velocityOffset;
      g.size = layout.size;
      g.matrixOffset = static_cast<Index>(inverseMass.size());
      const Scalar* source = p.inverseMassData() + layout.matrixOffset;
      inverseMass.insert(inverseMass.end(), source, source + layout.size * layout.size);
      groupScale[b] = Eigen::Map<const MatrixX>(source, layout.size, layout.size).cwiseAbs().maxCoeff();
      blockGroup[b] = static_cast<int>(groups.size());
      groups.push_back(g);
    }
  } else {
    // Union-find over blocks joined by bilateral rows.
    std::vector<int>& parent = unionParent;
    parent.resize(blockCount);
    std::iota(parent.begin(), parent.end(), 0);
    const auto find = [&](int x) {
      while (parent[static_cast<std::size_t>(x)] != x) x = parent[static_cast<std::size_t>(x)] = parent[static_cast<std::size_t>(parent[static_cast<std::size_t>(x)])];
      return x;
    };
    for (int i = 0; i < p.bilateralCount(); ++i) {
      const RowLayout& row = p.bilateral(i);
      if (row.terms[1].block != kNoBlock) parent[static_cast<std::size_t>(find(row.terms[0].block))] = find(row.terms[1].block);
    }
    rootGroup.assign(blockCount, -1);
    Index offset = 0;
    for (std::size_t b = 0; b < blockCount; ++b) {
      const int root = find(static_cast<int>(b));
      if (rootGroup[static_cast<std::size_t>(root)] < 0) {
        rootGroup[static_cast<std::size_t>(root)] = static_cast<int>(groups.size());
        groups.push_back(Group{});
      }
      Group& g = groups[static_cast<std::size_t>(rootGroup[static_cast<std::size_t>(root)])];
      blockGroup[b] = rootGroup[static_cast<std::size_t>(root)];
      blockOffsetInGroup[b] = g.size;
      g.size += p.block(static_cast<int>(b)).size;
    }
    projectorOffset.assign(groups.size(), -1);
    groupScale.assign(groups.size(), 0);
    jointFactor.resize(0);
    for (Group& g : groups) {
      g.offset = offset;
      offset += g.size;
      g.matrixOffset = static_cast<Index>(inverseMass.size());
      inverseMass.resize(inverseMass.size() + static_cast<std::size_t>(g.size * g.size), 0);
    }
    jointFactor.resize(inverseMass.size());
    // Block-diagonal M⁻¹ per group, then restrict it to the admissible motions
    // (seed 004's P_a M⁻¹): M⁻¹_c = M⁻¹ − M⁻¹Bᵀ(BM⁻¹Bᵀ)⁺BM⁻¹.
    for (std::size_t b = 0; b < blockCount; ++b) {
      const BlockLayout& layout = p.block(static_cast<int>(b));
      const Group& g = groups[static_cast<std::size_t>(blockGroup[b])];
      Eigen::Map<MatrixX> target(inverseMass.data() + g.matrixOffset, g.size, g.size);
      target.block(blockOffsetInGroup[b], blockOffsetInGroup[b], layout.size, layout.size) =
          Eigen::Map<const MatrixX>(p.inverseMassData() + layout.matrixOffset, layout.size, layout.size);
      // The scale of the unprojected M⁻¹: what "round-off of the metric" is measured against.
      groupScale[static_cast<std::size_t>(blockGroup[b])] =
          std::max(groupScale[static_cast<std::size_t>(blockGroup[b])], target.cwiseAbs().maxCoeff());
    }
    // Blocks per group (counting sort), so a group's factor visits only its own blocks.
    groupBlockStart.assign(groups.size() + 1, 0);
    for (std::size_t b = 0; b < blockCount; ++b) ++groupBlockStart[static_cast<std::size_t>(blockGroup[b]) + 1];
    for (std::size_t gi = 0; gi < groups.size(); ++gi) groupBlockStart[gi + 1] += groupBlockStart[gi];
    groupBlocks.resize(blockCount);
    scratchSequence.assign(groupBlockStart.begin(), groupBlockStart.end() - 1);
    for (std::size_t b = 0; b < blockCount; ++b)
      groupBlocks[static_cast<std::size_t>(scratchSequence[static_cast<std::size_t>(blockGroup[b])]++)] = static_cast<int>(b);
    // Every matrix below is a Map over a reused buffer, so that a step whose
    // groups have the sizes of an earlier step allocates nothing.
    const auto buffer = [](std::vector<Scalar>& storage, Index rows, Index cols) {
      if (storage.size() < static_cast<std::size_t>(rows * cols)) storage.resize(static_cast<std::size_t>(rows * cols));
      return Eigen::Map<MatrixX>(storage.data(), rows, cols);
    };
    for (std::size_t gi = 0; gi < groups.size(); ++gi) {
      const Group& g = groups[gi];
      members.clear();
      for (int i = 0; i < p.bilateralCount(); ++i)
        if (blockGroup[static_cast<std::size_t>(p.bilateral(i).terms[0].block)] == static_cast<int>(gi)) members.push_back(i);
      if (members.empty()) continue;
      const auto rowCount = static_cast<Index>(members.size());
      Eigen::Map<MatrixX> B = buffer(bufferB, rowCount, g.size);
      B.setZero();
      for (std::size_t r = 0; r < members.size(); ++r)
        for (const RowTerm& t : p.bilateral(members[r]).terms) {
          if (t.block == kNoBlock) continue;
          const Index size = p.block(t.block).size;
          B.row(static_cast<Index>(r)).segment(blockOffsetInGroup[static_cast<std::size_t>(t.block)], size) =
              Eigen::Map<const VectorX>(p.rowData() + t.coefficientOffset, size).transpose();
        }
      // M⁻¹ = L Lᵀ per block (L = V Λ^½: M⁻¹ may be singular along locked or
      // infinite-inertia axes), so the group's L is block-diagonal.
      Eigen::Map<MatrixX> factor = buffer(bufferFactor, g.size, g.size);
      factor.setZero();
      for (int k = groupBlockStart[gi]; k < groupBlockStart[gi + 1]; ++k) {
        const auto b = static_cast<std::size_t>(groupBlocks[static_cast<std::size_t>(k)]);
        const BlockLayout& layout = p.block(static_cast<int>(b));
        const Index at = blockOffsetInGroup[b];
        const auto place = [&](const auto& eig) {
          const auto& values = eig.eigenvalues();
          // Round-off eigenvalues (a rotated infinite-inertia axis comes out at
          // ~1e-17 relative) are zeros, as in buildFactorRows: their square
          // roots would be mobility the plastic solve pushes 1e20 impulses along.
          const Scalar cutoff = kMetricNoise * values.cwiseAbs().maxCoeff();
          for (Index c = 0; c < layout.size; ++c)
            factor.block(at, at + c, layout.size, 1) =
                (values[c] > cutoff ? std::sqrt(values[c]) : Scalar(0)) * eig.eigenvectors().col(c);
        };
        const Eigen::Map<const MatrixX> blockInverse(p.inverseMassData() + layout.matrixOffset, layout.size, layout.size);
        if (layout.size == 6) {
          place(Eigen::SelfAdjointEigenSolver<Matrix6>(Matrix6(blockInverse)));
        } else if (layout.size <= kAnalysisMax) {
          smallBlockEigen.compute(blockInverse);
          place(smallBlockEigen);
        } else {
          blockEigen.compute(blockInverse);
          place(blockEigen);
        }
      }
      // With A = LᵀBᵀ, M⁻¹_c = L (I − A A⁺) Lᵀ = (L U⊥)(L U⊥)ᵀ, U⊥ an orthonormal
      // basis of A's left null space from its SVD. Forming (BM⁻¹Bᵀ)⁺ instead
      // squares A's condition number: three nearly dependent joint rows on two
      // dofs left an indefinite M⁻¹_c of 40 % of M⁻¹ where it is exactly zero,
      // and the reflections along it drove the energy to 1e101 (fuzz finding
      // over-constrained-joint-projection-was-indefinite). This form is PSD by
      // construction and accurate to round-off of L. The rank is decided on
      // A's singular values (the old cut-off on BM⁻¹Bᵀ's eigenvalues, in A's
      // terms); a pivoted QR's pivots only approximate them and disagreed near
      // the cut-off. The constraint part of a velocity,
      // C v = M⁻¹Bᵀ(BM⁻¹Bᵀ)⁺B v, is L (A⁺)ᵀ B v = L U_r Σ_r⁻¹ V_rᵀ B v.
      Eigen::Map<MatrixX> minv(inverseMass.data() + g.matrixOffset, g.size, g.size);
      projectorOffset[gi] = static_cast<Index>(constraintProjector.size());
      constraintProjector.resize(constraintProjector.size() + static_cast<std::size_t>(g.size * g.size));
      Eigen::Map<MatrixX> projector(constraintProjector.data() + projectorOffset[gi], g.size, g.size);
      const auto project = [&](auto& svd, auto& a, auto& scaled) {
        a.noalias() = factor.transpose() * B.transpose();
        svd.compute(a, Eigen::ComputeFullU | Eigen::ComputeFullV);
        const auto& values = svd.singularValues();
        Index rank = 0;
        for (Index k = 0; k < values.size(); ++k)
          if (values[k] > kJointRankCutoff * values[0]) ++rank;
        const Index admissibleDofs = g.size - rank;
        const auto& u = svd.matrixU();
        // L U⊥ is also the factor the exact plastic solve needs (M⁻¹_c = F Fᵀ):
        // kept, padded with zero columns, so buildFactorRows need not recover
        // it from M⁻¹_c by an eigen-decomposition.
        Eigen::Map<MatrixX> admissible(jointFactor.data() + g.matrixOffset, g.size, g.size);
        admissible.leftCols(admissibleDofs).noalias() = factor * u.rightCols(admissibleDofs);
        admissible.rightCols(g.size - admissibleDofs).setZero();
        minv.noalias() = admissible.leftCols(admissibleDofs) * admissible.leftCols(admissibleDofs).transpose();
        scaled = u.leftCols(rank);
        for (Index k = 0; k < rank; ++k) scaled.col(k) /= values[k];
        Eigen::Map<MatrixX> transfer = buffer(bufferTransfer, g.size, rowCount);
        transfer.noalias() = factor * (scaled * svd.matrixV().leftCols(rank).transpose());
        projector.noalias() = transfer * B;
      };
      if (g.size <= kAnalysisMax && rowCount <= kAnalysisMax) {
        smallJointA.resize(g.size, rowCount);
        project(smallJointSvd, smallJointA, smallJointScaled);
      } else {
        MatrixX a(g.size, rowCount), scaled;
        project(jointSvd, a, scaled);
      }
      anyProjector = true;
      for (Index a = 0; a < g.size; ++a)
        for (Index b = a + 1; b < g.size; ++b) minv(a, b) = minv(b, a) = 0.5 * (minv(a, b) + minv(b, a));
    }
  }

  // Contact rows in group coordinates, with w = M⁻¹ Jᵀ and d = J M⁻¹ Jᵀ.
  const auto contactCount = static_cast<std::size_t>(p.contactCount());
  rows.resize(contactCount);
  coefficients.clear();
  anyBias = false;
  for (std::size_t i = 0; i < contactCount; ++i) {
    const RowLayout& input = p.contact(static_cast<int>(i));
    Row& row = rows[i];
    row = Row{};
    row.bias = input.bias;
    row.restitution = input.restitution;
    row.key = input.canonicalKey;
    row.restingSpeed = input.restingSpeed;
    if (input.bias != 0) anyBias = true;
    for (const RowTerm& t : input.terms) {
      if (t.block == kNoBlock) continue;
      const int group = blockGroup[static_cast<std::size_t>(t.block)];
      const Group& g = groups[static_cast<std::size_t>(group)];
      int slot = -1;
      for (int k = 0; k < row.termCount; ++k)
        if (row.terms[k].group == group) slot = k;
      if (slot < 0) {
        slot = row.termCount++;
        row.terms[slot].group = group;
        row.terms[slot].offset = static_cast<Index>(coefficients.size());
        coefficients.resize(coefficients.size() + static_cast<std::size_t>(g.size), 0);
      }
      const Index size = p.block(t.block).size;
      const Scalar* source = p.rowData() + t.coefficientOffset;
      Scalar* target = coefficients.data() + row.terms[slot].offset + blockOffsetInGroup[static_cast<std::size_t>(t.block)];
      for (Index k = 0; k < size; ++k) target[k] += source[k];
    }
    row.representative = static_cast<int>(i);
  }
  w.assign(coefficients.size(), 0);
  for (std::size_t i = 0; i < contactCount; ++i) {
    Row& row = rows[i];
    Scalar d = 0;
    Scalar reference = 0;
    for (int t = 0; t < row.termCount; ++t) {
      const Group& g = groups[static_cast<std::size_t>(row.terms[t].group)];
      if (g.size == 6) {
        // Rigid bodies: fixed-size kernels instead of a dynamic matrix-vector product per row.
        Eigen::Map<const Matrix6> minv(inverseMass.data() + g.matrixOffset);
        Eigen::Map<const Vector6> c(coefficients.data() + row.terms[t].offset);
        Eigen::Map<Vector6> wt(w.data() + row.terms[t].offset);
        wt.noalias() = minv * c;
        d += c.dot(wt);
        reference += c.squaredNorm() * groupScale[static_cast<std::size_t>(row.terms[t].group)];
        continue;
      }
      Eigen::Map<const MatrixX> minv(inverseMass.data() + g.matrixOffset, g.size, g.size);
      Eigen::Map<const VectorX> c(coefficients.data() + row.terms[t].offset, g.size);
      Eigen::Map<VectorX> wt(w.data() + row.terms[t].offset, g.size);
      wt.noalias() = minv * c;
      d += c.dot(wt);
      reference += c.squaredNorm() * groupScale[static_cast<std::size_t>(row.terms[t].group)];
    }
    row.d = d;
    if (!(d > kMetricNoise * reference)) {
      row.representative = -1;  // no admissible motion moves this contact
      row.invSqrtD = 0;
    } else {
      row.invSqrtD = 1 / std::sqrt(d);
    }
  }
}

void ImpactResolver::Workspace::buildAdjacency() {
  const std::size_t groupCount = groups.size();
  adjacencyStart.assign(groupCount + 1, 0);
  active.clear();
  compactOf.assign(rows.size(), -1);
  for (std::size_t i = 0; i < rows.size(); ++i) {
    if (rows[i].representative != static_cast<int>(i)) continue;
    compactOf[i] = static_cast<int>(active.size());
    active.push_back(static_cast<int>(i));
    for (int t = 0; t < rows[i].termCount; ++t) ++adjacencyStart[static_cast<std::size_t>(rows[i].terms[t].group) + 1];
  }
  for (std::size_t g = 0; g < groupCount; ++g) adjacencyStart[g + 1] += adjacencyStart[g];
  adjacency.resize(static_cast<std::size_t>(adjacencyStart[groupCount]));
  std::vector<int>& fill = scratchSequence;
  fill.assign(adjacencyStart.begin(), adjacencyStart.end() - 1);
  for (const int i : active) {
    const Row& row = rows[static_cast<std::size_t>(i)];
    for (int t = 0; t < row.termCount; ++t)
      adjacency[static_cast<std::size_t>(fill[static_cast<std::size_t>(row.terms[t].group)]++)] = i;
  }
}

void ImpactResolver::Workspace::findDuplicates(ImpactResult& result) {
  // Candidates sharing a group are found through the adjacency of the rows'
  // first group, so a chain costs O(m), a body with k contacts O(k²).
  buildAdjacency();
  const Scalar tolerance = options->duplicateTolerance;
  for (const int i : active) {
    Row& row = rows[static_cast<std::size_t>(i)];
    const int group = row.terms[0].group;
    // Row i's start speed, computed once and only if some candidate gets that far.
    Scalar speedI = std::numeric_limits<Scalar>::quiet_NaN();
    for (int a = adjacencyStart[static_cast<std::size_t>(group)]; a < adjacencyStart[static_cast<std::size_t>(group) + 1]; ++a) {
      const int j = adjacency[static_cast<std::size_t>(a)];
      if (j >= i) break;
      const Row& other = rows[static_cast<std::size_t>(j)];
      if (other.representative != j || other.termCount != row.termCount) continue;
      // Equal M⁻¹Jᵀ keeps Jᵢv − Jⱼv constant through every impulse, so two rows
      // are one constraint only if they also agree in it now: bias, a joint
      // error, or motion along an axis nothing can change (a body spinning
      // about an infinite-inertia axis) can set them apart, and merging them
      // would leave the dropped row infeasible (fuzz finding
      // merged-duplicates-differ-in-velocity-along-an-immobile-axis).
      if (std::isnan(speedI)) speedI = rowVelocity(i, v0.data()) * row.invSqrtD;
      const Scalar speedJ = rowVelocity(j, v0.data()) * other.invSqrtD;
      if (std::abs(speedI - speedJ) > tolerance * std::max({duplicateSpeedScale, std::abs(speedI), std::abs(speedJ)}))
        continue;
      bool same = true;
      for (int t = 0; t < row.termCount && same; ++t) {
        int u = -1;
        for (int k = 0; k < other.termCount; ++k)
          if (other.terms[k].group == row.terms[t].group) u = k;
        if (u < 0) {
          same = false;
          break;
        }
        // Compare M⁻¹Jᵀ, not J: rows that differ only along locked axes (a
        // planar body's out-of-plane lever) act identically on admissible motion.
        const Index size = groups[static_cast<std::size_t>(row.terms[t].group)].size;
        Eigen::Map<const VectorX> wi(w.data() + row.terms[t].offset, size);
        Eigen::Map<const VectorX> wj(w.data() + other.terms[u].offset, size);
        same = (wi - wj).norm() <= tolerance * std::max(wi.norm(), wj.norm());
      }
      if (same) {
        row.representative = j;
        rows[static_cast<std::size_t>(j)].restitution = std::min(rows[static_cast<std::size_t>(j)].restitution, row.restitution);
        ++result.mergedDuplicates;
        break;
      }
    }
  }
  buildAdjacency();
}

HeapEntry ImpactResolver::Workspace::keyOf(int r) const {
  const Row& row = rows[static_cast<std::size_t>(r)];
  std::int64_t primary = 0;
  const auto quantized = [&]() {
    const Scalar q = std::floor(s[static_cast<std::size_t>(r)] * row.invSqrtD / quantum + 0.5);
    return static_cast<std::int64_t>(std::clamp(q, Scalar(-4e18), Scalar(4e18)));
  };
  switch (policy) {
    case OrderingPolicy::MostApproaching: primary = quantized(); break;
    case OrderingPolicy::LeastApproaching: primary = -quantized(); break;
    case OrderingPolicy::IndexOrder: primary = r; break;
    case OrderingPolicy::ReverseIndexOrder: primary = -static_cast<std::int64_t>(r); break;
    case OrderingPolicy::SeededRandom:
      primary = static_cast<std::int64_t>(
          splitMix(options->randomSeed ^
                   splitMix(options->problemKey ^
                            splitMix(row.key ^ splitMix(static_cast<std::uint64_t>(reflectionCount[static_cast<std::size_t>(r)]))))) >>
          1);
      break;
  }
  return HeapEntry{primary, row.key, r};
}

void ImpactResolver::Workspace::heapSiftUp(std::size_t i) {
  while (i > 0) {
    const std::size_t parent = (i - 1) / 2;
    if (!(heap[i] < heap[parent])) break;
    std::swap(heap[i], heap[parent]);
    heapPosition[static_cast<std::size_t>(heap[i].row)] = static_cast<int>(i);
    heapPosition[static_cast<std::size_t>(heap[parent].row)] = static_cast<int>(parent);
    i = parent;
  }
}

void ImpactResolver::Workspace::heapSiftDown(std::size_t i) {
  const std::size_t n = heap.size();
  while (true) {
    std::size_t best = i;
    const std::size_t left = 2 * i + 1;
    const std::size_t right = left + 1;
    if (left < n && heap[left] < heap[best]) best = left;
    if (right < n && heap[right] < heap[best]) best = right;
    if (best == i) break;
    std::swap(heap[i], heap[best]);
    heapPosition[static_cast<std::size_t>(heap[i].row)] = static_cast<int>(i);
    heapPosition[static_cast<std::size_t>(heap[best].row)] = static_cast<int>(best);
    i = best;
  }
}

void ImpactResolver::Workspace::heapRemove(int r) {
  const int position = heapPosition[static_cast<std::size_t>(r)];
  if (position < 0) return;
  const auto p = static_cast<std::size_t>(position);
  heapPosition[static_cast<std::size_t>(r)] = -1;
  if (p + 1 == heap.size()) {
    heap.pop_back();
    return;
  }
  heap[p] = heap.back();
  heap.pop_back();
  const int moved = heap[p].row;
  heapPosition[static_cast<std::size_t>(moved)] = position;
  heapSiftUp(p);
  heapSiftDown(static_cast<std::size_t>(heapPosition[static_cast<std::size_t>(moved)]));
}

void ImpactResolver::Workspace::heapUpdate(int r) {
  if (!infeasible(r, s[static_cast<std::size_t>(r)])) {
    heapRemove(r);
    return;
  }
  const HeapEntry entry = keyOf(r);
  const int position = heapPosition[static_cast<std::size_t>(r)];
  if (position < 0) {
    heap.push_back(entry);
    heapPosition[static_cast<std::size_t>(r)] = static_cast<int>(heap.size() - 1);
    heapSiftUp(heap.size() - 1);
    return;
  }
  const auto p = static_cast<std::size_t>(position);
  heap[p] = entry;
  heapSiftUp(p);
  heapSiftDown(static_cast<std::size_t>(heapPosition[static_cast<std::size_t>(r)]));
}

std::int64_t ImpactResolver::Workspace::capFor() const {
  return options->reflectionCap > 0 ? options->reflectionCap
                                    : 1000 + 100 * static_cast<std::int64_t>(active.size());
}

// The cap's fallback: \p velocity is the capped state, \p lambda the
// impulses that reached it; both become the fallback's.
Fallback ImpactResolver::Workspace::settleCapped(Scalar* velocity, Scalar* lambda, ImpactResult* stats) {
  capped.assign(velocity, velocity + dofs);
  const Scalar residualBefore = stats ? stats->plasticResidual : 0;
  solvePlastic(capped.data(), velocity, lambda, stats);
  // From the capped state only further non-negative impulses are allowed, so
  // rows the propagation already pushed hard (a wedge's opposing pair, biased
  // rows nearly locked by a joint) can leave no feasible outcome from there,
  // although one exists from the start: three fuzz findings
  // (capped-near-dependent-pair-left-violated-by-a-blocked-row and
  // biased-joints-capped-wedge-plastic-solve-left-violated among them) ended
  // with violations up to 1e6 per unit normal. Then the plastic outcome from
  // the start stands in for the elastic one, unless it is no less violated
  // (no outcome is feasible at all: a ball between two closing walls).
  // The iterative solve stops at its own tolerance, which a large capped
  // cluster must not pay a second solve for.
  const bool iterative = static_cast<Index>(active.size()) > options->plasticDenseLimit;
  const Scalar accepted = iterative ? std::max(threshold, options->plasticIterativeTolerance * scale) : threshold;
  const Scalar cappedViolation = largestViolation(velocity);
  if (cappedViolation <= accepted) return Fallback::PlasticFromCapped;
  fromStart.resize(static_cast<std::size_t>(dofs));
  lambdaFromStart.assign(rows.size(), 0);
  solvePlastic(v0.data(), fromStart.data(), lambdaFromStart.data(), stats);
  const Scalar startViolation = largestViolation(fromStart.data());
  if (startViolation >= cappedViolation) {
    if (stats) stats->plasticResidual = std::max(residualBefore, cappedViolation);
    return Fallback::PlasticFromCapped;
  }
  if (stats) stats->plasticResidual = std::max(residualBefore, startViolation);  // the capped outcome is discarded
  std::copy(fromStart.begin(), fromStart.end(), velocity);
  std::copy(lambdaFromStart.begin(), lambdaFromStart.end(), lambda);
  return Fallback::PlasticFromStart;
}

std::int64_t ImpactResolver::Workspace::propagate(OrderingPolicy order, Scalar* velocity, Scalar* lambda,
                                                  std::vector<int>* sequence, std::int64_t cap, bool& capHit) {
  policy = order;
  capHit = false;
  heap.clear();
  heapPosition.assign(rows.size(), -1);
  reflectionCount.assign(rows.size(), 0);
  s.resize(rows.size());
  awake.assign(rows.size(), grow ? 0 : 1);
  for (const int r : active) {
    if (grow && !problem->contact(r).seed) continue;
    awake[static_cast<std::size_t>(r)] = 1;
    s[static_cast<std::size_t>(r)] = rowVelocity(r, velocity);
    heapUpdate(r);
  }
  std::int64_t count = 0;
  while (!heap.empty()) {
    if (count >= cap) {
      capHit = true;
      break;
    }
    const int c = heap.front().row;
    const Row& row = rows[static_cast<std::size_t>(c)];
    // Eq. (8): reflect the relative velocity across this contact.
    const Scalar impulse = -2 * s[static_cast<std::size_t>(c)] / row.d;
    applyImpulse(c, impulse, velocity);
    lambda[c] += impulse;
    ++reflectionCount[static_cast<std::size_t>(c)];
    ++count;
    if (sequence) sequence->push_back(c);
    for (int t = 0; t < row.termCount; ++t) {
      const auto g = static_cast<std::size_t>(row.terms[t].group);
      for (int a = adjacencyStart[g]; a < adjacencyStart[g + 1]; ++a) {
        const int j = adjacency[static_cast<std::size_t>(a)];
        s[static_cast<std::size_t>(j)] = rowVelocity(j, velocity);
        heapUpdate(j);
        // The cluster grows by the contacts the propagation makes infeasible,
        // not by every contact of a body it moved: a ball landing on a pile
        // reaches the contacts its impulse actually passes through.
        if (heapPosition[static_cast<std::size_t>(j)] >= 0) awake[static_cast<std::size_t>(j)] = 1;
      }
    }
  }
  return count;
}

void ImpactResolver::Workspace::ensureDelassus() {
  if (delassusReady) return;
  const auto m = static_cast<Index>(active.size());
  delassus.assign(static_cast<std::size_t>(m * m), 0);
  for (Index a = 0; a < m; ++a) {
    const Row& ri = rows[static_cast<std::size_t>(active[static_cast<std::size_t>(a)])];
    for (int t = 0; t < ri.termCount; ++t) {
      const auto g = static_cast<std::size_t>(ri.terms[t].group);
      const Index size = groups[g].size;
      for (int k = adjacencyStart[g]; k < adjacencyStart[g + 1]; ++k) {
        const int j = adjacency[static_cast<std::size_t>(k)];
        const Row& rj = rows[static_cast<std::size_t>(j)];
        for (int u = 0; u < rj.termCount; ++u) {
          if (rj.terms[u].group != ri.terms[t].group) continue;
          Scalar value = 0;
          for (Index x = 0; x < size; ++x) value += coefficients[static_cast<std::size_t>(ri.terms[t].offset + x)] * w[static_cast<std::size_t>(rj.terms[u].offset + x)];
          delassus[static_cast<std::size_t>(a + compactOf[static_cast<std::size_t>(j)] * m)] += value;
        }
      }
    }
  }
  delassusReady = true;
}

void ImpactResolver::Workspace::buildFactorRows() {
  factorTransposed.resize(inverseMass.size());
  groupTouched.assign(groups.size(), 0);
  for (const int r : active)
    for (int t = 0; t < rows[static_cast<std::size_t>(r)].termCount; ++t)
      groupTouched[static_cast<std::size_t>(rows[static_cast<std::size_t>(r)].terms[t].group)] = 1;
  for (std::size_t gi = 0; gi < groups.size(); ++gi) {
    if (!groupTouched[gi]) continue;
    const Group& g = groups[gi];
    Eigen::Map<const MatrixX> minv(inverseMass.data() + g.matrixOffset, g.size, g.size);
    Eigen::Map<MatrixX> factor(factorTransposed.data() + g.matrixOffset, g.size, g.size);
    const auto fill = [&](const auto& eig) {
      const auto values = eig.eigenvalues();
      // An eigenvalue at round-off level is a zero the arithmetic missed (a
      // joint's projection M⁻¹ − M⁻¹Bᵀ(BM⁻¹Bᵀ)⁺BM⁻¹ cancels to ~1e-16 relative).
      // Under the square root it became a mobility of 1e-8 relative, far above
      // what the active-set solve takes for dependence, and an infeasible
      // squeeze pushed impulses of 1e20 along it, whose round-off then moved
      // the joint (fuzz finding
      // joint-round-off-mobility-drove-plastic-impulses-to-1e20). The cut-off
      // is the one below which a row already counts as unmovable (d > 1e-13 ·
      // reference in buildMetric).
      const Scalar cutoff = Scalar(1e-13) * values.cwiseAbs().maxCoeff();
      for (Index k = 0; k < g.size; ++k)
        factor.row(k) = (values[k] > cutoff ? std::sqrt(values[k]) : Scalar(0)) * eig.eigenvectors().col(k).transpose();
    };
    if (anyProjector && projectorOffset[gi] >= 0) {
      // A joined group: the exact factor from the joint projection.
      factor = Eigen::Map<const MatrixX>(jointFactor.data() + g.matrixOffset, g.size, g.size).transpose();
    } else if (g.size == 6) {
      // Rigid bodies: fixed size, no heap.
      fill(Eigen::SelfAdjointEigenSolver<Matrix6>(Matrix6(minv)));
    } else {
      fill(Eigen::SelfAdjointEigenSolver<MatrixX>(minv));
    }
  }
  // Columns only for the groups the active rows touch: a cluster grown inside
  // a large touching component must not pay for the whole component's dofs.
  const auto m = static_cast<Index>(active.size());
  factorColumn.assign(groups.size(), -1);
  factorDofs = 0;
  for (const int r : active) {
    const Row& row = rows[static_cast<std::size_t>(r)];
    for (int t = 0; t < row.termCount; ++t) {
      const auto g = static_cast<std::size_t>(row.terms[t].group);
      if (factorColumn[g] < 0) {
        factorColumn[g] = factorDofs;
        factorDofs += groups[g].size;
      }
    }
  }
  factorRows.assign(static_cast<std::size_t>(m * factorDofs), 0);
  for (Index a = 0; a < m; ++a) {
    const Row& row = rows[static_cast<std::size_t>(active[static_cast<std::size_t>(a)])];
    for (int t = 0; t < row.termCount; ++t) {
      const auto gi = static_cast<std::size_t>(row.terms[t].group);
      const Group& g = groups[gi];
      Eigen::Map<const MatrixX> factor(factorTransposed.data() + g.matrixOffset, g.size, g.size);
      Eigen::Map<const VectorX> coefficient(coefficients.data() + row.terms[t].offset, g.size);
      Eigen::Map<VectorX>(factorRows.data() + a * factorDofs + factorColumn[gi], g.size).noalias() += factor * coefficient;
    }
  }
}

// Projected Gauss–Seidel (over-relaxed) on the LCP from \p start into \p out,
// swept until the largest complementarity violation is below tolerance (or the
// sweep cap); multipliers in \p compact (active order). Returns the sweeps run.
std::int64_t ImpactResolver::Workspace::solveIterative(const Scalar* start, Scalar* out, std::vector<Scalar>& compact,
                                                       const Scalar* warmStart) {
  const auto m = static_cast<Index>(active.size());
  std::copy(start, start + dofs, out);
  compact.assign(static_cast<std::size_t>(m), 0);
  if (warmStart) {
    // Half the elastic impulses: exact for one contact, and with f(λ) = ½λᵀWλ + λᵀJv₀
    // convex, f(0) = 0 and f(λₑ) ≤ 0, the start already loses energy, which
    // every sweep then only lowers further.
    for (Index a = 0; a < m; ++a) {
      const int r = active[static_cast<std::size_t>(a)];
      const Scalar value = std::max(Scalar(0), Scalar(0.5) * warmStart[r]);
      compact[static_cast<std::size_t>(a)] = value;
      if (value != 0) applyImpulse(r, value, out);
    }
  }
  std::int64_t sweep = 0;
  const Scalar tolerance = options->plasticIterativeTolerance * scale;
  for (; sweep < options->plasticIterativeSweepCap; ++sweep) {
    Scalar worst = 0;
    for (Index a = 0; a < m; ++a) {
      const int r = active[static_cast<std::size_t>(a)];
      const Row& row = rows[static_cast<std::size_t>(r)];
      const Scalar current = compact[static_cast<std::size_t>(a)];
      const Scalar relative = rowVelocity(r, out);
      const Scalar next = std::max(Scalar(0), current - kOverRelaxation * relative / row.d);
      const Scalar violation = std::abs(next - current) * row.d * row.invSqrtD;  // |Δλ|·√d without a root per row
      worst = std::max(worst, violation);
      if (next != current) {
        applyImpulse(r, next - current, out);
        compact[static_cast<std::size_t>(a)] = next;
      }
    }
    if (worst <= tolerance) break;
  }
  return std::min<std::int64_t>(sweep + 1, options->plasticIterativeSweepCap);
}

void ImpactResolver::Workspace::solvePlastic(const Scalar* start, Scalar* out, Scalar* lambda, ImpactResult* stats,
                                             const Scalar* warmStart) {
  const auto m = static_cast<Index>(active.size());
  std::copy(start, start + dofs, out);
  if (m == 0) return;
  PlasticMethod method = PlasticMethod::ActiveSet;
  std::int64_t iterations = 0;
  if (m <= options->plasticDenseLimit) {
    buildFactorRows();
    compactS.resize(static_cast<std::size_t>(m));
    compactUnit.resize(static_cast<std::size_t>(m));
    compactLambda.resize(static_cast<std::size_t>(m));
    for (Index a = 0; a < m; ++a) {
      const int r = active[static_cast<std::size_t>(a)];
      compactS[static_cast<std::size_t>(a)] = rowVelocity(r, start);
      compactUnit[static_cast<std::size_t>(a)] = rows[static_cast<std::size_t>(r)].invSqrtD;
    }
    iterations =
        lcp.solve(factorRows.data(), m, factorDofs, compactS.data(), compactUnit.data(), threshold, compactLambda.data());
    for (Index a = 0; a < m; ++a) {
      const Scalar value = compactLambda[static_cast<std::size_t>(a)];
      if (value != 0) applyImpulse(active[static_cast<std::size_t>(a)], value, out);
    }
    // Left violated, the exact solve either met a problem with no feasible
    // outcome (its least violation is then the best there is) or lost the
    // answer to round-off: rows dependent to 1e-8 under a mass of κ = 7e13
    // need multipliers of 5e10, and their cancellation left 4.8e-4 and the
    // energy 1,800 times its start (fuzz finding
    // plastic-solve-gains-energy-with-mass-conditioning-7e13). Gauss–Seidel
    // never takes such steps; the less violated outcome stands.
    const Scalar exactViolation = largestViolation(out);
    if (exactViolation > threshold) {
      iterativeOut.resize(static_cast<std::size_t>(dofs));
      const std::int64_t sweeps = solveIterative(start, iterativeOut.data(), iterativeLambda, warmStart);
      if (largestViolation(iterativeOut.data()) < exactViolation) {
        std::copy(iterativeOut.begin(), iterativeOut.end(), out);
        compactLambda.swap(iterativeLambda);
        method = PlasticMethod::Iterative;
        iterations = sweeps;
      }
    }
  } else {
    method = PlasticMethod::Iterative;
    iterations = solveIterative(start, out, compactLambda, warmStart);
  }
  for (Index a = 0; a < m; ++a) lambda[active[static_cast<std::size_t>(a)]] += compactLambda[static_cast<std::size_t>(a)];
  if (stats) {
    stats->plasticMethod = method;
    stats->plasticIterations = std::max(stats->plasticIterations, static_cast<int>(std::min<std::int64_t>(iterations, INT32_MAX)));
    stats->plasticResidual = std::max(stats->plasticResidual, largestViolation(out));
  }
}

Scalar ImpactResolver::Workspace::kineticInner(const Eigen::Ref<const VectorX>& a, const Eigen::Ref<const VectorX>& b) const {
  Scalar value = 0;
  for (int blk = 0; blk < problem->blockCount(); ++blk) {
    const BlockLayout& layout = problem->block(blk);
    if (layout.size == 6) {
      Eigen::Map<const Matrix6> mass(problem->massData() + layout.matrixOffset);
      const Vector6 product = mass * b.segment<6>(layout.velocityOffset);
      value += a.segment<6>(layout.velocityOffset).dot(product);
      continue;
    }
    Eigen::Map<const MatrixX> mass(problem->massData() + layout.matrixOffset, layout.size, layout.size);
    // M b into a reused buffer: the product Eigen would otherwise put in a heap temporary.
    if (massTimes.size() < static_cast<std::size_t>(layout.size)) massTimes.resize(static_cast<std::size_t>(layout.size));
    Eigen::Map<VectorX> product(massTimes.data(), layout.size);
    product.noalias() = mass * b.segment(layout.velocityOffset, layout.size);
    value += a.segment(layout.velocityOffset, layout.size).dot(product);
  }
  return value;
}

Scalar ImpactResolver::Workspace::blendAlpha(const VectorX& elastic, const VectorX& plastic, Scalar energyBefore,
                                             Scalar energyPlastic, Scalar restitution) const {
  if (restitution >= 1) return 1;
  if (restitution <= 0) return 0;
  if (anyBias) return restitution;
  // ½||p_p + α d||²_g = E_p + R² (E0 − E_p): a α² + b α + c = 0 with c ≤ 0.
  Eigen::Map<VectorX> difference = problemVector(scratchCStorage);
  difference = elastic - plastic;
  const Scalar a = 0.5 * kineticInner(difference, difference);
  const Scalar b = kineticInner(plastic, difference);
  const Scalar target = energyPlastic + restitution * restitution * (energyBefore - energyPlastic);
  const Scalar c = energyPlastic - target;
  if (!(a > 1e-300)) return restitution;
  const Scalar discriminant = std::max(Scalar(0), b * b - 4 * a * c);
  const Scalar root = std::sqrt(discriminant);
  const Scalar alpha = b >= 0 ? (root + b > 0 ? -2 * c / (b + root) : 0) : (-b + root) / (2 * a);
  return std::clamp(alpha, Scalar(0), Scalar(1));
}

void ImpactResolver::Workspace::enumerate(int level, int last) {
  if (enumerationIncomplete) return;
  if (++enumerationNodes > options->enumerationNodeCap || level > 64 * static_cast<int>(active.size()) + 64) {
    enumerationIncomplete = true;
    return;
  }
  const auto n = static_cast<std::size_t>(dofs);
  const std::size_t needed = (static_cast<std::size_t>(level) + 2) * n;
  if (enumerationStack.size() < needed) enumerationStack.resize(needed * 2);
  bool any = false;
  for (const int r : active) {
    if (r == last) continue;
    const Scalar* current = enumerationStack.data() + static_cast<std::size_t>(level) * n;
    const Scalar relative = rowVelocity(r, current);
    if (!infeasible(r, relative)) continue;
    any = true;
    Scalar* next = enumerationStack.data() + static_cast<std::size_t>(level + 1) * n;
    std::copy(current, current + n, next);
    applyImpulse(r, -2 * relative / rows[static_cast<std::size_t>(r)].d, next);
    enumerate(level + 1, r);
    if (enumerationIncomplete) return;
  }
  if (any) return;
  // A leaf: keep it if it differs from every stored outcome.
  const Scalar* outcome = enumerationStack.data() + static_cast<std::size_t>(level) * n;
  Eigen::Map<VectorX> scratchA = problemVector(scratchAStorage);
  Eigen::Map<VectorX> scratchB = problemVector(scratchBStorage);
  scatter(outcome, scratchA.data());
  const Scalar tolerance = options->certificateTolerance * scale;
  for (int k = 0; k < leafCount; ++k) {
    scatter(leaves.data() + static_cast<std::size_t>(k) * n, scratchB.data());
    scratchB -= scratchA;
    if (std::sqrt(std::max(Scalar(0), kineticInner(scratchB, scratchB))) <= tolerance) return;
  }
  if (leafCount >= 256) {
    enumerationIncomplete = true;
    return;
  }
  leaves.resize(static_cast<std::size_t>(leafCount + 1) * n);
  std::copy(outcome, outcome + n, leaves.data() + static_cast<std::size_t>(leafCount) * n);
  ++leafCount;
}

void ImpactResolver::Workspace::analyse(ImpactResult& result) {
  const auto m = static_cast<Index>(active.size());
  const int inputCount = problem->contactCount();
  result.certificateTolerance = options->certificateTolerance;
  if (static_cast<int>(active.size()) > options->analysisContactLimit) {
    result.gram.resize(0, 0);
    result.certificate = UniquenessCertificate::NotAnalysed;
    result.energySplitComputed = false;
    return;
  }
  // Gram matrix of unit normals over the input contacts (reported only when
  // the input is small enough; the certificate uses the cluster's rows).
  if (inputCount <= options->analysisContactLimit) {
    result.gram.setZero(inputCount, inputCount);
    for (int i = 0; i < inputCount; ++i) {
      const Row& ri = rows[static_cast<std::size_t>(i)];
      if (ri.representative < 0) continue;  // ignored, or outside the grown cluster
      for (int j = 0; j < inputCount; ++j) {
        const Row& rj = rows[static_cast<std::size_t>(j)];
        if (rj.representative < 0) continue;
        Scalar value = 0;
        for (int t = 0; t < ri.termCount; ++t)
          for (int u = 0; u < rj.termCount; ++u) {
            if (ri.terms[t].group != rj.terms[u].group) continue;
            const Index size = groups[static_cast<std::size_t>(ri.terms[t].group)].size;
            for (Index x = 0; x < size; ++x)
              value += coefficients[static_cast<std::size_t>(ri.terms[t].offset + x)] *
                       w[static_cast<std::size_t>(rj.terms[u].offset + x)];
          }
        result.gram(i, j) = value * ri.invSqrtD * rj.invSqrtD;
      }
    }
  } else {
    result.gram.resize(0, 0);
  }
  // T_c = ½ (A v)ᵀ (A M⁻¹ Aᵀ)⁺ (A v) with A the (merged) contact rows (seed 004).
  ensureDelassus();
  SmallMatrix W(m, m);
  SmallVector constrainedVelocity(m);
  for (Index a = 0; a < m; ++a) {
    for (Index b = 0; b < m; ++b) W(a, b) = delassus[static_cast<std::size_t>(a + b * m)];
    const int r = active[static_cast<std::size_t>(a)];
    constrainedVelocity[a] = rowVelocity(r, v0.data()) - rows[static_cast<std::size_t>(r)].bias;
  }
  Scalar constrained = 0;
  if (m > 0) {
    Eigen::SelfAdjointEigenSolver<SmallMatrix> eig(W);
    const SmallVector values = eig.eigenvalues();
    const Scalar cutoff = 1e-12 * values.cwiseAbs().maxCoeff();
    const SmallVector projected = eig.eigenvectors().transpose() * constrainedVelocity;
    for (Index k = 0; k < m; ++k)
      if (values[k] > cutoff) constrained += projected[k] * projected[k] / values[k];
  }
  result.constrainedEnergy = 0.5 * constrained;
  result.admissibleEnergy = result.energyBefore - result.constrainedEnergy;
  result.energySplitComputed = true;

  // Uniqueness certificate.
  const Scalar tolerance = options->certificateTolerance;
  if (m <= 1) {
    result.certificate = UniquenessCertificate::Trivial;
    return;
  }
  const auto unitGram = [&](Index a, Index b) {
    return W(a, b) * rows[static_cast<std::size_t>(active[static_cast<std::size_t>(a)])].invSqrtD *
           rows[static_cast<std::size_t>(active[static_cast<std::size_t>(b)])].invSqrtD;
  };
  bool orthogonal = true;
  for (Index a = 0; a < m && orthogonal; ++a)
    for (Index b = a + 1; b < m && orthogonal; ++b) orthogonal = std::abs(unitGram(a, b)) <= tolerance;
  if (orthogonal) {
    result.certificate = UniquenessCertificate::Orthogonal;
    return;
  }
  if (m == 2 && std::abs(unitGram(0, 1) + 0.5) <= tolerance) {
    result.certificate = UniquenessCertificate::ThirdOfPi;
    return;
  }
  result.certificate = UniquenessCertificate::None;
  if (m <= options->enumerationContactLimit) {
    leafCount = 0;
    enumerationNodes = 0;
    enumerationIncomplete = false;
    const auto n = static_cast<std::size_t>(dofs);
    if (enumerationStack.size() < 2 * n) enumerationStack.resize(2 * n);
    std::copy(v0.begin(), v0.end(), enumerationStack.begin());
    enumerate(0, -1);
    if (!enumerationIncomplete && leafCount == 1) result.certificate = UniquenessCertificate::AllOrdersAgree;
  }
}

void ImpactResolver::resolve(const ImpactProblem& problem, const ResolveOptions& options, ImpactResult& result) {
  checkOptions(options);
  Workspace& ws = *m_work;
  ws.problem = &problem;
  ws.options = &options;
  ws.delassusReady = false;

  const Index n = problem.dofCount();
  const int contactCount = problem.contactCount();
  result.sequence.clear();
  result.reflections = 0;
  result.capHit = false;
  result.fallback = Fallback::None;
  result.plasticMethod = PlasticMethod::NotNeeded;
  result.plasticResidual = 0;
  result.plasticIterations = 0;
  result.mergedDuplicates = 0;
  result.ignoredRows = 0;
  result.xiComputed = false;
  result.xi = 0;
  result.xiOrders = options.xiOrders;
  result.alpha = 1;
  result.restitution = 1;
  result.energySplitComputed = false;
  result.constrainedEnergy = 0;
  result.admissibleEnergy = 0;
  result.energyPlastic = 0;
  result.certificate = UniquenessCertificate::None;
  result.certificateTolerance = options.certificateTolerance;
  result.impulses.setZero(contactCount);

  ws.buildMetric();
  for (const Row& row : ws.rows)
    if (row.representative < 0) ++result.ignoredRows;

  Eigen::Map<VectorX> v0Problem = ws.problemVector(ws.v0ProblemStorage);
  v0Problem = Eigen::Map<const VectorX>(problem.velocityData(), n);
  ws.v0.resize(static_cast<std::size_t>(n));
  ws.gather(v0Problem.data(), ws.v0.data());
  // The impact acts on the admissible motions only: a joint velocity error
  // (B v ≠ 0, e.g. a mid-step gravity kick along a pendulum's string) is set
  // aside and added back unchanged, so reflections conserve T_a exactly and
  // T_c is untouched (seed 004: T = T_a + T_c).
  ws.vConstraint.assign(static_cast<std::size_t>(n), 0);
  if (ws.anyProjector) {
    for (std::size_t gi = 0; gi < ws.groups.size(); ++gi) {
      if (ws.projectorOffset[gi] < 0) continue;
      const Group& g = ws.groups[gi];
      Eigen::Map<const MatrixX> projector(ws.constraintProjector.data() + ws.projectorOffset[gi], g.size, g.size);
      Eigen::Map<VectorX> violating(ws.vConstraint.data() + g.offset, g.size);
      Eigen::Map<VectorX> velocity(ws.v0.data() + g.offset, g.size);
      violating.noalias() = projector * velocity;
      velocity -= violating;
    }
  }
  Eigen::Map<VectorX> vConstraintProblem = ws.problemVector(ws.vConstraintProblemStorage);
  ws.scatter(ws.vConstraint.data(), vConstraintProblem.data());
  if (ws.anyProjector && options.jointErrorAsBias) {
    // A contact sees the whole velocity: the joint-violating part enters its
    // relative velocity as a constant, like a kinematic body's motion.
    for (std::size_t r = 0; r < ws.rows.size(); ++r) {
      Row& row = ws.rows[r];
      if (row.termCount == 0) continue;
      const Scalar carried = ws.rowVelocity(static_cast<int>(r), ws.vConstraint.data()) - row.bias;
      if (carried != 0) {
        row.bias += carried;
        ws.anyBias = true;
      }
    }
  }
  // Duplicates must agree in that constant too, so they are found only now.
  result.energyBefore = ws.kineticEnergy(v0Problem);
  ws.duplicateSpeedScale = std::sqrt(2 * result.energyBefore);
  ws.findDuplicates(result);
  ws.v = ws.v0;
  ws.s.resize(ws.rows.size());

  Scalar largestApproach = 0;
  for (const int r : ws.active)
    largestApproach = std::max(largestApproach, std::abs(ws.rowVelocity(r, ws.v0.data()) * ws.rows[static_cast<std::size_t>(r)].invSqrtD));
  ws.scale = std::max(std::sqrt(2 * result.energyBefore), largestApproach);
  ws.threshold = options.feasibilityTolerance * ws.scale;
  ws.quantum = options.tieTolerance * (ws.scale > 0 ? ws.scale : 1);
  result.reflectionCap = ws.capFor();
  ws.grow = options.growFromSeeds;

  // Elastic propagation (eq. 14), with the cap and its fallback.
  ws.lambdaElastic.assign(ws.rows.size(), 0);
  ws.lambdaPlastic.assign(ws.rows.size(), 0);
  bool capHit = false;
  result.reflections = ws.propagate(options.ordering, ws.v.data(), ws.lambdaElastic.data(), &result.sequence,
                                    result.reflectionCap, capHit);
  result.inCluster.assign(static_cast<std::size_t>(contactCount), 0);
  for (int i = 0; i < contactCount; ++i) {
    const int r = ws.rows[static_cast<std::size_t>(i)].representative;
    result.inCluster[static_cast<std::size_t>(i)] = r >= 0 && ws.awake[static_cast<std::size_t>(r)];
  }
  if (ws.grow) {
    // Contacts the propagation never reached are not part of this impact.
    for (std::size_t i = 0; i < ws.rows.size(); ++i)
      if (ws.rows[i].representative >= 0 && !ws.awake[static_cast<std::size_t>(ws.rows[i].representative)])
        ws.rows[i].representative = -2;
    ws.buildAdjacency();
    ws.delassusReady = false;
    ws.grow = false;
  }
  ws.analyse(result);
  if (capHit) {
    result.capHit = true;
    result.fallback = ws.settleCapped(ws.v.data(), ws.lambdaElastic.data(), &result);
  }
  result.elasticVelocity.resize(n);
  ws.scatter(ws.v.data(), result.elasticVelocity.data());
  result.elasticVelocity += vConstraintProblem;
  result.energyElastic = ws.kineticEnergy(result.elasticVelocity);

  // One coefficient for the problem (rule documented in the header).
  Scalar weighted = 0;
  Scalar weights = 0;
  Scalar smallest = 1;
  bool uniform = true;
  Scalar first = -1;
  for (const int r : ws.active) {
    const Row& row = ws.rows[static_cast<std::size_t>(r)];
    weighted += row.restitution * ws.lambdaElastic[static_cast<std::size_t>(r)];
    weights += ws.lambdaElastic[static_cast<std::size_t>(r)];
    smallest = std::min(smallest, row.restitution);
    if (first < 0) first = row.restitution;
    if (row.restitution != first) uniform = false;
  }
  Scalar restitution = uniform ? (first < 0 ? 1 : first) : (weights > 0 ? weighted / weights : smallest);
  restitution = std::clamp(restitution, Scalar(0), Scalar(1));
  result.restitution = restitution;

  if (restitution < 1) {
    std::vector<Scalar>& plasticInternal = ws.vPlastic;
    plasticInternal.resize(static_cast<std::size_t>(n));
    ws.solvePlastic(ws.v0.data(), plasticInternal.data(), ws.lambdaPlastic.data(), &result, ws.lambdaElastic.data());
    result.plasticVelocity.resize(n);
    ws.scatter(plasticInternal.data(), result.plasticVelocity.data());
    result.plasticVelocity += vConstraintProblem;
    result.energyPlastic = ws.kineticEnergy(result.plasticVelocity);
    result.alpha = ws.blendAlpha(result.elasticVelocity, result.plasticVelocity, result.energyBefore,
                                 result.energyPlastic, restitution);
    result.velocity = result.plasticVelocity + result.alpha * (result.elasticVelocity - result.plasticVelocity);
  } else {
    result.plasticVelocity.resize(0);  // not needed (sized 0 only here, so a reused result keeps its storage)
    result.alpha = 1;
    result.velocity = result.elasticVelocity;
  }
  result.energyAfter = ws.kineticEnergy(result.velocity);

  // Impulses: linear in the blend; duplicates share their row's impulse.
  std::vector<int>& shareCount = ws.scratchSequence;
  shareCount.assign(ws.rows.size(), 0);
  for (std::size_t i = 0; i < ws.rows.size(); ++i)
    if (ws.rows[i].representative >= 0) ++shareCount[static_cast<std::size_t>(ws.rows[i].representative)];
  for (std::size_t i = 0; i < ws.rows.size(); ++i) {
    const int r = ws.rows[i].representative;
    if (r < 0) continue;
    const auto rr = static_cast<std::size_t>(r);
    const Scalar total = result.alpha * ws.lambdaElastic[rr] + (1 - result.alpha) * ws.lambdaPlastic[rr];
    result.impulses[static_cast<Index>(i)] = std::max(Scalar(0), total) / shareCount[rr];
  }

  // ξ over the named set of orders (Sec. VII-A).
  if (options.computeXi) {
    result.xiComputed = true;
    const Scalar norm0 = std::sqrt(2 * result.energyBefore);
    std::vector<VectorX> outcomes;
    const auto finalFromElastic = [&](const VectorX& elastic) {
      if (restitution >= 1 || result.plasticVelocity.size() == 0) return elastic;
      const Scalar alpha =
          ws.blendAlpha(elastic, result.plasticVelocity, result.energyBefore, result.energyPlastic, restitution);
      return VectorX(result.plasticVelocity + alpha * (elastic - result.plasticVelocity));
    };
    XiOrderSet set = options.xiOrders;
    if (set == XiOrderSet::AllOrders) {
      if (static_cast<int>(ws.active.size()) <= std::max(options.enumerationContactLimit, 1)) {
        ws.leafCount = 0;
        ws.enumerationNodes = 0;
        ws.enumerationIncomplete = false;
        const auto nn = static_cast<std::size_t>(n);
        if (ws.enumerationStack.size() < 2 * nn) ws.enumerationStack.resize(2 * nn);
        std::copy(ws.v0.begin(), ws.v0.end(), ws.enumerationStack.begin());
        ws.enumerate(0, -1);
        if (!ws.enumerationIncomplete) {
          for (int k = 0; k < ws.leafCount; ++k) {
            VectorX leaf(n);
            ws.scatter(ws.leaves.data() + static_cast<std::size_t>(k) * nn, leaf.data());
            leaf += vConstraintProblem;
            outcomes.push_back(finalFromElastic(leaf));
          }
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
        std::vector<Scalar> velocity(ws.v0);
        ws.lambdaScratch.assign(ws.rows.size(), 0);
        bool hit = false;
        ws.propagate(order, velocity.data(), ws.lambdaScratch.data(), nullptr, result.reflectionCap, hit);
        if (hit) ws.settleCapped(velocity.data(), ws.lambdaScratch.data(), nullptr);
        VectorX elastic(n);
        ws.scatter(velocity.data(), elastic.data());
        elastic += vConstraintProblem;
        outcomes.push_back(finalFromElastic(elastic));
      }
    }
    result.xiOrders = set;
    Scalar largest = 0;
    for (std::size_t a = 0; a < outcomes.size(); ++a)
      for (std::size_t b = a + 1; b < outcomes.size(); ++b) {
        const VectorX difference = outcomes[a] - outcomes[b];
        largest = std::max(largest, std::sqrt(std::max(Scalar(0), ws.kineticInner(difference, difference))));
      }
    result.xi = norm0 > 0 ? largest / norm0 : 0;
  }
}

ImpactResult ImpactResolver::resolve(const ImpactProblem& problem, const ResolveOptions& options) {
  ImpactResult result;
  resolve(problem, options, result);
  return result;
}

}  // namespace propimpact
