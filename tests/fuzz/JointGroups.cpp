// How bilateral rows group the blocks (ProblemFuzzer.h): the joint-connected
// groups and their conditioning, which the checks' round-off allowances use.
// Kept apart from ProblemCheck.cpp so that each file stays short.
#include <Eigen/Eigenvalues>
#include <algorithm>
#include <cmath>
#include <vector>

#include "ProblemFuzzer.h"

namespace propimpact::fuzz {

/// Per block, a representative block of its joint-connected group (blocks
/// that bilateral rows tie together share one).
std::vector<int> jointGroups(const ImpactProblem& p) {
  std::vector<int> parent(static_cast<std::size_t>(p.blockCount()));
  for (int b = 0; b < p.blockCount(); ++b) parent[static_cast<std::size_t>(b)] = b;
  const auto root = [&](int b) {
    while (parent[static_cast<std::size_t>(b)] != b) b = parent[static_cast<std::size_t>(b)];
    return b;
  };
  for (int k = 0; k < p.bilateralCount(); ++k) {
    const RowLayout& row = p.bilateral(k);
    if (row.terms[1].block != kNoBlock) parent[static_cast<std::size_t>(root(row.terms[0].block))] = root(row.terms[1].block);
  }
  for (int b = 0; b < p.blockCount(); ++b) parent[static_cast<std::size_t>(b)] = root(b);
  return parent;
}

/// The largest κ(M) over the groups of blocks joints tie together (blocks
/// without joints do not count): max eigenvalue of the group's M over its
/// smallest positive one.
Scalar jointGroupConditioning(const ImpactProblem& p) {
  const int blocks = p.blockCount();
  const std::vector<int> group = jointGroups(p);
  const auto root = [&](int b) { return group[static_cast<std::size_t>(b)]; };
  std::vector<char> jointed(static_cast<std::size_t>(blocks), 0);
  for (int k = 0; k < p.bilateralCount(); ++k)
    for (const RowTerm& t : p.bilateral(k).terms)
      if (t.block != kNoBlock) jointed[static_cast<std::size_t>(t.block)] = 1;
  const MatrixX mass = p.denseMass();
  std::vector<Scalar> largest(static_cast<std::size_t>(blocks), 0), smallest(static_cast<std::size_t>(blocks), INFINITY);
  for (int b = 0; b < blocks; ++b) {
    if (!jointed[static_cast<std::size_t>(b)]) continue;
    const BlockLayout& layout = p.block(b);
    const Eigen::SelfAdjointEigenSolver<MatrixX> eig(
        mass.block(layout.velocityOffset, layout.velocityOffset, layout.size, layout.size), Eigen::EigenvaluesOnly);
    const Scalar top = eig.eigenvalues().maxCoeff();
    const auto g = static_cast<std::size_t>(root(b));
    largest[g] = std::max(largest[g], top);
    for (Index k = 0; k < layout.size; ++k)
      if (eig.eigenvalues()[k] > 1e-12 * top) smallest[g] = std::min(smallest[g], eig.eigenvalues()[k]);
  }
  Scalar conditioning = 1;
  for (int b = 0; b < blocks; ++b)
    if (largest[static_cast<std::size_t>(b)] > 0)
      conditioning = std::max(conditioning, largest[static_cast<std::size_t>(b)] / smallest[static_cast<std::size_t>(b)]);
  return conditioning;
}

}  // namespace propimpact::fuzz
