// The kinetic energy change of an outcome, measured in long double against
// the mass matrix the problem's own data defines.
//
// ImpactProblem keeps M and M⁻¹ in Scalar, one of them inverted from the
// other: a rigid body is given by M⁻¹ (inverse mass and inertia), a dense
// block by M. The inverted one carries ε·κ of round-off, and ½vᵀMv measured
// with it moves by that much times |v|² although the velocity kept its
// energy: finding energy-measured-with-an-inverted-inertia-of-kappa-1e6
// "gained" 3.3e-9 of an energy of 1.8e9 with an inertia of κ = 1e6, while the
// same outcome measured here changed by −1.2e-15.
#include <Eigen/Eigenvalues>

#include "ProblemFuzzer.h"

namespace propimpact::fuzz {
namespace {

using Long = long double;
using LongMatrix = Eigen::Matrix<Long, Eigen::Dynamic, Eigen::Dynamic>;
using LongVector = Eigen::Matrix<Long, Eigen::Dynamic, 1>;

/// M of a rigid block from its M⁻¹: the linear factors' diagonal inverted
/// where non-zero, the angular part pseudo-inverted with ImpactProblem's
/// relative cut-off of 1e-12 (an axis below it has infinite inertia).
LongMatrix rigidMass(const LongMatrix& inverse) {
  LongMatrix mass = LongMatrix::Zero(6, 6);
  for (int k = 0; k < 3; ++k)
    if (inverse(k, k) > 0) mass(k, k) = 1 / inverse(k, k);
  const Eigen::SelfAdjointEigenSolver<LongMatrix> angular(inverse.block(3, 3, 3, 3));
  const LongVector values = angular.eigenvalues();
  const Long threshold = Long(1e-12) * values.cwiseAbs().maxCoeff();
  LongVector inverted = LongVector::Zero(3);
  for (int k = 0; k < 3; ++k)
    if (values[k] > threshold) inverted[k] = 1 / values[k];
  mass.block(3, 3, 3, 3) = angular.eigenvectors() * inverted.asDiagonal() * angular.eigenvectors().transpose();
  return mass;
}

}  // namespace

Scalar energyChange(const ImpactProblem& p, const VectorX& before, const VectorX& after) {
  const MatrixX givenMass = p.denseMass();
  const MatrixX givenInverse = p.denseInverseMass();
  const LongVector change = (after.cast<Long>() - before.cast<Long>());
  const LongVector sum = (after.cast<Long>() + before.cast<Long>());
  Long total = 0;
  for (int b = 0; b < p.blockCount(); ++b) {
    const BlockLayout& block = p.block(b);
    const Index o = block.velocityOffset;
    const Index n = block.size;
    const LongMatrix mass = block.rigid ? rigidMass(givenInverse.block(o, o, n, n).cast<Long>())
                                        : LongMatrix(givenMass.block(o, o, n, n).cast<Long>());
    total += change.segment(o, n).dot(mass * sum.segment(o, n)) / 2;
  }
  return static_cast<Scalar>(total);
}

}  // namespace propimpact::fuzz
