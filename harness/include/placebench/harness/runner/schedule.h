// The run schedule: which arm runs when. A round runs every arm of a class once; the order within a
// round is drawn from the seeded RNG (random), counterbalanced (abba: A B, B A, B A, A B, ...), or fixed
// (to demonstrate order bias). Each round's order depends only on (seed, class index, round), so a
// resumed run, and every MPI rank, computes the same schedule. A class with interference conditions runs
// every (arm x condition) cell once per round, its cells in one order over the whole round (quiet and
// loaded interleaved, docs/configuration.md#interference).
#pragma once
#include <cstdint>
#include <vector>

#include "placebench/harness/runner/config.h"

namespace placebench::harness {

std::vector<Arm> round_order(const std::vector<Arm>& arms, Order order, std::uint64_t seed, std::size_t class_index,
                             int round);

struct Cell {
  Arm arm = Arm::kLocal;
  std::size_t condition = 0;  // index into the class's conditions (0 when it has none)
};
// The round's cells: with at most one condition, round_order's arms (the schedule of a class without
// conditions is unchanged); else the cells arm-major, ordered as round_order orders arms.
std::vector<Cell> round_cells(const std::vector<Arm>& arms, std::size_t conditions, Order order, std::uint64_t seed,
                              std::size_t class_index, int round);

}  // namespace placebench::harness
