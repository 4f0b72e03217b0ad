// The run schedule: which arm runs when. A round runs every arm of a class once; the order within a
// round is drawn from the seeded RNG (random), counterbalanced (abba: A B, B A, B A, A B, ...), or fixed
// (to demonstrate order bias). Each round's order depends only on (seed, class index, round), so a
// resumed run, and every MPI rank, computes the same schedule.
#pragma once
#include <cstdint>
#include <vector>

#include "placebench/harness/runner/config.h"

namespace placebench::harness {

std::vector<Arm> round_order(const std::vector<Arm>& arms, Order order, std::uint64_t seed, std::size_t class_index,
                             int round);

}  // namespace placebench::harness
