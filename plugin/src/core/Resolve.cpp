#include "propimpact/core/Resolve.h"

#include <string>

#include "propimpact/core/Errors.h"
#include "propimpact/core/ImpactProblem.h"
#include "propimpact/core/ImpactResolver.h"

namespace propimpact {

ImpactResult resolveDense(const Eigen::Ref<const MatrixX>& M, const Eigen::Ref<const VectorX>& v,
                          const Eigen::Ref<const MatrixX>& J, Scalar restitution, const ResolveOptions& options) {
  const VectorX restitutions = VectorX::Constant(J.rows(), restitution);
  return resolveDense(M, v, J, restitutions, VectorX(), options);
}

ImpactResult resolveDense(const Eigen::Ref<const MatrixX>& M, const Eigen::Ref<const VectorX>& v,
                          const Eigen::Ref<const MatrixX>& J, const Eigen::Ref<const VectorX>& restitutions,
                          const Eigen::Ref<const VectorX>& biases, const ResolveOptions& options) {
  if (J.rows() > 0 && J.cols() != v.size())
    throw InputError(ErrorCode::DimensionMismatch, "J has " + std::to_string(J.cols()) + " columns for " +
                                                       std::to_string(v.size()) + " velocity components");
  if (restitutions.size() != J.rows())
    throw InputError(ErrorCode::DimensionMismatch, "one restitution per contact row expected");
  if (biases.size() != 0 && biases.size() != J.rows())
    throw InputError(ErrorCode::DimensionMismatch, "one bias per contact row expected");
  ImpactProblem problem;
  const int block = problem.addDenseBlock(M, v);
  for (Index i = 0; i < J.rows(); ++i)
    problem.addContactRow(block, J.row(i).transpose(), kNoBlock, VectorX(), restitutions[i],
                          biases.size() ? biases[i] : Scalar(0));
  ImpactResolver resolver;
  return resolver.resolve(problem, options);
}

}  // namespace propimpact
