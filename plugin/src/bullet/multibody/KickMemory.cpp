#include "KickMemory.h"

#include <algorithm>
#include <cstddef>
#include <cmath>
#include <functional>
#include <limits>

namespace propimpact::bullet_detail {
namespace {

bool before(const void* a, const void* b) { return std::less<const void*>()(a, b); }

}  // namespace

const KickMemory::Entry* KickMemory::find(const btMultiBody* body) const {
  const auto at = std::lower_bound(m_entries.begin(), m_entries.end(), body,
                                   [](const Entry& e, const btMultiBody* b) { return before(e.body, b); });
  return at != m_entries.end() && at->body == body ? &*at : nullptr;
}

bool KickMemory::kick(const btMultiBody& body, Scalar* kick) const {
  const Entry* e = find(&body);
  const int dofs = 6 + body.getNumDofs();
  if (!e || e->pass + 1 != m_pass || e->dofs != dofs) return false;
  const btScalar* v = body.getVelocityVector();
  // The difference is known only to btScalar's round-off: Bullet adds its
  // pending deltas in btScalar. A difference within that is no kick (in
  // single precision it would otherwise make a zero-gravity contact look
  // loaded, and Bullet's pass would push an impact's overlap out).
  constexpr Scalar kRoundOff = 8 * std::numeric_limits<btScalar>::epsilon();
  for (int k = 0; k < dofs; ++k) {
    const Scalar end = m_velocities[e->offset + static_cast<std::size_t>(k)];
    const Scalar difference = Scalar(v[k]) - end;
    kick[k] = std::abs(difference) <= kRoundOff * (std::abs(Scalar(v[k])) + std::abs(end)) ? 0 : difference;
  }
  return true;
}

bool KickMemory::previous(const btMultiBody& body, PreviousPass& out) const {
  const Entry* e = find(&body);
  if (!e || e->pass + 1 != m_pass || e->dofs != 6 + body.getNumDofs()) return false;
  const auto n = static_cast<std::size_t>(e->dofs);
  out.end = m_velocities.data() + e->offset;
  out.kick = e->kickKnown ? out.end + n : nullptr;
  out.locate = e->locate;
  out.forceAtContact = e->located >= 0 ? out.end + 2 * n : nullptr;
  out.located = e->located;
  return true;
}

void KickMemory::record(const btMultiBody& body, const Scalar* kick, Scalar locate, const Scalar* forceAtContact,
                        Scalar located) {
  const int dofs = 6 + body.getNumDofs();
  auto at = std::lower_bound(m_entries.begin(), m_entries.end(), &body,
                             [](const Entry& e, const btMultiBody* b) { return before(e.body, b); });
  if (at == m_entries.end() || at->body != &body) {
    Entry fresh;
    fresh.body = &body;
    at = m_entries.insert(at, fresh);
  }
  const auto n = static_cast<std::size_t>(dofs);
  if (at->dofs != dofs) {
    // A new slot; slots of bodies gone stale are reclaimed by compaction below.
    at->offset = m_velocities.size();
    at->dofs = dofs;
    m_velocities.resize(m_velocities.size() + 3 * n);
  }
  at->pass = m_pass;
  at->kickKnown = kick != nullptr;
  at->locate = locate;
  at->located = forceAtContact ? located : -1;
  Scalar* slot = m_velocities.data() + at->offset;
  const btScalar* v = body.getVelocityVector();
  const btScalar* pending = body.getDeltaVelocityVector();  // applied by the world after the pass
  for (std::size_t k = 0; k < n; ++k) {
    slot[k] = Scalar(v[k]) + Scalar(pending[k]);
    slot[n + k] = kick ? kick[k] : 0;
    slot[2 * n + k] = forceAtContact ? forceAtContact[k] : 0;
  }
}

void KickMemory::forget(const btMultiBody* body) {
  const auto at = std::lower_bound(m_entries.begin(), m_entries.end(), body,
                                   [](const Entry& e, const btMultiBody* b) { return before(e.body, b); });
  if (at != m_entries.end() && at->body == body) at->pass = 0;
}

void KickMemory::beginPass() {
  ++m_pass;
  // Entries older than the previous pass can never give a kick again (a
  // removed, sleeping or forgotten body): drop them and compact, so that a
  // world whose bodies come and go does not grow this memory.
  std::size_t used = 0;
  for (const Entry& e : m_entries)
    if (e.pass + 1 >= m_pass) used += 3 * static_cast<std::size_t>(e.dofs);
  if (2 * used >= m_velocities.size()) return;
  std::vector<Scalar> compact;
  compact.reserve(used);
  std::size_t kept = 0;
  for (Entry& e : m_entries) {
    if (e.pass + 1 < m_pass) continue;
    const std::size_t offset = compact.size();
    compact.insert(compact.end(), m_velocities.begin() + static_cast<std::ptrdiff_t>(e.offset),
                   m_velocities.begin() + static_cast<std::ptrdiff_t>(e.offset + 3 * static_cast<std::size_t>(e.dofs)));
    e.offset = offset;
    m_entries[kept++] = e;
  }
  m_entries.resize(kept);
  m_velocities.swap(compact);
}

}  // namespace propimpact::bullet_detail
