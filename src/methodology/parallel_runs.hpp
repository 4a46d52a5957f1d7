#pragma once
// What the comparisons share: seeds derived per run from the user's seed and names, and a small parallel loop whose
// results do not depend on the thread count (every job writes its own slot).
#include <algorithm>
#include <atomic>
#include <cstdint>
#include <exception>
#include <functional>
#include <mutex>
#include <string_view>
#include <thread>
#include <vector>

namespace ktune::methodology {

// splitmix64 finaliser: independent seeds for every (space, strategy, repeat) from the one user seed, so results
// do not depend on which thread runs what.
inline std::uint64_t mix(std::uint64_t a, std::uint64_t b) {
  std::uint64_t z = a + 0x9e3779b97f4a7c15ULL * (b + 1);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}
inline std::uint64_t seed_of(std::uint64_t seed, std::uint64_t a, std::uint64_t b, std::uint64_t c, std::uint64_t d = 0) {
  return mix(mix(mix(mix(seed, a), b), c), d);
}
// Spaces and strategies enter the seeds by name (FNV-1a), not by position: adding a strategy to a comparison or
// reordering the list leaves every other strategy's runs, and so its score, unchanged.
inline std::uint64_t key_of(std::string_view name) {
  std::uint64_t h = 1469598103934665603ull;
  for (unsigned char ch : name) h = (h ^ ch) * 1099511628211ull;
  return h;
}

// Runs f(0..n-1) on `threads` threads; the first exception is rethrown after all have stopped.
inline void parallel_for(std::size_t n, unsigned threads, const std::function<void(std::size_t)>& f) {
  if (threads == 0) threads = std::max(1u, std::thread::hardware_concurrency());
  threads = static_cast<unsigned>(std::min<std::size_t>(threads, std::max<std::size_t>(n, 1)));
  std::atomic<std::size_t> next{0};
  std::exception_ptr error;
  std::mutex error_mutex;
  auto work = [&] {
    for (std::size_t i; (i = next.fetch_add(1)) < n;) {
      try {
        f(i);
      } catch (...) {
        std::lock_guard lock(error_mutex);
        if (!error) error = std::current_exception();
        next = n;
      }
    }
  };
  {
    std::vector<std::jthread> pool;
    for (unsigned t = 1; t < threads; ++t) pool.emplace_back(work);
    work();
  }
  if (error) std::rethrow_exception(error);
}

}  // namespace ktune::methodology
