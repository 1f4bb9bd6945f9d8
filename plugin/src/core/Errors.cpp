#include "propimpact/core/Errors.h"

namespace propimpact {

const char* toString(ErrorCode code) {
  switch (code) {
    case ErrorCode::NonFiniteVelocity: return "non-finite velocity";
    case ErrorCode::NonFiniteMass: return "non-finite mass";
    case ErrorCode::NonPositiveMass: return "non-positive mass";
    case ErrorCode::MassNotPositiveDefinite: return "mass matrix not symmetric positive definite";
    case ErrorCode::FractionalFactor: return "fractional linear/angular factor";
    case ErrorCode::NonFiniteRow: return "non-finite constraint row";
    case ErrorCode::ZeroNormRow: return "zero-norm constraint row";
    case ErrorCode::RestitutionOutOfRange: return "restitution outside [0, 1]";
    case ErrorCode::BadBlockIndex: return "bad block index";
    case ErrorCode::DimensionMismatch: return "dimension mismatch";
    case ErrorCode::BadOption: return "bad option";
    case ErrorCode::DependentRows: return "linearly dependent constraint rows";
    case ErrorCode::BadFriction: return "bad friction coefficient";
  }
  return "unknown error";
}

InputError::InputError(ErrorCode code, const std::string& detail)
    : std::invalid_argument(std::string(toString(code)) + ": " + detail), m_code(code) {}

}  // namespace propimpact
