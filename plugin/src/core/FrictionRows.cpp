// The friction stage's input: tangent rows and μ per contact (ImpactFriction.h),
// validated as they are added, and the dense analysis entry point.
#include <cmath>
#include <string>

#include "Capacity.h"
#include "propimpact/core/Errors.h"
#include "propimpact/core/ImpactFriction.h"
#include "propimpact/core/ImpactResolver.h"

namespace propimpact {
namespace {

Index termSize(const ImpactProblem& problem, const RowTerm& term) {
  return term.block == kNoBlock ? 0 : problem.block(term.block).size;
}

}  // namespace

bool FrictionRows::reject(ErrorCode code, const std::function<std::string()>& describe) {
  if (m_inputErrors == InputErrors::Throw) throw InputError(code, describe());
  m_lastError = code;
  ++m_rejected;
  return false;
}

void FrictionRows::reserve(const ProblemBounds& bounds) {
  detail::reserveCapacity(m_entries, bounds.contacts);
  detail::reserveCapacity(m_hasEntry, bounds.contacts);
  detail::reserveCapacity(m_coefficients, 2 * bounds.rowEntries);  // two tangent rows as long as the contact row
}

void FrictionRows::clear() {
  m_entries.clear();
  m_coefficients.clear();
  m_hasEntry.clear();
  m_rejected = 0;
}

bool FrictionRows::add(const ImpactProblem& problem, int contact, Scalar mu, const Eigen::Ref<const MatrixX>& tangentsA,
                       const Eigen::Ref<const MatrixX>& tangentsB, const Eigen::Vector2d& tangentBias) {
  if (contact < 0 || contact >= problem.contactCount())
    return reject(ErrorCode::BadBlockIndex, [&] {
      return "friction for contact " + std::to_string(contact) + " of " + std::to_string(problem.contactCount());
    });
  if (!std::isfinite(mu) || mu < 0)
    return reject(ErrorCode::BadFriction, [&] {
      return "friction coefficient " + std::to_string(mu) + " of contact " + std::to_string(contact) +
             " (must be finite and >= 0)";
    });
  const auto at = static_cast<std::size_t>(contact);
  if (at < m_hasEntry.size() && m_hasEntry[at])
    return reject(ErrorCode::BadFriction, [&] { return "a second friction entry for contact " + std::to_string(contact); });
  if (!tangentBias.allFinite()) return reject(ErrorCode::NonFiniteRow, [] { return "friction tangent bias"; });
  const RowLayout& row = problem.contact(contact);
  const Index sizes[2] = {termSize(problem, row.terms[0]), termSize(problem, row.terms[1])};
  const Eigen::Ref<const MatrixX>* given[2] = {&tangentsA, &tangentsB};
  // Every check before anything is stored: a rejected entry leaves no trace.
  for (int t = 0; t < 2; ++t) {
    if (sizes[t] == 0) continue;
    const auto& m = *given[t];
    if (m.rows() != 2 || m.cols() != sizes[t])
      return reject(ErrorCode::DimensionMismatch, [&] {
        return "friction tangents of contact " + std::to_string(contact) + " must be 2 x " + std::to_string(sizes[t]);
      });
    if (!m.allFinite()) return reject(ErrorCode::NonFiniteRow, [] { return "friction tangent rows"; });
  }
  Entry e;
  e.contact = contact;
  e.mu = mu;
  e.bias[0] = tangentBias[0];
  e.bias[1] = tangentBias[1];
  for (int t = 0; t < 2; ++t) {
    e.offset[t] = static_cast<Index>(m_coefficients.size());
    for (int r = 0; r < 2 && sizes[t] > 0; ++r)
      for (Index k = 0; k < sizes[t]; ++k) m_coefficients.push_back((*given[t])(r, k));
  }
  m_entries.push_back(e);
  if (m_hasEntry.size() <= at) m_hasEntry.resize(at + 1, 0);
  m_hasEntry[at] = 1;
  return true;
}

bool FrictionRows::addRigid(const ImpactProblem& problem, int contact, int bodyA, int bodyB, Scalar mu,
                            const Vector3& t1, const Vector3& t2, const Vector3& offsetA, const Vector3& offsetB,
                            const Eigen::Vector2d& tangentBias) {
  if (contact < 0 || contact >= problem.contactCount())
    return reject(ErrorCode::BadBlockIndex, [&] { return "friction for contact " + std::to_string(contact); });
  const RowLayout& row = problem.contact(contact);
  // addRigidContact stores a contact whose A is static as a one-block row on B.
  const bool onlyB = bodyA == kNoBlock;
  if (row.terms[0].block != (onlyB ? bodyB : bodyA) || row.terms[1].block != (onlyB ? kNoBlock : bodyB))
    return reject(ErrorCode::BadBlockIndex,
                  [&] { return "rigid friction bodies differ from contact " + std::to_string(contact); });
  Eigen::Matrix<Scalar, 2, 6> a;
  Eigen::Matrix<Scalar, 2, 6> b;
  a << t1.transpose(), offsetA.cross(t1).transpose(), t2.transpose(), offsetA.cross(t2).transpose();
  b << -t1.transpose(), -offsetB.cross(t1).transpose(), -t2.transpose(), -offsetB.cross(t2).transpose();
  if (onlyB) return add(problem, contact, mu, b, MatrixX(), tangentBias);
  return add(problem, contact, mu, a, b, tangentBias);
}

const char* toString(FrictionState state) {
  switch (state) {
    case FrictionState::None: return "none";
    case FrictionState::Stuck: return "stuck";
    case FrictionState::Slipping: return "slipping";
  }
  return "unknown";
}

const char* toString(FrictionOutcome outcome) {
  switch (outcome) {
    case FrictionOutcome::NotNeeded: return "not-needed";
    case FrictionOutcome::Newton: return "newton";
    case FrictionOutcome::Dissipative: return "dissipative";
    case FrictionOutcome::Reverted: return "reverted";
  }
  return "unknown";
}

ImpactResult resolveDenseWithFriction(const Eigen::Ref<const MatrixX>& M, const Eigen::Ref<const VectorX>& v,
                                      const Eigen::Ref<const MatrixX>& J, const Eigen::Ref<const VectorX>& restitutions,
                                      const Eigen::Ref<const VectorX>& mu, const Eigen::Ref<const MatrixX>& T,
                                      FrictionResult& frictionResult, const ResolveOptions& options,
                                      const FrictionOptions& frictionOptions) {
  if (J.rows() > 0 && J.cols() != v.size())
    throw InputError(ErrorCode::DimensionMismatch, "J has " + std::to_string(J.cols()) + " columns for " +
                                                       std::to_string(v.size()) + " velocity components");
  if (restitutions.size() != J.rows() || mu.size() != J.rows())
    throw InputError(ErrorCode::DimensionMismatch, "one restitution and one friction coefficient per contact row expected");
  if (T.rows() != 2 * J.rows() || (T.rows() > 0 && T.cols() != v.size()))
    throw InputError(ErrorCode::DimensionMismatch, "two tangent rows per contact, over all velocity components, expected");
  ImpactProblem problem;
  const int block = problem.addDenseBlock(M, v);
  FrictionRows friction;
  for (Index i = 0; i < J.rows(); ++i) {
    const int c = problem.addContactRow(block, J.row(i).transpose(), kNoBlock, VectorX(), restitutions[i]);
    friction.add(problem, c, mu[i], T.middleRows(2 * i, 2), MatrixX());
  }
  ImpactResolver resolver;
  ImpactResult result = resolver.resolve(problem, options);
  ImpactFriction stage;
  stage.apply(problem, friction, options, frictionOptions, result, frictionResult);
  return result;
}

}  // namespace propimpact
