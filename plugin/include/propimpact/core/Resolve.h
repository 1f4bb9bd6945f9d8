#pragma once
/// \file Resolve.h
/// Dense entry point for analysis: the papers' examples in a few lines.
///
/// \code
///   Eigen::MatrixXd M = Eigen::MatrixXd::Identity(3, 3);        // three unit balls
///   Eigen::VectorXd v(3); v << 1, 0, 0;                          // A hits B, B–C touching
///   Eigen::MatrixXd J(2, 3); J << -1, 1, 0,  0, -1, 1;            // gaps x_B − x_A, x_C − x_B
///   auto r = propimpact::resolveDense(M, v, J, 1.0);
///   // r.velocity == (0, 0, 1), r.sequence == {0, 1, 0}
/// \endcode

#include "propimpact/core/ImpactResult.h"
#include "propimpact/core/ResolveOptions.h"
#include "propimpact/core/Types.h"

namespace propimpact {

/// Resolves the impact of generalized velocity \p v with SPD mass matrix \p M
/// and contact rows \p J (one row per contact, J v ≥ 0 feasible), every contact
/// with coefficient \p restitution. Throws InputError for bad input.
[[nodiscard]] ImpactResult resolveDense(const Eigen::Ref<const MatrixX>& M, const Eigen::Ref<const VectorX>& v,
                                        const Eigen::Ref<const MatrixX>& J, Scalar restitution,
                                        const ResolveOptions& options = {});

/// As above with one coefficient per contact and optional constant terms b
/// (relative velocity J v + b; empty b means zero).
[[nodiscard]] ImpactResult resolveDense(const Eigen::Ref<const MatrixX>& M, const Eigen::Ref<const VectorX>& v,
                                        const Eigen::Ref<const MatrixX>& J,
                                        const Eigen::Ref<const VectorX>& restitutions,
                                        const Eigen::Ref<const VectorX>& biases, const ResolveOptions& options = {});

}  // namespace propimpact
