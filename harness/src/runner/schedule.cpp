// Round orders (see schedule.h).
#include "placebench/harness/runner/schedule.h"

#include <algorithm>
#include <random>

namespace placebench::harness {

std::vector<Arm> round_order(const std::vector<Arm>& arms, Order order, std::uint64_t seed, std::size_t class_index,
                             int round) {
  std::vector<Arm> out = arms;
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

}  // namespace placebench::harness
