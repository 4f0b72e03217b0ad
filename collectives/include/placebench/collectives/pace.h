// Who sets the pace: per timed block (a block of calls, one timed call, a gang step) each rank's start,
// arrival at the collective and departure from it on the common clock (rank 0's: local time + the
// offset clock_sync.h measures), and the rank the others waited for. Host code only (no MPI), so the
// rule is unit-tested on fake timelines (tests/pace_test.cpp).
//
// The rule, per block: the last rank to arrive is the block's pace-setter only when its lateness (its
// arrival minus the next-latest arrival) exceeds the clock uncertainty of that pair: the sum of the two
// ranks' offset error bounds (rtt/2 each, rank 0's is 0; the errors are independent, so this is the
// worst case). Otherwise the block's pace-setter is unknown: a tie, or a gap the clocks cannot resolve.
// Over a trial (all blocks of one case, all calls of a dose, all gang steps) a rank is named only with
// evidence that its lateness is neither chance nor clock error nor negligible, from its arrival order
// in every block (not only whether it was last): the rank is moved earlier by a threshold, against each
// other rank the larger of the pair's clock bound and kPaceMinEffect (2%) of the trial's median step
// (latest departure - earliest start), and its arrival order among the others is taken per block
// (1 = first, n = last). With no rank late by more than the threshold, that order is uniform on 1..n
// for exchangeable ranks and only earlier for one late by less (a collective's completion order, an
// oversubscribed node's scheduling), so the sum of its orders over the blocks is tested against the sum
// of independent uniforms (a Friedman-type rank-sum test with the effect bound inside it; exact up to
// 400 blocks, normal above): one-sided P(S >= its sum) < kPaceAlpha / n (alpha 0.01, Bonferroni over the
// n ranks). The candidate is the rank with the largest sum (then the larger median lateness against the
// others' median; an exact tie is unknown). Otherwise unknown, with the reason: which of clocks, effect
// or chance stopped it, with the figures. 5 blocks are the fewest that can name a rank of 4 (4^-5).
// bench/pace_power_sim.cpp compares this rule with the others it was chosen over (the count of blocks
// each rank was last in against 1/n, the rule before 2026-12-06, whose figures are kept; a sign test
// against the others' median; pairwise tests) on simulated trials (docs/performance.md).
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
  // The trial rule's figures (above).
  long order_sum = 0;                 // sum over blocks of its arrival order after the shift (1 = first)
  int late_blocks = 0;                // blocks where it is last even after the shift
  double p_late = 1;                  // one-sided P(a sum of uniform orders >= order_sum)
  double median_excess_s = 0;         // median over blocks of (its arrival - the others' median arrival)
  double median_excess_bound_s = 0;   // median clock bound of those pairs (of two middle others, the larger)
  double lateness_lower_bound_s = 0;  // distribution-free lower bound (confidence 1 - alpha / n) of that
                                      // median lateness; NaN: too few blocks
};

constexpr double kPaceAlpha = 0.01;      // the trial test's family-wise alpha (divided by the rank count)
constexpr double kPaceMinEffect = 0.02;  // the smallest lateness named, as a share of the median step

// A one-sided sign test of "the median of excess[b] - threshold[b] is above 0": the blocks above their
// threshold, P(X >= them | blocks, 1/2), and median_lower_bound(excess, alpha). For the alternatives of
// bench/pace_power_sim.cpp. Throws std::invalid_argument when the sizes differ.
struct SignTest {
  int late_blocks = 0;
  double p_late = 1;
  double lower_bound_s = 0;
};
SignTest pace_sign_test(const std::vector<double>& excess, const std::vector<double>& threshold, double alpha);

// The distribution-free lower confidence bound (1 - alpha) of the values' median: the k-th smallest with
// the largest k such that P(X <= k - 1 | n, 1/2) <= alpha; NaN when there is none (2^-n > alpha).
double median_lower_bound(std::vector<double> values, double alpha);

struct TrialPace {
  int setter = -1;             // -1: unknown (no rank significantly later than the others beyond the threshold)
  int blocks = 0;
  int unknown_blocks = 0;      // blocks whose pace-setter is unknown
  double median_step_s = 0;    // the trial's median step (latest departure - earliest start)
  double min_effect_s = 0;     // kPaceMinEffect x median_step_s
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
