// How the benchmark turns raw timings into its figures, for every backend alike (host code, no MPI,
// CUDA or NCCL: unit-tested on the CPU in tests/block_timing_test.cpp).
//   Blocks: each rank times B blocks of `iters` back-to-back calls (MPI: the host clock around the
//   block; NCCL: CUDA events recorded on the stream before and after it). A block's figure is the mean
//   over ranks of (block time / iters), nccl-tests' default (-a 1); the row's time is the MEDIAN over
//   blocks, so one preempted or stalled block (a time slice of a shared or oversubscribed node is
//   milliseconds, hundreds of calls) cannot move it; min, max and max/min of the blocks are kept.
//   Iterations: each rank times single calls after a barrier; per iteration the slowest rank (what a
//   synchronous job waits for) and the mean over ranks (what OSU-style tools report).
#pragma once
#include <cstddef>
#include <vector>

namespace placebench::collectives::detail {

// Median of the values (mean of the middle two for an even count); 0 for none.
double median_of(std::vector<double> values);

struct BlockFigures {
  double median_s = 0, min_s = 0, max_s = 0;
  double spread = 0;              // max_s / min_s (1 = every block alike; 0 when min_s is 0)
  std::vector<double> blocks_s;   // per-call time of each block, mean over ranks, in order
};

// rank_major: nranks x blocks per-call times (rank r's block b at r * blocks + b).
// Throws std::invalid_argument when the length is not a multiple of nranks or nranks is 0.
BlockFigures reduce_blocks(const std::vector<double>& rank_major, std::size_t nranks);

struct IterationFigures {
  std::vector<double> slowest_s;    // per iteration: the largest time over ranks
  std::vector<double> rank_mean_s;  // per iteration: the mean over ranks
};

// rank_major: nranks x iterations (rank r's iteration i at r * iterations + i).
IterationFigures reduce_iterations(const std::vector<double>& rank_major, std::size_t nranks);

}  // namespace placebench::collectives::detail
