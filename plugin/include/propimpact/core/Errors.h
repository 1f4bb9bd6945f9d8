#pragma once
/// \file Errors.h
/// Typed errors for invalid impact problems. The core throws these only while a
/// problem is being built or validated, never in the middle of a resolution:
/// once a problem is accepted, resolution always returns.

#include <stdexcept>
#include <string>

namespace propimpact {

/// What was wrong with an input.
enum class ErrorCode {
  NonFiniteVelocity,       ///< NaN or infinite velocity component.
  NonFiniteMass,           ///< NaN or infinite mass / inertia entry.
  NonPositiveMass,         ///< Zero or negative mass on a dynamic body.
  MassNotPositiveDefinite, ///< Dense mass matrix not symmetric positive definite.
  FractionalFactor,        ///< Linear/angular factor other than 0 or 1 (no symmetric metric exists).
  NonFiniteRow,            ///< NaN or infinite constraint row coefficient or bias.
  ZeroNormRow,             ///< A contact or bilateral row whose coefficients are all zero.
  RestitutionOutOfRange,   ///< Restitution coefficient outside [0, 1] or NaN.
  BadBlockIndex,           ///< Row references a block that does not exist.
  DimensionMismatch,       ///< Sizes of matrices and vectors disagree.
  BadOption,               ///< A resolver option outside its documented range.
  DependentRows,           ///< Constraint rows linearly dependent where independence is required (resolveInert).
  BadFriction,             ///< Friction coefficient negative, NaN or infinite, or a second entry for one contact.
};

/// Human-readable name of an error code.
const char* toString(ErrorCode code);

/// Thrown for invalid input; carries the code so callers can branch on it.
class InputError : public std::invalid_argument {
 public:
  /// \param code what was wrong; \param detail which item and value.
  InputError(ErrorCode code, const std::string& detail);
  /// The typed reason.
  [[nodiscard]] ErrorCode code() const noexcept { return m_code; }

 private:
  ErrorCode m_code;
};

}  // namespace propimpact
