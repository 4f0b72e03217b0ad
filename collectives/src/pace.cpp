// The pace-setter rule (see pace.h).
#include "placebench/collectives/pace.h"

#include <stdexcept>
#include <string>

#include "block_timing.h"

namespace placebench::collectives {
namespace {

void check_ranks(std::size_t times, std::size_t bounds) {
  if (times != bounds)
    throw std::invalid_argument("pace: a block holds " + std::to_string(times) + " ranks, the clock bounds " +
                                std::to_string(bounds));
}

// The latest arrival among the ranks other than `skip` (-1 when there is none).
int latest_other(const std::vector<RankBlockTimes>& times, int skip) {
  int best = -1;
  for (std::size_t r = 0; r < times.size(); ++r)
    if (static_cast<int>(r) != skip && (best < 0 || times[r].arrive_s > times[static_cast<std::size_t>(best)].arrive_s))
      best = static_cast<int>(r);
  return best;
}

}  // namespace

std::vector<double> clock_uncertainty_s(const std::vector<double>& rtt_s) {
  std::vector<double> out(rtt_s.size(), 0.0);
  for (std::size_t r = 1; r < rtt_s.size(); ++r) out[r] = rtt_s[r] / 2;  // rank 0 is the reference clock
  return out;
}

BlockPace name_block_pace(const std::vector<RankBlockTimes>& times, const std::vector<double>& uncertainty_s) {
  check_ranks(times.size(), uncertainty_s.size());
  BlockPace b;
  if (times.size() < 2) return b;
  b.last = latest_other(times, -1);
  int next = latest_other(times, b.last);
  auto l = static_cast<std::size_t>(b.last), n = static_cast<std::size_t>(next);
  b.lateness_s = times[l].arrive_s - times[n].arrive_s;
  b.bound_s = uncertainty_s[l] + uncertainty_s[n];
  // Strictly more than the bound: a tie (lateness 0) or a gap within the clocks' error names nobody.
  if (b.lateness_s > b.bound_s) b.setter = b.last;
  return b;
}

TrialPace name_trial_pace(const PaceTimeline& blocks, const std::vector<double>& uncertainty_s) {
  TrialPace t;
  std::size_t n = uncertainty_s.size();
  t.blocks = static_cast<int>(blocks.size());
  std::vector<std::vector<double>> late(n), bound(n), compute(n), wait(n);
  t.ranks.resize(n);
  for (const auto& block : blocks) {
    BlockPace b = name_block_pace(block, uncertainty_s);
    if (b.setter < 0) ++t.unknown_blocks;
    if (b.setter >= 0) ++t.ranks[static_cast<std::size_t>(b.setter)].named_blocks;
    if (b.last >= 0) ++t.ranks[static_cast<std::size_t>(b.last)].last_blocks;
    t.per_block.push_back(b);
    for (std::size_t r = 0; r < n && n >= 2; ++r) {
      auto o = static_cast<std::size_t>(latest_other(block, static_cast<int>(r)));
      late[r].push_back(block[r].arrive_s - block[o].arrive_s);
      bound[r].push_back(uncertainty_s[r] + uncertainty_s[o]);
      compute[r].push_back(block[r].compute_s());
      wait[r].push_back(block[r].depart_s - block[r].arrive_s);
    }
  }
  for (std::size_t r = 0; r < n; ++r) {
    RankPace& p = t.ranks[r];
    p.rank = static_cast<int>(r);
    p.median_lateness_s = detail::median_of(late[r]);
    p.median_bound_s = detail::median_of(bound[r]);
    p.median_compute_s = detail::median_of(compute[r]);
    p.median_wait_s = detail::median_of(wait[r]);
    // Last in more than half the blocks (so at most one rank; with an even count the median alone
    // could be positive for two ranks each last in half), by a median above the clocks' bound.
    if (2 * p.last_blocks > t.blocks && p.median_lateness_s > p.median_bound_s) t.setter = p.rank;
  }
  return t;
}

std::string pace_setter_text(int setter) { return setter < 0 ? "unknown" : std::to_string(setter); }

}  // namespace placebench::collectives
