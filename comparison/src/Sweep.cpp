#include "Sweep.h"

#include <stdexcept>

namespace propimpact::compare {

void parseShard(const std::string& text, SweepOptions& options) {
  const auto slash = text.find('/');
  int index = 0, count = 0;
  try {
    if (slash == std::string::npos) throw std::invalid_argument("");
    std::size_t used = 0;
    index = std::stoi(text.substr(0, slash), &used);
    if (used != slash) throw std::invalid_argument("");
    const std::string rest = text.substr(slash + 1);
    count = std::stoi(rest, &used);
    if (used != rest.size()) throw std::invalid_argument("");
  } catch (const std::exception&) {
    throw std::invalid_argument(fmt::format("--shard '{}': expected i/N", text));
  }
  if (count < 1 || index < 1 || index > count)
    throw std::invalid_argument(fmt::format("--shard '{}': need 1 <= i <= N", text));
  options.shardIndex = index;
  options.shardCount = count;
}

std::vector<std::size_t> shardCells(std::size_t cellCount, const SweepOptions& options) {
  std::vector<std::size_t> cells;
  const auto count = static_cast<std::size_t>(options.shardCount);
  const auto index = static_cast<std::size_t>(options.shardIndex - 1);
  for (std::size_t i = index; i < cellCount; i += count) cells.push_back(i);
  return cells;
}

}  // namespace propimpact::compare
