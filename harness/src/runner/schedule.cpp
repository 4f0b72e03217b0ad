// Round orders (see schedule.h).
#include "placebench/harness/runner/schedule.h"

#include <algorithm>
#include <random>

namespace placebench::harness {
namespace {

template <class T>
std::vector<T> ordered(std::vector<T> out, Order order, std::uint64_t seed, std::size_t class_index, int round) {
  switch (order) {
    case Order::kFixed:
      break;
    case Order::kAbba:
      // Rounds 0,1,2,3 -> forward, reversed, reversed, forward; then repeat.
      if (round % 4 == 1 || round % 4 == 2) std::reverse(out.begin(), out.end());
      break;
    case Order::kRandom: {
      std::seed_seq seq{static_cast<std::uint32_t>(seed), static_cast<std::uint32_t>(seed >> 32),
                        static_cast<std::uint32_t>(class_index), static_cast<std::uint32_t>(round)};
      std::mt19937_64 rng(seq);
      // Fisher-Yates with our own index draws: std::shuffle's algorithm is implementation-defined,
      // and the schedule must be the same on every platform and rank.
      for (std::size_t i = out.size(); i > 1; --i) std::swap(out[i - 1], out[rng() % i]);
      break;
    }
  }
  return out;
}

}  // namespace

std::vector<Arm> round_order(const std::vector<Arm>& arms, Order order, std::uint64_t seed, std::size_t class_index,
                             int round) {
  return ordered(arms, order, seed, class_index, round);
}

std::vector<Cell> round_cells(const std::vector<Arm>& arms, std::size_t conditions, Order order, std::uint64_t seed,
                              std::size_t class_index, int round) {
  std::vector<Cell> cells;
  if (conditions <= 1) {  // the schedule of a class without conditions, unchanged
    for (Arm a : round_order(arms, order, seed, class_index, round)) cells.push_back({a, 0});
    return cells;
  }
  for (Arm a : arms)
    for (std::size_t k = 0; k < conditions; ++k) cells.push_back({a, k});
  return ordered(std::move(cells), order, seed, class_index, round);
}

}  // namespace placebench::harness
