#include "FrictionSystem.h"

#include "Capacity.h"

#include <Eigen/Eigenvalues>
#include <algorithm>
#include <cmath>
#include <functional>

namespace propimpact::detail {

void eigenOfBlock(const Eigen::Matrix2d& K, Eigen::Matrix2d& Q, Eigen::Vector2d& kappa) {
  Eigen::SelfAdjointEigenSolver<Eigen::Matrix2d> eigen;
  eigen.computeDirect(K);
  Q = eigen.eigenvectors();
  kappa = eigen.eigenvalues().cwiseMax(0);  // ascending; negative only by round-off
}

Eigen::Vector2d minimiseOnDisc(const Eigen::Matrix2d& Q, const Eigen::Vector2d& kappa, const Eigen::Vector2d& h,
                               Scalar radius) {
  if (!(radius > 0) || h.isZero(0)) return Eigen::Vector2d::Zero();
  const Eigen::Vector2d hp = Q.transpose() * h;
  const Scalar tiny = 1e-14 * kappa[1];
  // x(ν) = −(K + νI)⁻¹ h in the eigenbasis; a direction K does not see and h
  // does not push along stays at zero (the trust-region "hard case" is then
  // not hard: that component does not change the objective).
  const auto at = [&](Scalar nu) {
    Eigen::Vector2d x;
    for (int j = 0; j < 2; ++j) x[j] = hp[j] == 0 ? 0 : -hp[j] / (kappa[j] + nu);
    return x;
  };
  if (kappa[0] > tiny) {
    const Eigen::Vector2d inside = at(0);
    if (inside.norm() <= radius) return Q * inside;
  }
  // On the boundary: ||x(ν)|| = radius for one ν > 0. Newton on the secular
  // equation φ(ν) = 1/||x(ν)|| − 1/radius (concave and increasing) from a ν
  // left of the root — at ν = ||h||/radius − κ_max, ||x|| ≥ radius — converges
  // monotonically, without overshoot (Moré & Sorensen).
  Scalar nu = std::max<Scalar>(0, h.norm() / radius - kappa[1]);
  for (int k = 0; k < 100; ++k) {
    Scalar squared = 0;
    Scalar slope = 0;
    for (int j = 0; j < 2; ++j) {
      const Scalar q = hp[j] == 0 ? 0 : hp[j] / (kappa[j] + nu);
      squared += q * q;
      slope += hp[j] == 0 ? 0 : q * q / (kappa[j] + nu);
    }
    const Scalar norm = std::sqrt(squared);
    const Scalar step = (1 / radius - 1 / norm) * norm * squared / slope;
    if (!(step > 1e-15 * nu) || !std::isfinite(step)) break;
    nu += step;
  }
  Eigen::Vector2d x = at(nu);
  if (x.norm() > radius) x *= radius / x.norm();  // round-off: stay inside
  return Q * x;
}

int FrictionSystem::addRow(const SolverBodies& bodies, const Scalar* coefficients[2], const int blocks[2], Scalar bias,
                           const std::vector<Scalar>& constant) {
  FrictionRow row;
  row.bias = bias;
  int groups[2] = {-1, -1};
  Scalar reference = 0;
  for (int t = 0; t < 2; ++t) {
    if (blocks[t] == kNoBlock) continue;
    const int g = bodies.groupOf(blocks[t]);
    const Group& group = bodies.groups()[static_cast<std::size_t>(g)];
    int term = row.termCount;
    if (row.termCount == 1 && groups[0] == g) {
      term = 0;  // both blocks in one joined group: one term
    } else {
      groups[row.termCount] = g;
      row.offset[term] = static_cast<Index>(m_coefficients.size());
      row.velocityOffset[term] = group.offset;
      row.group[term] = g;
      row.size[term] = group.size;
      m_coefficients.resize(m_coefficients.size() + static_cast<std::size_t>(group.size), 0);
      ++row.termCount;
    }
    const Index size = bodies.problem().block(blocks[t]).size;
    const Index at = row.offset[term] + bodies.offsetInGroup(blocks[t]);
    Scalar squared = 0;
    for (Index k = 0; k < size; ++k) {
      m_coefficients[static_cast<std::size_t>(at + k)] += coefficients[t][k];
      squared += coefficients[t][k] * coefficients[t][k];
    }
    reference += squared * bodies.scale(static_cast<std::size_t>(g));
  }
  m_w.resize(m_coefficients.size(), 0);
  for (int t = 0; t < row.termCount; ++t) {
    const Eigen::Map<const VectorX> c(m_coefficients.data() + row.offset[t], row.size[t]);
    const auto g = static_cast<std::size_t>(groups[t]);
    Eigen::Map<VectorX> w(m_w.data() + row.offset[t], row.size[t]);
    // Rows for every contact of the touching component (thousands on a pile):
    // a dense product per row was most of the stage's build (callgrind).
    if (bodies.groups()[g].rigid) {
      rigidInverseMassTimes(bodies.rigidInertia(g), c.data(), w.data());
    } else {
      const Eigen::Map<const MatrixX> minv(bodies.inverseMass(g), row.size[t], row.size[t]);
      w.noalias() = minv * c;
    }
    row.d += c.dot(w);
    if (!constant.empty()) row.bias += c.dot(Eigen::Map<const VectorX>(constant.data() + row.velocityOffset[t], row.size[t]));
  }
  // No admissible motion moves the row (a locked axis, a planar problem's
  // missing tangent): it can take no impulse.
  if (!(row.d > kMetricNoise * reference)) row.d = 0;
  m_rows.push_back(row);
  return static_cast<int>(m_rows.size()) - 1;
}

// Every contact has a normal row and at most two tangent rows, each with the
// contact row's coefficients; a unit (a contact's cone, its normal row)
// touches at most two groups.
void FrictionSystem::reserve(const ProblemBounds& bounds) {
  const Index contacts = bounds.contacts;
  const Index rows = 3 * contacts;
  const Index groups = bounds.blocks;
  reserveCapacity(m_rows, rows);
  reserveCapacity(m_impulse, rows);
  reserveCapacity(m_coefficients, 3 * bounds.rowEntries);
  reserveCapacity(m_w, 3 * bounds.rowEntries);
  for (std::vector<Scalar>* perContact : {&m_slack, &m_slackMoved}) reserveCapacity(*perContact, contacts);
  reserveCapacity(m_blocks, contacts);
  reserveCapacity(m_blockOf, contacts);
  reserveCapacity(m_groupMoved, groups);
  reserveCapacity(m_groupStart, groups + 1);
  reserveCapacity(m_groupRound, groups);
  reserveCapacity(m_groupMover, groups);
  reserveCapacity(m_groupUnits, 4 * contacts);
  reserveCapacity(m_dueNow, (2 * contacts + 63) / 64);
  reserveCapacity(m_dueNext, (2 * contacts + 63) / 64);
}

int FrictionSystem::build(const SolverBodies& bodies, const FrictionRows& friction, const ImpactResult& result,
                          const std::vector<Scalar>& constant) {
  const ImpactProblem& problem = bodies.problem();
  m_rows.clear();
  m_blocks.clear();
  m_coefficients.clear();
  m_w.clear();
  m_normalCount = problem.contactCount();
  for (int c = 0; c < m_normalCount; ++c) {
    const RowLayout& layout = problem.contact(c);
    const Scalar* coefficients[2] = {problem.rowData() + layout.terms[0].coefficientOffset,
                                     problem.rowData() + layout.terms[1].coefficientOffset};
    const int blocks[2] = {layout.terms[0].block, layout.terms[1].block};
    addRow(bodies, coefficients, blocks, layout.bias, constant);
  }
  m_blockOf.assign(static_cast<std::size_t>(m_normalCount), -1);
  for (int k = 0; k < friction.size(); ++k) {
    const FrictionRows::Entry& e = friction.entry(k);
    const auto c = static_cast<std::size_t>(e.contact);
    if (!(e.mu > 0) || e.contact >= m_normalCount || !result.inCluster[c] || m_rows[c].d == 0) continue;
    const RowLayout& layout = problem.contact(e.contact);
    const int blocks[2] = {layout.terms[0].block, layout.terms[1].block};
    FrictionBlock b;
    b.entry = k;
    b.contact = e.contact;
    b.mu = e.mu;
    b.normalImpulse = std::max<Scalar>(0, result.impulses[e.contact]);
    for (int r = 0; r < 2; ++r) {
      const Scalar* coefficients[2] = {nullptr, nullptr};
      for (int t = 0; t < 2; ++t)
        if (blocks[t] != kNoBlock) coefficients[t] = friction.coefficients(k, t, r, problem.block(blocks[t]).size);
      b.rows[r] = addRow(bodies, coefficients, blocks, e.bias[r], constant);
    }
    for (int i = 0; i < 2; ++i)
      for (int j = 0; j < 2; ++j) {
        const FrictionRow& ri = m_rows[static_cast<std::size_t>(b.rows[i])];
        const FrictionRow& rj = m_rows[static_cast<std::size_t>(b.rows[j])];
        Scalar value = 0;
        if (ri.d > 0 && rj.d > 0)
          for (int t = 0; t < ri.termCount; ++t)
            value += Eigen::Map<const VectorX>(m_coefficients.data() + ri.offset[t], ri.size[t])
                         .dot(Eigen::Map<const VectorX>(m_w.data() + rj.offset[t], rj.size[t]));
        b.K(i, j) = value;
      }
    b.K = 0.5 * (b.K + b.K.transpose()).eval();
    if (b.K.isZero(0)) continue;
    eigenOfBlock(b.K, b.Q, b.kappa);
    m_blockOf[c] = static_cast<int>(m_blocks.size());
    m_blocks.push_back(b);
  }
  m_impulse.assign(m_rows.size(), 0);
  buildAdjacency(static_cast<int>(bodies.groups().size()));
  return static_cast<int>(m_blocks.size());
}

// Unit 2c is contact c's block (when it has one), unit 2c + 1 its normal row:
// a contact's cone and its δ are updated next to each other, since each
// bounds the other. Both touch the groups of the contact's normal row.
void FrictionSystem::buildAdjacency(int groupCount) {
  const int units = 2 * m_normalCount;
  const auto exists = [&](int u) { return !isBlock(u) || m_blockOf[static_cast<std::size_t>(contactOf(u))] >= 0; };
  m_groupStart.assign(static_cast<std::size_t>(groupCount) + 1, 0);
  for (int u = 0; u < units; ++u) {
    if (!exists(u)) continue;
    const FrictionRow& row = m_rows[static_cast<std::size_t>(contactOf(u))];
    for (int t = 0; t < row.termCount; ++t) ++m_groupStart[static_cast<std::size_t>(row.group[t]) + 1];
  }
  for (int g = 0; g < groupCount; ++g) m_groupStart[static_cast<std::size_t>(g) + 1] += m_groupStart[static_cast<std::size_t>(g)];
  m_groupUnits.resize(static_cast<std::size_t>(m_groupStart.back()));
  for (int u = 0; u < units; ++u) {  // in unit order, so each group's list is in sweep order
    if (!exists(u)) continue;
    const FrictionRow& row = m_rows[static_cast<std::size_t>(contactOf(u))];
    for (int t = 0; t < row.termCount; ++t) m_groupUnits[static_cast<std::size_t>(m_groupStart[static_cast<std::size_t>(row.group[t])]++)] = u;
  }
  for (int g = groupCount; g > 0; --g) m_groupStart[static_cast<std::size_t>(g)] = m_groupStart[static_cast<std::size_t>(g) - 1];
  m_groupStart[0] = 0;
  const auto words = static_cast<std::size_t>(units + 63) / 64;
  m_groupRound.assign(static_cast<std::size_t>(groupCount), -1);
  m_groupMoved.assign(static_cast<std::size_t>(groupCount), 0);
  m_slack.assign(static_cast<std::size_t>(m_normalCount), 0);
  m_slackMoved.assign(static_cast<std::size_t>(m_normalCount), 0);
  m_groupMover.assign(static_cast<std::size_t>(groupCount), 0);
  m_dueNow.assign(words, 0);
  m_dueNext.assign(words, 0);
}

// A rigid body's group (6 dofs) takes fixed-size kernels: the updates are
// the stage's whole cost, and dynamic-size maps doubled their instructions.
Scalar FrictionSystem::velocity(int r, const Scalar* v) const {
  const FrictionRow& row = m_rows[static_cast<std::size_t>(r)];
  Scalar value = row.bias;
  for (int t = 0; t < row.termCount; ++t) {
    const Scalar* c = m_coefficients.data() + row.offset[t];
    const Scalar* x = v + row.velocityOffset[t];
    if (row.size[t] == 6)
      value += Eigen::Map<const Vector6>(c).dot(Eigen::Map<const Vector6>(x));
    else
      value += Eigen::Map<const VectorX>(c, row.size[t]).dot(Eigen::Map<const VectorX>(x, row.size[t]));
  }
  return value;
}

void FrictionSystem::applyImpulse(int r, Scalar lambda, Scalar* v) const {
  const FrictionRow& row = m_rows[static_cast<std::size_t>(r)];
  for (int t = 0; t < row.termCount; ++t) {
    const Scalar* w = m_w.data() + row.offset[t];
    Scalar* x = v + row.velocityOffset[t];
    if (row.size[t] == 6)
      Eigen::Map<Vector6>(x) += lambda * Eigen::Map<const Vector6>(w);
    else
      Eigen::Map<VectorX>(x, row.size[t]) += lambda * Eigen::Map<const VectorX>(w, row.size[t]);
  }
}


namespace {

// The largest t in [1, relaxation] with ||old + t step|| <= radius, given
// ||old + step|| <= radius (the disc is convex, ||old + t step||² a parabola in t).
Scalar relaxedLength(const Eigen::Vector2d& old, const Eigen::Vector2d& step, Scalar radius, Scalar relaxation) {
  const Eigen::Vector2d far = old + relaxation * step;
  return far.squaredNorm() < radius * radius ? relaxation : 1;
}

}  // namespace

// Exact minimisation over the block's disc of radius μ(λ_n + δ); skipped when
// round-off would make it no descent. Returns the velocity change it made.
Scalar FrictionSystem::updateBlock(FrictionBlock& b, Scalar* v) {
  const auto r0 = static_cast<std::size_t>(b.rows[0]);
  const auto r1 = static_cast<std::size_t>(b.rows[1]);
  const Eigen::Vector2d g(m_rows[r0].d > 0 ? velocity(b.rows[0], v) : 0, m_rows[r1].d > 0 ? velocity(b.rows[1], v) : 0);
  const Eigen::Vector2d old(m_impulse[r0], m_impulse[r1]);
  const Scalar radius = b.mu * (b.normalImpulse + m_impulse[static_cast<std::size_t>(b.contact)]);
  const Eigen::Vector2d best = minimiseOnDisc(b.Q, b.kappa, g - b.K * old, radius);
  Eigen::Vector2d step = best - old;
  if (m_relaxation != 1) step *= relaxedLength(old, step, radius, m_relaxation);
  const Eigen::Vector2d x = old + step;
  const Scalar curvature = step.dot(b.K * step);
  if (!(0.5 * curvature + g.dot(step) < 0)) return 0;
  if (m_rows[r0].d > 0) applyImpulse(b.rows[0], step[0], v);
  if (m_rows[r1].d > 0) applyImpulse(b.rows[1], step[1], v);
  m_impulse[r0] = x[0];
  m_impulse[r1] = x[1];
  return std::sqrt(std::max<Scalar>(curvature, 0));
}

// δ ← max(δ_min, δ + (s − J v − b)/d): exact minimisation along the normal row,
// δ_min keeping the block's tangential impulse inside the cone.
Scalar FrictionSystem::updateNormal(int contact, Scalar target, Scalar* v) {
  const auto c = static_cast<std::size_t>(contact);
  const FrictionRow& row = m_rows[c];
  if (row.d == 0) return 0;
  Scalar& delta = m_impulse[c];
  Scalar lowest = 0;
  Scalar relaxation = m_relaxation;
  if (const int k = m_blockOf[c]; k >= 0) {
    const FrictionBlock& b = m_blocks[static_cast<std::size_t>(k)];
    const Scalar tangential =
        Eigen::Vector2d(m_impulse[static_cast<std::size_t>(b.rows[0])], m_impulse[static_cast<std::size_t>(b.rows[1])]).norm();
    lowest = std::max<Scalar>(0, tangential / b.mu - b.normalImpulse);
    if (!(tangential < 0.5 * b.mu * (b.normalImpulse + delta))) relaxation = 1;
  }
  // Without impulse and with separation to spare, the update is a no-op until
  // its bodies have moved by the spare (see m_slack): most visits on a pile.
  const bool idle = delta == 0 && lowest == 0;
  if (idle && movedSince(row) - m_slackMoved[c] < m_slack[c]) return 0;
  const Scalar u = velocity(contact, v);
  Scalar next = std::max(lowest, delta + relaxation * (target - u) / row.d);
  if (m_pushOnly) next = std::max(next, delta);
  const Scalar step = next - delta;
  if (step == 0) {
    if (idle) {
      const Scalar unit = std::sqrt(row.d);
      m_slack[c] = (u - target - 1e-14 * (std::abs(u) + std::abs(target))) / unit;
      m_slackMoved[c] = movedSince(row);
    }
    return 0;
  }
  applyImpulse(contact, step, v);
  delta = next;
  return std::abs(step) * std::sqrt(row.d);
}

Scalar FrictionSystem::movedSince(const FrictionRow& row) const {
  Scalar moved = 0;
  for (int t = 0; t < row.termCount; ++t) moved += m_groupMoved[static_cast<std::size_t>(row.group[t])];
  return moved;
}

Scalar FrictionSystem::update(int unit, const std::vector<Scalar>& targets, Scalar* v) {
  const auto c = static_cast<std::size_t>(contactOf(unit));
  const Scalar moved = isBlock(unit) ? updateBlock(m_blocks[static_cast<std::size_t>(m_blockOf[c])], v)
                                     : updateNormal(contactOf(unit), targets[c], v);
  if (moved > 0) {
    const FrictionRow& row = m_rows[c];
    for (int t = 0; t < row.termCount; ++t) m_groupMoved[static_cast<std::size_t>(row.group[t])] += moved;
  }
  return moved;
}

int FrictionSystem::sweepAll(const std::vector<Scalar>& targets, const Stop& stop, int cap, bool blocks, Scalar* v) {
  for (int sweep = 1; sweep <= cap; ++sweep) {
    const Scalar tolerance = stop.at(sweep);
    Scalar change = 0;
    for (int c = 0; c < m_normalCount; ++c) {
      if (blocks && m_blockOf[static_cast<std::size_t>(c)] >= 0) change = std::max(change, update(2 * c, targets, v));
      change = std::max(change, update(2 * c + 1, targets, v));
    }
    if (change <= tolerance) return sweep;
  }
  return cap + 1;
}

namespace {

int lowestBit(std::uint64_t word) {
#if defined(__GNUC__)
  return __builtin_ctzll(word);
#else
  int k = 0;
  for (; (word & 1) == 0; word >>= 1) ++k;
  return k;
#endif
}

}  // namespace

inline void FrictionSystem::markNext(int unit) {
  const auto word = static_cast<std::size_t>(unit) / 64;
  m_dueNext[word] |= std::uint64_t{1} << (unit % 64);
  m_nextFirstWord = std::min(m_nextFirstWord, word);
}

// Unit \p unit moved its groups. The first move of a group in a round makes
// every other unit on it due: later ones in this round (then not in the next:
// this visit sees the change), earlier ones in the next. A later move of the
// group in the same round adds only its last mover and the units visited
// since (the later ones are still due): a box's group carries ~50 units, and
// expanding it at every move was 63 % of a landing's instructions (callgrind).
void FrictionSystem::notify(int unit, bool blocks) {
  const FrictionRow& row = m_rows[static_cast<std::size_t>(contactOf(unit))];
  for (int t = 0; t < row.termCount; ++t) {
    const auto g = static_cast<std::size_t>(row.group[t]);
    const int end = m_groupStart[g + 1];
    int& mover = m_groupMover[g];
    if (m_groupRound[g] != m_roundId) {
      m_groupRound[g] = m_roundId;
      for (int k = m_groupStart[g]; k < end; ++k) {
        const int w = m_groupUnits[static_cast<std::size_t>(k)];
        if (w == unit) {
          mover = k;
        } else if (!blocks && isBlock(w)) {
          continue;
        } else if (w > unit) {
          const std::uint64_t bit = std::uint64_t{1} << (w % 64);
          m_dueNow[static_cast<std::size_t>(w) / 64] |= bit;
          m_dueNext[static_cast<std::size_t>(w) / 64] &= ~bit;
        } else {
          markNext(w);
        }
      }
    } else {
      int k = mover;  // the last mover too: it saw the group before this move
      for (; k < end && m_groupUnits[static_cast<std::size_t>(k)] != unit; ++k)
        if (blocks || !isBlock(m_groupUnits[static_cast<std::size_t>(k)])) markNext(m_groupUnits[static_cast<std::size_t>(k)]);
      mover = k;
    }
  }
}

// The sweeps' Gauss–Seidel restricted to due units, starting from those due
// next. A unit left alone has neighbours that moved by at most the tolerance
// since its last update (ImpactFriction.h: how close that keeps the outcome
// to the full sweeps'); a unit that is due only because a neighbour moved by
// round-off is not visited.
int FrictionSystem::sweepWorklist(const std::vector<Scalar>& targets, const Stop& stop, int cap, bool blocks, Scalar* v) {
  int rounds = 0;
  for (;;) {
    const std::size_t firstWord = m_nextFirstWord;
    if (firstWord >= m_dueNext.size()) return std::max(rounds, 1);
    if (++rounds > cap) return rounds;
    const Scalar tolerance = stop.at(rounds);
    ++m_roundId;
    m_dueNow.swap(m_dueNext);
    m_nextFirstWord = m_dueNext.size();
    for (std::size_t word = firstWord; word < m_dueNow.size(); ++word) {
      // A notification sets only later bits of this word, which the loop then reads.
      while (m_dueNow[word] != 0) {
        const int bit = lowestBit(m_dueNow[word]);
        m_dueNow[word] &= m_dueNow[word] - 1;
        const int u = static_cast<int>(word) * 64 + bit;
        if (update(u, targets, v) > tolerance) {
          notify(u, blocks);
          // Over-relaxed, an update leaves its own row off its target by (ω − 1) times its step.
          if (m_relaxation != 1) markNext(u);
        }
      }
    }
  }
}

int FrictionSystem::run(const std::vector<Scalar>& targets, const Stop& stop, int cap, bool blocks, bool worklist,
                        Scalar* v) {
  std::fill(m_groupMoved.begin(), m_groupMoved.end(), 0);
  std::fill(m_slack.begin(), m_slack.end(), 0);
  std::fill(m_slackMoved.begin(), m_slackMoved.end(), 0);
  if (!worklist) return sweepAll(targets, stop, cap, blocks, v);
  std::fill(m_groupRound.begin(), m_groupRound.end(), -1);
  m_roundId = 0;
  std::fill(m_dueNow.begin(), m_dueNow.end(), 0);
  std::fill(m_dueNext.begin(), m_dueNext.end(), 0);
  m_nextFirstWord = m_dueNext.size();
  for (int c = 0; c < m_normalCount; ++c) {
    if (!blocks)
      markNext(2 * c + 1);
    else if (m_blockOf[static_cast<std::size_t>(c)] >= 0)
      markNext(2 * c);
  }
  return sweepWorklist(targets, stop, cap, blocks, v);
}

int FrictionSystem::solve(const std::vector<Scalar>& targets, const FrictionOptions& options, Scalar impactScale,
                          Scalar scale, Scalar* v) {
  std::fill(m_impulse.begin(), m_impulse.end(), 0);
  m_pushOnly = false;
  m_relaxation = options.relaxation;
  const Stop coupled{options.tolerance * impactScale, options.looseTolerance * impactScale, options.looseAfter};
  // Only blocks can move first: at the start every normal row meets its
  // target (targets never exceed the start velocity), so its update is zero.
  const int sweeps = run(targets, coupled, options.sweepCap, true, options.worklist, v);
  // The tangential impulses stay, and the normal rows alone (a convex problem
  // in δ whose Gauss–Seidel converges) are swept to the normal tolerance, so
  // the verification judges a point where every normal row meets its target
  // to round-off whenever normal impulses can reach one. Each update is
  // still a descent.
  m_pushOnly = true;
  const Stop normal{options.normalTolerance * scale, options.normalTolerance * scale, options.sweepCap};
  const int normalSweeps = run(targets, normal, options.sweepCap, false, options.worklist, v);
  (void)normalSweeps;
  return std::min(sweeps, options.sweepCap);
}

}  // namespace propimpact::detail
