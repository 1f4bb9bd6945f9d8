#pragma once
/// \file ImpactProblem.h
/// One simultaneous-impact problem in generalized coordinates (SPEC §1).
///
/// Degrees of freedom come in *blocks*, each with its own symmetric mass and
/// inverse-mass matrix: a free rigid body is a 6-dof block [v; ω] in world
/// axes, a dense analysis problem is one block holding the whole generalized
/// velocity. Contact rows J_i (the covector Dφ_i) are sparse over at most two
/// blocks; the relative normal velocity is J_i v + b_i, with the constant b_i
/// carrying a kinematic body's prescribed motion. Bilateral rows (joints) must
/// stay satisfied: the impact then happens in the metric of admissible motions
/// (seed 004, SPEC §6).
///
/// Storage is flat and reused across clear() so a world can rebuild a problem
/// every step without heap traffic once capacities have grown.

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "propimpact/core/Errors.h"
#include "propimpact/core/Types.h"

namespace propimpact {

/// A rigid body's inertial data as a physics engine holds it (Bullet's names).
struct RigidBodyInput {
  Scalar inverseMass = 1;                               ///< > 0 for a dynamic body.
  Matrix3 inverseInertiaWorld = Matrix3::Identity();    ///< symmetric PSD; zero rows lock axes.
  Vector3 linearVelocity = Vector3::Zero();             ///< world frame.
  Vector3 angularVelocity = Vector3::Zero();            ///< world frame.
  Vector3 linearFactor = Vector3::Ones();               ///< each 0 or 1 (world axes).
  Vector3 angularFactor = Vector3::Ones();              ///< each 0 or 1 (world axes).
};

/// A rigid body's block in compact form: M = m I₃ ⊕ I and M⁻¹ = diag(l) ⊕ A
/// with zero coupling (l = m⁻¹ times the linear factors, A the angular
/// metric of addRigidBody, I the inertia). 22 numbers where two dense 6 × 6
/// matrices took 72: those were most of addRigidBody's cost and of a large
/// problem's memory traffic (callgrind, the core chain).
struct RigidInertia {
  Scalar inverseLinear[3];   ///< M⁻¹'s linear diagonal.
  Scalar linearMass;         ///< M's linear diagonal (the same on every axis).
  Scalar inverseAngular[9];  ///< M⁻¹'s angular part, symmetric, column-major.
  Scalar angularMass[9];     ///< M's angular part, symmetric, column-major.

  /// The dense 6 × 6 M and M⁻¹ (zero coupling), for code that needs a matrix.
  [[nodiscard]] Matrix6 mass() const {
    Matrix6 m = Matrix6::Zero();
    for (int k = 0; k < 3; ++k) m(k, k) = linearMass;
    m.bottomRightCorner<3, 3>() = Eigen::Map<const Matrix3>(angularMass);
    return m;
  }
  [[nodiscard]] Matrix6 inverse() const {
    Matrix6 m = Matrix6::Zero();
    for (int k = 0; k < 3; ++k) m(k, k) = inverseLinear[k];
    m.bottomRightCorner<3, 3>() = Eigen::Map<const Matrix3>(inverseAngular);
    return m;
  }
};

/// Where one block lives in the flat arrays.
struct BlockLayout {
  Index velocityOffset = 0;  ///< first generalized-velocity component.
  Index size = 0;            ///< number of dofs.
  /// A dense block's: first entry of its size x size (column-major) matrices
  /// in massData() / inverseMassData(). A rigid block has none there (see rigid).
  Index matrixOffset = 0;
  /// A rigid body's block (addRigidBody): M and M⁻¹ are a diagonal linear
  /// part and a symmetric angular part with zero coupling, stored compactly
  /// (ImpactProblem::rigidInertia), which the resolver's kernels use instead
  /// of multiplying full 6 × 6 matrices.
  bool rigid = false;
  /// A rigid body that may have axes no impulse moves (a locked factor, or an
  /// inverse inertia whose smallest principal value is cut to zero): its
  /// velocity along them is prescribed motion, like a kinematic body's. False
  /// for a free body with a well-conditioned inertia, which has none.
  bool immobileAxes = false;
};

/// One block's part of a sparse row.
struct RowTerm {
  int block = kNoBlock;       ///< which block.
  Index coefficientOffset = 0; ///< first of block-size coefficients in the row storage.
};

/// A sparse row over at most two blocks plus its data.
struct RowLayout {
  RowTerm terms[2];         ///< terms[1].block == kNoBlock for a one-block row.
  Scalar bias = 0;          ///< b_i: relative velocity is J_i v + b_i.
  Scalar restitution = 1;   ///< Newton/energetic coefficient R_i in [0, 1].
  std::uint64_t canonicalKey = 0; ///< tie-break key independent of storage order.
  bool seed = true;         ///< with ResolveOptions::growFromSeeds, only seeds start in the cluster.
  Scalar restingSpeed = 0;  ///< approach below this (units of J v) is resting, not infeasible.
};

/// Upper bounds of a problem's size, for sizing buffers ahead of time
/// (ImpactProblem::reserve, ImpactResolver::reserve): a world step sizes them
/// by its island, which no cluster of the island can outgrow, so that a
/// cluster larger than any before allocates nothing.
struct ProblemBounds {
  int blocks = 0;           ///< rigid bodies and dense blocks.
  Index dofs = 0;           ///< generalized velocity components.
  Index matrixEntries = 0;  ///< entries of the dense blocks' size × size mass matrices together.
  int contacts = 0;         ///< contact rows.
  int bilaterals = 0;       ///< bilateral rows.
  Index rowEntries = 0;     ///< coefficients of every row together.
  /// The bounds of \p bodies rigid bodies and \p contacts rigid contacts.
  static ProblemBounds rigid(int bodies, int contacts) {
    ProblemBounds b;
    b.blocks = bodies;
    b.dofs = 6 * Index(bodies);  // rigid blocks take no matrixEntries (RigidInertia)
    b.contacts = contacts;
    b.rowEntries = 12 * Index(contacts);
    return b;
  }
};

/// Returned by a builder that rejected its input under InputErrors::Record.
constexpr int kRejected = -1;

/// How the builders below report invalid input.
enum class InputErrors {
  Throw,   ///< throw InputError with the code and a message (the default).
  Record,  ///< return kRejected (setRestingSpeed: keep 0) and record the code:
           ///< for callers inside a simulation step, which must not throw.
};

/// The problem: blocks, velocity, contact rows and bilateral rows.
class ImpactProblem {
 public:
  /// Empties the problem, keeping allocated capacity (and the error mode; the
  /// rejection count restarts).
  void clear();
  /// Removes every contact and bilateral row, keeping the blocks: a problem
  /// rebuilt over the same bodies with other rows, exactly as if it had been
  /// cleared and its blocks added again. Rejections recorded so far stay counted.
  void clearRows();

  /// Sizes the storage for a problem within \p bounds (capacity only).
  void reserve(const ProblemBounds& bounds);

  /// Chooses how invalid input is reported (InputErrors).
  void setInputErrors(InputErrors mode) { m_inputErrors = mode; }
  /// Under InputErrors::Record: inputs rejected since clear(), and the last one's code.
  [[nodiscard]] int rejectedCount() const { return m_rejected; }
  [[nodiscard]] ErrorCode lastError() const { return m_lastError; }

  /// Adds a dense block with symmetric positive definite mass matrix \p mass
  /// and velocity \p velocity. Throws InputError if \p mass is not SPD or any
  /// entry is non-finite. Returns the block id.
  int addDenseBlock(const Eigen::Ref<const MatrixX>& mass, const Eigen::Ref<const VectorX>& velocity);

  /// Adds a free rigid body (6 dofs: linear then angular velocity, world axes).
  /// Locked axes (factor 0, or zero inverse inertia) are removed with the
  /// symmetric metric S (SᵀMS)⁻¹ Sᵀ of SPEC §1. Throws InputError for a
  /// non-positive or non-finite mass, a fractional factor, or NaN velocity.
  int addRigidBody(const RigidBodyInput& body);

  /// Adds a unilateral contact row over one or two blocks. \p coefficientsA has
  /// block A's size; pass blockB = kNoBlock for contact with static or
  /// kinematic geometry. Returns the contact index. canonicalKey defaults to
  /// the contact index when left at UINT64_MAX.
  int addContactRow(int blockA, const Eigen::Ref<const VectorX>& coefficientsA, int blockB,
                    const Eigen::Ref<const VectorX>& coefficientsB, Scalar restitution, Scalar bias = 0,
                    std::uint64_t canonicalKey = UINT64_MAX);

  /// Contact between rigid bodies A and B (either may be kNoBlock but not both)
  /// with unit normal \p normalOnB pointing from B to A and contact offsets
  /// rA, rB from each body's centre of mass: J v = n·(vA + ωA×rA) − n·(vB + ωB×rB).
  int addRigidContact(int bodyA, int bodyB, const Vector3& normalOnB, const Vector3& offsetA,
                      const Vector3& offsetB, Scalar restitution, Scalar bias = 0,
                      std::uint64_t canonicalKey = UINT64_MAX);

  /// Marks contact \p i as a seed of the impact or as a touching contact that
  /// joins only when the propagation reaches it (see ResolveOptions::growFromSeeds).
  void setSeed(int i, bool seed) { m_contacts[static_cast<std::size_t>(i)].seed = seed; }

  /// Zeno tolerance of contact \p i (SPEC §7): an approach slower than
  /// \p speed (units of J v, m/s for unit normals) is resting contact, left to
  /// a resting solver, so the propagation neither reflects it nor requires it
  /// to end feasible. Default 0: every approach counts.
  /// Throws InputError for a negative or non-finite speed.
  void setRestingSpeed(int i, Scalar speed);

  /// Adds a bilateral row (joint) that must keep its velocity error through the
  /// impact. Returns its index.
  int addBilateralRow(int blockA, const Eigen::Ref<const VectorX>& coefficientsA, int blockB,
                      const Eigen::Ref<const VectorX>& coefficientsB);

  /// Number of blocks / dofs / contacts / bilateral rows.
  [[nodiscard]] int blockCount() const { return static_cast<int>(m_blocks.size()); }
  [[nodiscard]] Index dofCount() const { return m_dofs; }
  [[nodiscard]] int contactCount() const { return static_cast<int>(m_contacts.size()); }
  [[nodiscard]] int bilateralCount() const { return static_cast<int>(m_bilaterals.size()); }

  /// Read access for the resolver and for reports.
  [[nodiscard]] const BlockLayout& block(int b) const { return m_blocks[static_cast<std::size_t>(b)]; }
  [[nodiscard]] const RowLayout& contact(int i) const { return m_contacts[static_cast<std::size_t>(i)]; }
  [[nodiscard]] const RowLayout& bilateral(int i) const { return m_bilaterals[static_cast<std::size_t>(i)]; }
  [[nodiscard]] const Scalar* velocityData() const { return m_velocity.data(); }
  /// The dense blocks' M and M⁻¹ (at BlockLayout::matrixOffset, column-major).
  /// Rigid blocks are not there: see rigidInertia(), or denseMass().
  [[nodiscard]] const Scalar* massData() const { return m_mass.data(); }
  [[nodiscard]] const Scalar* inverseMassData() const { return m_inverseMass.data(); }
  /// M and M⁻¹ of block \p b, which must be rigid (BlockLayout::rigid).
  [[nodiscard]] const RigidInertia& rigidInertia(int b) const { return m_rigid[static_cast<std::size_t>(b)]; }
  /// rigidInertia(b) is rigidInertiaData()[b] (the storage is indexed by block).
  [[nodiscard]] const RigidInertia* rigidInertiaData() const { return m_rigid.data(); }
  [[nodiscard]] const Scalar* rowData() const { return m_rowCoefficients.data(); }
  /// Entries of rowData() in use (contact and bilateral rows together).
  [[nodiscard]] Index rowEntryCount() const { return m_rowEntries; }

  /// The whole generalized velocity, as a vector.
  [[nodiscard]] VectorX velocity() const;
  /// The dense generalized mass / inverse mass (block diagonal), for analysis.
  [[nodiscard]] MatrixX denseMass() const;
  [[nodiscard]] MatrixX denseInverseMass() const;
  /// The dense contact Jacobian (one row per contact) and the biases b.
  [[nodiscard]] MatrixX denseContactJacobian() const;
  [[nodiscard]] VectorX contactBiases() const;
  /// The dense bilateral Jacobian.
  [[nodiscard]] MatrixX denseBilateralJacobian() const;
  /// Kinetic energy ½ vᵀ M v of a generalized velocity of this problem.
  [[nodiscard]] Scalar kineticEnergy(const Eigen::Ref<const VectorX>& v) const;

 private:
  int addBlock(Index size, bool rigid);
  int pushRigidBlock(const RigidBodyInput& body, const Matrix3& angularMetric, const Matrix3& inertia);
  Index appendCoefficients(const Scalar* coefficients, Index count);
  /// Throws, or records and returns kRejected (InputErrors); \p describe
  /// builds the message only when it is thrown.
  int reject(ErrorCode code, const std::function<std::string()>& describe);
  /// reject(), then false: for checks that answer "is the input good?".
  bool fail(ErrorCode code, const std::function<std::string()>& describe);
  bool checkContactData(Scalar restitution, Scalar bias);
  int pushContact(RowLayout row, Scalar restitution, Scalar bias, std::uint64_t canonicalKey);
  bool checkRow(int blockA, const Eigen::Ref<const VectorX>& coefficientsA, int blockB,
                const Eigen::Ref<const VectorX>& coefficientsB, const char* what);
  RowLayout makeRow(int blockA, const Eigen::Ref<const VectorX>& coefficientsA, int blockB,
                    const Eigen::Ref<const VectorX>& coefficientsB);

  std::vector<BlockLayout> m_blocks;
  std::vector<Scalar> m_velocity;
  std::vector<Scalar> m_mass;
  std::vector<Scalar> m_inverseMass;
  // Indexed by block id, parallel to m_blocks (a dense block's entry unused):
  // one look-up for the kernels, and grown only, like the flat arrays.
  std::vector<RigidInertia> m_rigid;
  std::vector<RowLayout> m_contacts;
  std::vector<RowLayout> m_bilaterals;
  std::vector<Scalar> m_rowCoefficients;
  // Used lengths of the flat arrays. The vectors only grow (clear() keeps
  // them), so a rebuilt problem writes its entries without zero-filling them
  // first: the fill was 14 % of the core chain's instructions (callgrind).
  Index m_dofs = 0;
  Index m_matrixEntries = 0;
  Index m_rowEntries = 0;
  InputErrors m_inputErrors = InputErrors::Throw;
  ErrorCode m_lastError = ErrorCode::BadOption;  // meaningful once m_rejected > 0
  int m_rejected = 0;
};

}  // namespace propimpact
