#include "OrderingQueue.h"

#include <algorithm>
#include <cmath>
#include <utility>

namespace propimpact::detail {
namespace {

std::uint64_t splitMix(std::uint64_t x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

}  // namespace

std::int64_t OrderingRule::seededPrimary(const Row& row, std::int64_t reflections) const {
  return static_cast<std::int64_t>(
      splitMix(randomSeed ^ splitMix(problemKey ^ splitMix(row.key ^ splitMix(static_cast<std::uint64_t>(reflections))))) >> 1);
}

void OrderingQueue::reset(std::size_t rows) {
  m_heap.clear();
  m_heap.reserve(rows);  // a row is queued at most once: pushes never allocate after this
  m_position.assign(rows, -1);
}

void OrderingQueue::siftUp(std::size_t i) {
  while (i > 0) {
    const std::size_t parent = (i - 1) / 2;
    if (!(m_heap[i] < m_heap[parent])) break;
    std::swap(m_heap[i], m_heap[parent]);
    place(i);
    place(parent);
    i = parent;
  }
}

void OrderingQueue::siftDown(std::size_t i) {
  const std::size_t n = m_heap.size();
  while (true) {
    std::size_t best = i;
    const std::size_t left = 2 * i + 1;
    const std::size_t right = left + 1;
    if (left < n && m_heap[left] < m_heap[best]) best = left;
    if (right < n && m_heap[right] < m_heap[best]) best = right;
    if (best == i) break;
    std::swap(m_heap[i], m_heap[best]);
    place(i);
    place(best);
    i = best;
  }
}

void OrderingQueue::removeQueued(int r) {
  const int position = m_position[static_cast<std::size_t>(r)];
  const auto p = static_cast<std::size_t>(position);
  m_position[static_cast<std::size_t>(r)] = -1;
  if (p + 1 == m_heap.size()) {
    m_heap.pop_back();
    return;
  }
  m_heap[p] = m_heap.back();
  m_heap.pop_back();
  const int moved = m_heap[p].row;
  m_position[static_cast<std::size_t>(moved)] = position;
  siftUp(p);
  siftDown(static_cast<std::size_t>(m_position[static_cast<std::size_t>(moved)]));
}

void OrderingQueue::moveQueued(const QueueKey& entry) {
  const auto p = static_cast<std::size_t>(m_position[static_cast<std::size_t>(entry.row)]);
  m_heap[p] = entry;
  siftUp(p);
  siftDown(static_cast<std::size_t>(m_position[static_cast<std::size_t>(entry.row)]));
}

}  // namespace propimpact::detail
