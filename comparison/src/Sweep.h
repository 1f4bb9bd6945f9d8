#pragma once
/// \file Sweep.h
/// Runs the cells of a study: sharding (cell i belongs to shard i mod N),
/// threads (each cell builds its own world, so cells are independent and the
/// results do not depend on the thread count), progress on stderr.

#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <exception>
#include <functional>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace propimpact::compare {

/// How a sweep is split and reported.
struct SweepOptions {
  int jobs = 1;          ///< worker threads (≥ 1).
  int shardIndex = 1;    ///< this shard, 1-based (as CI job arrays number them).
  int shardCount = 1;    ///< number of shards.
  bool progress = true;  ///< print progress on stderr.
  std::string label;     ///< name in progress lines.
};

/// Parses "i/N" (1 ≤ i ≤ N). Throws std::invalid_argument.
void parseShard(const std::string& text, SweepOptions& options);

/// Indices of the cells of [0, cellCount) this shard runs, ascending.
[[nodiscard]] std::vector<std::size_t> shardCells(std::size_t cellCount, const SweepOptions& options);

/// Runs \p run on every cell of this shard and returns the results in cell
/// order. An exception from a cell is rethrown (the lowest cell's) after all
/// threads have stopped.
template <class Result>
std::vector<Result> runSweep(std::size_t cellCount, const SweepOptions& options,
                             const std::function<Result(std::size_t)>& run) {
  const std::vector<std::size_t> cells = shardCells(cellCount, options);
  std::vector<Result> results(cells.size());
  std::vector<std::exception_ptr> errors(cells.size());
  std::atomic<std::size_t> next{0}, done{0};
  std::mutex printMutex;
  const auto start = std::chrono::steady_clock::now();
  int lastPercent = -1;
  const auto report = [&](std::size_t finished) {
    if (!options.progress || cells.empty()) return;
    const int percent = static_cast<int>(100 * finished / cells.size());
    std::lock_guard<std::mutex> lock(printMutex);
    if (percent / 10 == lastPercent / 10 && finished != cells.size()) return;
    lastPercent = percent;
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    fmt::print(stderr, "{}: {}/{} cells ({}%), {:.1f} s\n", options.label, finished, cells.size(), percent, seconds);
  };
  const auto worker = [&] {
    for (std::size_t k = next++; k < cells.size(); k = next++) {
      try {
        results[k] = run(cells[k]);
      } catch (...) {
        errors[k] = std::current_exception();
      }
      report(++done);
    }
  };
  const int threads = std::max(1, options.jobs);
  std::vector<std::thread> pool;
  for (int t = 1; t < threads; ++t) pool.emplace_back(worker);
  worker();
  for (auto& thread : pool) thread.join();
  for (const auto& error : errors)
    if (error) std::rethrow_exception(error);
  return results;
}

}  // namespace propimpact::compare
