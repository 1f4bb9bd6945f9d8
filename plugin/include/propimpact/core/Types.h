#pragma once
/// \file Types.h
/// Scalar and Eigen aliases used by the whole engine-independent core.
///
/// The core always computes in double precision, whatever precision the Bullet
/// build uses: the energy statements of the papers (conservation to round-off,
/// eq. (16) of Seghete & Murphey) are only testable at 1e-12 in double. The
/// Bullet adapter converts btScalar at its boundary.

#include <Eigen/Core>
#include <Eigen/Geometry>
#include <cstdint>

namespace propimpact {

/// The core's scalar type (always double; see the file comment for why).
using Scalar = double;
/// Index type for sizes and positions, Eigen's own.
using Index = Eigen::Index;
/// Dynamic column vector.
using VectorX = Eigen::Matrix<Scalar, Eigen::Dynamic, 1>;
/// Dynamic matrix.
using MatrixX = Eigen::Matrix<Scalar, Eigen::Dynamic, Eigen::Dynamic>;
/// 3-vector.
using Vector3 = Eigen::Matrix<Scalar, 3, 1>;
/// 6-vector: a rigid body's generalized velocity [linear; angular].
using Vector6 = Eigen::Matrix<Scalar, 6, 1>;
/// 3x3 matrix.
using Matrix3 = Eigen::Matrix<Scalar, 3, 3>;
/// 6x6 matrix.
using Matrix6 = Eigen::Matrix<Scalar, 6, 6>;

/// A block id meaning "no dynamic body": static ground or a kinematic body.
constexpr int kNoBlock = -1;

}  // namespace propimpact
