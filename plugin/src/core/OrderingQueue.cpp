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

// The sifts move a hole, not the entry: each level copies one entry and
// records one position, where swapping wrote two of each (the sifts were a
// sixth of core-random's instructions, callgrind). Keys are unique (the row
// is their last field), so every valid heap has the same top: the order of
// the reflections does not depend on how the heap is laid out.
void OrderingQueue::siftUp(std::size_t i) {
  const QueueKey entry = m_heap[i];
  while (i > 0) {
    const std::size_t parent = (i - 1) / 2;
    if (!(entry < m_heap[parent])) break;
    m_heap[i] = m_heap[parent];
    place(i);
    i = parent;
  }
  m_heap[i] = entry;
  place(i);
}

void OrderingQueue::siftDown(std::size_t i) {
  const std::size_t n = m_heap.size();
  const QueueKey entry = m_heap[i];
  while (true) {
    const std::size_t left = 2 * i + 1;
    if (left >= n) break;
    const std::size_t right = left + 1;
    const std::size_t child = right < n && m_heap[right] < m_heap[left] ? right : left;
    if (!(m_heap[child] < entry)) break;
    m_heap[i] = m_heap[child];
    place(i);
    i = child;
  }
  m_heap[i] = entry;
  place(i);
}

void OrderingQueue::removeQueued(int r) {
  const auto p = static_cast<std::size_t>(m_position[static_cast<std::size_t>(r)]);
  m_position[static_cast<std::size_t>(r)] = -1;
  if (p + 1 == m_heap.size()) {
    m_heap.pop_back();
    return;
  }
  m_heap[p] = m_heap.back();
  m_heap.pop_back();
  // One sift, the one the moved entry's parent calls for.
  if (p > 0 && m_heap[p] < m_heap[(p - 1) / 2])
    siftUp(p);
  else
    siftDown(p);
}

void OrderingQueue::moveQueued(const QueueKey& entry) {
  const auto p = static_cast<std::size_t>(m_position[static_cast<std::size_t>(entry.row)]);
  m_heap[p] = entry;
  if (p > 0 && entry < m_heap[(p - 1) / 2])
    siftUp(p);
  else
    siftDown(p);
}

}  // namespace propimpact::detail
