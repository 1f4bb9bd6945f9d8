#pragma once
// Sizing buffers ahead (ImpactResolver::reserve): capacity only, never size,
// so a later assign / resize within it allocates nothing.

#include <algorithm>
#include <cstddef>
#include <vector>

namespace propimpact::detail {

template <typename T, typename Count>
void reserveCapacity(std::vector<T>& buffer, Count count) {
  const auto needed = static_cast<std::size_t>(count > 0 ? count : 0);
  if (buffer.capacity() < needed) buffer.reserve(needed);
}

/// Grows \p buffer to at least \p needed entries, geometrically but never past
/// its capacity when that suffices (so what reserveCapacity sized stays put).
template <typename T>
void growWithin(std::vector<T>& buffer, std::size_t needed) {
  if (buffer.size() >= needed) return;
  buffer.resize(needed <= buffer.capacity() ? buffer.capacity() : std::max(needed, 2 * buffer.size()));
}

}  // namespace propimpact::detail
