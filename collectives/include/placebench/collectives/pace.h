// Who sets the pace: per timed block (a block of calls, one timed call, a gang step) each rank's start,
// arrival at the collective and departure from it on the common clock (rank 0's: local time + the
// offset clock_sync.h measures), and the rank the others waited for. Host code only (no MPI), so the
// rule is unit-tested on fake timelines (tests/pace_test.cpp).
//
// The rule, per block: the last rank to arrive is the block's pace-setter only when its lateness (its
// arrival minus the next-latest arrival) exceeds the clock uncertainty of that pair: the sum of the two
// ranks' offset error bounds (rtt/2 each, rank 0's is 0; the errors are independent, so this is the
// worst case). Otherwise the block's pace-setter is unknown: a tie, or a gap the clocks cannot resolve.
// Over a trial (all blocks of one case) a rank is named only with evidence that it is neither chance
// nor clock error nor negligible; three tests, all required:
//   1. chance: it was last in significantly more blocks than 1/n of them (n ranks): a one-sided binomial
//      test, P(X >= its last blocks | blocks, 1/n) < kPaceAlpha / n (alpha 0.01, Bonferroni over n);
//   2. clocks: its median lateness over the blocks it was last in (its arrival minus the next-latest)
//      exceeds the median clock bound of those pairs;
//   3. effect: that median lateness is at least kPaceMinEffect (2%) of the trial's median step (latest
//      departure - earliest start): a rank that costs the gang under 2% of a step is not worth naming,
//      and on an oversubscribed node the scheduler alone makes one rank systematically late by about that.
// When two ranks pass, the one last in more blocks; a tie is unknown. Otherwise unknown, with the reason.
#pragma once
#include <string>
#include <vector>

namespace placebench::collectives {

// One rank in one block, seconds on the common clock.
struct RankBlockTimes {
  double start_s = 0;   // the block began for this rank (barrier exit; a gang step: the previous step done)
  double arrive_s = 0;  // entered the collective (after its own work: compute, an injected slowdown)
  double depart_s = 0;  // left it (the call, or the block's last call, complete on this rank)
  double compute_s() const { return arrive_s - start_s; }
};

using PaceTimeline = std::vector<std::vector<RankBlockTimes>>;  // [block][rank]

struct BlockPace {
  int setter = -1;        // the rank the others waited for; -1: unknown
  int last = -1;          // the last to arrive, named or not (-1: fewer than 2 ranks)
  double lateness_s = 0;  // last's arrival - the next-latest arrival
  double bound_s = 0;     // the pair's clock uncertainty (rtt/2 + rtt/2)
};

struct RankPace {
  int rank = 0;
  int named_blocks = 0;          // blocks whose pace-setter it was
  int last_blocks = 0;           // blocks it arrived last in, named or not
  double median_lateness_s = 0;  // median over blocks of (its arrival - the latest other arrival)
  double median_bound_s = 0;     // median over blocks of the bound between it and the latest other
  double median_compute_s = 0;   // median of its own time before the collective
  double median_wait_s = 0;      // median of depart - arrive (time in the collective, waiting included)
  double p_value = 1;            // one-sided binomial P(last in >= last_blocks | chance, 1/n)
  double median_last_lateness_s = 0;  // median over the blocks it was last in of (its arrival - the next-latest)
  double median_last_bound_s = 0;     // median clock bound of those pairs
};

constexpr double kPaceAlpha = 0.01;      // the trial test's family-wise alpha (divided by the rank count)
constexpr double kPaceMinEffect = 0.02;  // the smallest lateness named, as a share of the median step

struct TrialPace {
  int setter = -1;             // -1: unknown (nobody was last by more than the clocks' uncertainty in most blocks)
  int blocks = 0;
  int unknown_blocks = 0;      // blocks whose pace-setter is unknown
  double median_step_s = 0;    // the trial's median step (latest departure - earliest start)
  std::string reason;          // why the setter is named, or why it is unknown (one line)
  std::string short_reason;    // the same in a few words (for the table)
  std::vector<BlockPace> per_block;
  std::vector<RankPace> ranks;  // by rank
};

// Per rank: its clock offset's error bound, rtt/2 of its best ping-pong with rank 0 (0 for rank 0).
std::vector<double> clock_uncertainty_s(const std::vector<double>& rtt_s);

// One block. Throws std::invalid_argument when the sizes of times and uncertainty_s differ.
BlockPace name_block_pace(const std::vector<RankBlockTimes>& times, const std::vector<double>& uncertainty_s);

// A trial. Throws std::invalid_argument when a block's rank count differs from uncertainty_s.
TrialPace name_trial_pace(const PaceTimeline& blocks, const std::vector<double>& uncertainty_s);

// "3", or "unknown".
std::string pace_setter_text(int setter);

}  // namespace placebench::collectives
