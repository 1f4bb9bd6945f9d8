#pragma once
// Stage "solver bodies": the metric the impact happens in (SPEC §1, §6).
//
// A metric group is a set of blocks tied together by bilateral rows; they
// share one dense admissible inverse mass M⁻¹_c = P_a M⁻¹ (seed 004). Without
// joints a group is exactly one block and M⁻¹_c = M⁻¹. Velocities inside the
// resolver are in group order ("internal"); gather / scatter convert from and
// to the problem's block order.

#include <Eigen/Eigenvalues>
#include <Eigen/SVD>
#include <vector>

#include "propimpact/core/DisjointSets.h"
#include "propimpact/core/ImpactProblem.h"
#include "propimpact/core/Types.h"

namespace propimpact::detail {

/// Fixed capacity of the small dense decompositions (no heap below it).
constexpr int kSmallCapacity = 64;
using SmallMatrix = Eigen::Matrix<Scalar, Eigen::Dynamic, Eigen::Dynamic, Eigen::ColMajor, kSmallCapacity, kSmallCapacity>;
using SmallVector = Eigen::Matrix<Scalar, Eigen::Dynamic, 1, Eigen::ColMajor, kSmallCapacity, 1>;

/// Below this fraction of its reference (|J|² · max|M⁻¹| before any joint's
/// projection), J M⁻¹ Jᵀ counts as zero: no admissible motion moves the row.
/// Measured against the projected metric instead, an over-constrained joint
/// (M⁻¹_c zero up to round-off) made round-off look like mobility (finding
/// contact-moved-only-by-round-off-of-an-over-constrained-joint).
constexpr Scalar kMetricNoise = 1e-13;

/// Where one metric group lives.
struct Group {
  Index offset = 0;        ///< first internal velocity component.
  Index size = 0;          ///< dofs.
  Index matrixOffset = 0;  ///< first entry of its size × size matrices (column-major); none for a rigid group.
  bool rigid = false;      ///< one rigid body's block (BlockLayout::rigid): its M⁻¹ is compact (RigidInertia).
  int block = -1;          ///< the problem's block when the group has exactly one, else -1.
};

/// w = M⁻¹ c for a rigid block (BlockLayout::rigid): the diagonal linear part
/// and the 3 × 3 angular part, 12 products instead of a 6 × 6 matrix's 36.
inline void rigidInverseMassTimes(const RigidInertia& r, const Scalar* c, Scalar* w) {
  for (int k = 0; k < 3; ++k) w[k] = r.inverseLinear[k] * c[k];
  const Scalar* a = r.inverseAngular;
  for (int k = 0; k < 3; ++k) w[3 + k] = a[k] * c[3] + a[3 + k] * c[4] + a[6 + k] * c[5];
}

/// aᵀ M b for a rigid block: diagonal linear part, 3 × 3 angular part.
inline Scalar rigidInner(const RigidInertia& r, const Scalar* a, const Scalar* b) {
  const Scalar m = r.linearMass;
  const Scalar* i = r.angularMass;
  Scalar value = a[0] * m * b[0] + a[1] * m * b[1] + a[2] * m * b[2];
  for (int k = 0; k < 3; ++k) value += a[3 + k] * (i[k] * b[3] + i[3 + k] * b[4] + i[6 + k] * b[5]);
  return value;
}

/// The groups, their admissible inverse masses and the joints' projection.
class SolverBodies {
 public:
  /// Groups the problem's blocks and computes M⁻¹_c per group.
  void build(const ImpactProblem& problem);
  /// Room for a problem within \p bounds without joints (joined groups size their own).
  void reserve(const ProblemBounds& bounds);

  /// Problem order → internal order, and back.
  void gather(const Scalar* problemOrder, Scalar* internal) const;
  void scatter(const Scalar* internal, Scalar* problemOrder) const;

  /// Removes the joint-violating part C v (seed 004's P_c) from an internal
  /// velocity and stores it, in internal order, in \p violating.
  void splitJointError(Scalar* velocity, std::vector<Scalar>& violating) const;

  /// The part of an internal velocity no impulse can change, v − M⁻¹_c M v
  /// (motion along locked or infinite-inertia axes): a prescribed motion,
  /// like a kinematic body's, that can feed energy into the contacts.
  /// With \p groups (per group, nonzero for the wanted ones) only the blocks
  /// of those groups are computed; the rest of \p out is zero.
  void prescribedPart(const Scalar* internal, std::vector<Scalar>& out, const std::vector<char>* groups = nullptr) const;

  /// aᵀ M b over the problem's blocks (problem order). \p skipZeroOfB skips
  /// the blocks where \p b is zero: the same value, bit for bit, for a b
  /// that an impact's cluster confines to a few blocks.
  [[nodiscard]] Scalar kineticInner(const Eigen::Ref<const VectorX>& a, const Eigen::Ref<const VectorX>& b,
                                    bool skipZeroOfB = false) const;
  /// aᵀ M b over block \p block alone (\p a, \p b point at its entries): the
  /// term kineticInner adds for it, so that a sum over the blocks where a
  /// vector is nonzero, in block order, is kineticInner's value.
  [[nodiscard]] Scalar blockInner(int block, const Scalar* a, const Scalar* b) const;
  /// ½ vᵀ M v, the same arithmetic as ImpactProblem::kineticEnergy without its per-block temporaries.
  [[nodiscard]] Scalar kineticEnergy(const Eigen::Ref<const VectorX>& v) const;
  /// ½ v0ᵀ M v0, remembering each block's term: until the next build(),
  /// kineticEnergy(v) takes a block's term from here where v equals \p v0 bit
  /// for bit (an impact moves the bodies of its cluster, not a whole pile),
  /// which is the same sum in the same order. \p v0's storage must outlive that.
  Scalar setReference(const Eigen::Ref<const VectorX>& v0);
  /// Whether block \p block is a rigid body whose velocity in setReference's
  /// v0 is zero in every component (until the next build()).
  [[nodiscard]] bool atRest(int block) const { return m_atRest[static_cast<std::size_t>(block)] != 0; }
  /// Whether atRest() holds for some block.
  [[nodiscard]] bool anyAtRest() const { return m_anyAtRest; }

  [[nodiscard]] const ImpactProblem& problem() const { return *m_problem; }
  [[nodiscard]] Index dofs() const { return m_dofs; }
  [[nodiscard]] const std::vector<Group>& groups() const { return m_groups; }
  [[nodiscard]] int groupOf(int block) const { return m_blockGroup[static_cast<std::size_t>(block)]; }
  [[nodiscard]] Index offsetInGroup(int block) const { return m_blockOffsetInGroup[static_cast<std::size_t>(block)]; }
  /// M⁻¹_c of group \p g (column-major, size × size); not for a rigid group (rigidInertia).
  [[nodiscard]] const Scalar* inverseMass(std::size_t g) const { return m_inverseMassBase + m_groups[g].matrixOffset; }
  /// M and M⁻¹ of a rigid group \p g (Group::rigid), which is its block's:
  /// groups are rigid only without joints, where group g is block g (one
  /// look-up in the kernels, not three).
  [[nodiscard]] const RigidInertia& rigidInertia(std::size_t g) const { return m_rigidBase[g]; }
  /// max |M⁻¹| of group \p g before the joints' projection: what "round-off of the metric" is measured against.
  [[nodiscard]] Scalar scale(std::size_t g) const { return m_groupScale[g]; }
  [[nodiscard]] bool anyJoint() const { return m_anyProjector; }
  /// Whether internal order is the problem's (no bilateral rows): gather and scatter are copies.
  [[nodiscard]] bool identityOrder() const { return m_identityOrder; }
  /// Whether every block is a rigid body's (BlockLayout::rigid).
  [[nodiscard]] bool allRigid() const { return m_allRigid; }
  /// Whether some block may have axes no impulse moves (BlockLayout::immobileAxes).
  [[nodiscard]] bool anyImmobileAxes() const { return m_anyImmobileAxes; }
  /// Whether group \p g is joined (has a projector and an exact factor F, M⁻¹_c = F Fᵀ).
  [[nodiscard]] bool joined(std::size_t g) const { return m_anyProjector && m_projectorOffset[g] >= 0; }
  /// F = L U⊥ of a joined group (layout of inverseMass, zero columns past the admissible dofs).
  [[nodiscard]] const Scalar* jointFactor(std::size_t g) const { return m_jointFactor.data() + m_groups[g].matrixOffset; }

 private:
  void buildSingleBlocks();
  void buildJoinedGroups();
  void groupByJoints();
  void projectJoints(std::size_t g);
  void blockFactor(std::size_t g, Eigen::Map<MatrixX>& factor);

  const ImpactProblem* m_problem = nullptr;
  Index m_dofs = 0;
  std::vector<Group> m_groups;
  std::vector<int> m_blockGroup;
  std::vector<Index> m_blockOffsetInGroup;
  std::vector<Scalar> m_inverseMass;          // joined groups' M⁻¹_c
  const Scalar* m_inverseMassBase = nullptr;  // m_inverseMass, or the problem's M⁻¹ without joints
  const RigidInertia* m_rigidBase = nullptr;  // the problem's rigid blocks, indexed by block
  std::vector<Scalar> m_groupScale;
  // Per joined group, C = M⁻¹Bᵀ(BM⁻¹Bᵀ)⁺B: the part of a velocity that violates the joints.
  std::vector<Scalar> m_constraintProjector;
  std::vector<Index> m_projectorOffset;
  std::vector<Scalar> m_jointFactor;
  bool m_anyProjector = false;
  bool m_identityOrder = false;  // no joints: internal order is the problem's
  bool m_allRigid = false;
  bool m_anyImmobileAxes = false;

  // Joint projection workspace: reused buffers and fixed-capacity decompositions
  // (dynamic Householder workspaces allocate), dynamic ones past kSmallCapacity.
  DisjointSets m_joined;
  std::vector<int> m_rootGroup, m_members, m_groupBlockStart, m_groupBlocks, m_fill;
  std::vector<Scalar> m_bufferB, m_bufferFactor, m_bufferTransfer;
  Eigen::JacobiSVD<SmallMatrix> m_smallJointSvd;
  Eigen::JacobiSVD<MatrixX> m_jointSvd;
  SmallMatrix m_smallJointA, m_smallJointScaled;
  mutable std::vector<Scalar> m_massTimes;
  const Scalar* m_reference = nullptr;  // setReference's velocity (problem order)
  std::vector<Scalar> m_referenceTerms;  // its per-block terms of kineticInner
  std::vector<char> m_atRest;            // per block, see atRest()
  bool m_anyAtRest = false;
};

}  // namespace propimpact::detail
