#include "propimpact/core/ReflectionMap.h"

namespace propimpact {

Scalar kineticInner(const Eigen::Ref<const MatrixX>& inverseMass, const Eigen::Ref<const VectorX>& a,
                    const Eigen::Ref<const VectorX>& b) {
  return a.dot(inverseMass * b);
}

MatrixX reflectionMap(const Eigen::Ref<const MatrixX>& inverseMass, const Eigen::Ref<const VectorX>& u,
                      Scalar restitution) {
  const Index n = u.size();
  const VectorX minvU = inverseMass * u;
  return MatrixX::Identity(n, n) - (1 + restitution) * minvU * u.transpose() / u.dot(minvU);
}

}  // namespace propimpact
