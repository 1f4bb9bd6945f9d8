#pragma once
// Turns arbitrary bytes into an impact problem plus options, and checks the
// resolver's invariants on the outcome. Shared by the libFuzzer target (which
// aborts on a failure), the regression tests (which replay what the fuzzer
// found) and the determinism test (which feeds it seeded random bytes), so a
// finding reproduces under gcc in the ordinary test build.
//
// Exhausted input reads as zero bytes, and every rare feature is chosen by a
// non-zero byte value, so short inputs give small, plain problems.
//
// Declarations only: the generator is in ProblemBuilder.cpp and the checks in
// ProblemCheck.cpp, compiled once (the regression suite's 14 files each
// compiled all of it inline, most of CI's sanitizer build).

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "propimpact/core/Errors.h"
#include "propimpact/core/ImpactProblem.h"
#include "propimpact/core/ImpactResolver.h"
#include "propimpact/core/ImpactResult.h"
#include "propimpact/core/ResolveOptions.h"

namespace propimpact::fuzz {

class ByteReader {
 public:
  ByteReader(const std::uint8_t* data, std::size_t size) : m_data(data), m_size(size) {}
  std::uint8_t byte() { return m_pos < m_size ? m_data[m_pos++] : 0; }
  std::uint16_t u16() {
    const auto low = static_cast<std::uint16_t>(byte());
    return static_cast<std::uint16_t>(low | (static_cast<std::uint16_t>(byte()) << 8));
  }
  std::uint64_t u64() {
    std::uint64_t x = 0;
    for (int k = 0; k < 4; ++k) x = (x << 16) | u16();
    return x;
  }
  Scalar unit() { return u16() / Scalar(65535); }
  Scalar signedUnit() { return 2 * unit() - 1; }
  // Read one at a time, in order: the arguments of a constructor or operator
  // are evaluated in an unspecified order (gcc right to left, clang left to
  // right), and reading them inline built different problems from the same
  // bytes under the fuzzer (clang) and the regression tests (gcc).
  Vector3 signedUnitVector() {
    const Scalar x = signedUnit();
    const Scalar y = signedUnit();
    const Scalar z = signedUnit();
    return Vector3(x, y, z);
  }
  // Inclusive range; hi - lo < 256.
  int range(int lo, int hi) { return lo + static_cast<int>(byte() % (hi - lo + 1)); }
  // True with probability 1/oneIn; a zero byte (exhausted input) is false.
  bool chance(int oneIn) { return byte() % oneIn == static_cast<unsigned>(oneIn - 1); }
  Scalar power(Scalar loExponent, Scalar hiExponent) {
    return std::pow(Scalar(10), loExponent + (hiExponent - loExponent) * unit());
  }

 private:
  const std::uint8_t* m_data;
  std::size_t m_size;
  std::size_t m_pos = 0;
};

struct Case {
  ImpactProblem problem;
  ResolveOptions options;
  bool checkDeterminism = false;
  std::string description;
  /// The velocity the kinematic biases were made feasible for (empty without
  /// biases); check() takes it to bound how far from feasible the best outcome can be.
  VectorX witness;
};

/// Relative tolerances of the checks. The resolver itself works to
/// feasibilityTolerance (1e-10 by default); the checks allow round-off on top.
struct Tolerances {
  Scalar feasibility = 1e-8;
  Scalar energy = 1e-9;
  Scalar momentum = 1e-7;
  Scalar plasticResidual = 1e-6;
  Scalar cancellation = 1e-13;  // relative to the sum of the impulses' sizes (≈ 450 ulps)
};

/// Builds a case from bytes. Throws InputError when the bytes describe an
/// invalid problem (the caller treats that as a rejected input).
/// What build() makes of a witness direction that is only round-off of the
/// joints' projection (ProblemBuilder.cpp).
enum class RoundOffWitness {
  Dropped,  ///< the witness is v0: every case with biases has a feasible outcome.
  Kept,     ///< scaled up as before 2026-11-25, when some inputs built infeasible cases this way;
            ///< older regression tests keep those problems as adversarial cases.
};
void build(const std::uint8_t* data, std::size_t size, Case& out, RoundOffWitness roundOff = RoundOffWitness::Dropped);

bool sameBits(const VectorX& a, const VectorX& b);

/// M⁻¹ restricted to the motions the joints admit, M⁻¹ − M⁻¹Bᵀ(BM⁻¹Bᵀ)⁺BM⁻¹,
/// computed as (L U⊥)(L U⊥)ᵀ with M⁻¹ = LLᵀ and U⊥ the left null space of
/// A = LᵀBᵀ from an SVD (the resolver takes it from a QR: an independent
/// route to the same matrix). Singular values at or below 1e-6 of the largest
/// count as zero, the resolver's documented rank cut-off.
MatrixX admissibleInverseMass(const ImpactProblem& p);

/// The largest singular value of A = LᵀBᵀ (M⁻¹ = LLᵀ) that the rank cut-off
/// (1e-6 of the largest) drops: joint rows within that of the others' span are
/// treated as dependent and enforced only to it. Zero when none is dropped.
Scalar droppedJointSingularValue(const ImpactProblem& p);

/// Per block, a representative block of its joint-connected group (blocks
/// that bilateral rows tie together share one).
std::vector<int> jointGroups(const ImpactProblem& p);

/// The largest κ(M) over the groups of blocks joints tie together (blocks
/// without joints do not count): max eigenvalue of the group's M over its
/// smallest positive one.
Scalar jointGroupConditioning(const ImpactProblem& p);

/// Per contact row, what "round-off of J M⁻¹ Jᵀ" is measured against:
/// Σ over the joint-connected groups it touches of |J_group|² · max|M⁻¹_group|
/// (ImpactResolver's documented reference).
VectorX rowReferences(const ImpactProblem& p, const MatrixX& j);

/// 1 for a contact row some admissible motion moves, 0 for one the resolver
/// ignores: J M⁻¹_c Jᵀ at most 1e-13 of its reference (rowReferences).
VectorX movableRows(const ImpactProblem& p, const MatrixX& j, const MatrixX& admissible);

/// ½(after − before)ᵀ M (after + before) in long double, M built from the
/// data the problem was given (a rigid body's M⁻¹, a dense block's M) rather
/// than from the Scalar inverse ImpactProblem keeps (EnergyChange.cpp).
Scalar energyChange(const ImpactProblem& p, const VectorX& before, const VectorX& after);

/// Checks every invariant; returns an empty string when all hold, else what failed.
std::string check(const ImpactProblem& p, const ResolveOptions& o, const ImpactResult& r,
                  const Tolerances& tol = {}, const VectorX& witness = VectorX());

/// Resolves the case and checks it (and, when the case asks, that resolving it
/// again with the same and with a fresh resolver gives the same bits).
std::string resolveAndCheck(Case& c, const Tolerances& tol = {});

/// The same with \p resolver, which may have resolved other problems before:
/// the fuzz entry keeps one for all inputs, as an engine keeps one per world.
/// Constructing a resolver zeroes its fixed-size workspace (CapForecast's
/// Gram matrix), and doing that per input was 6 % of the fuzzer's CPU time
/// (perf). The determinism check's fresh resolver then also compares against
/// a used one, so state carried between problems shows as a difference.
std::string resolveAndCheck(Case& c, ImpactResolver& resolver, const Tolerances& tol = {});

}  // namespace propimpact::fuzz
