// The pace-setter rule (see pace.h).
#include "placebench/collectives/pace.h"

#include <algorithm>
#include <stdexcept>
#include <cstdio>
#include <string>

#include "block_timing.h"
#include "placebench/stats/null_distributions.h"

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

namespace {

double upper_tail(int k, int trials, double p) {  // P(X >= k), X ~ Binomial(trials, p)
  return k <= 0 ? 1.0 : std::max(0.0, 1.0 - stats::binomial_cdf(trials, p, k - 1));
}

std::string num(const char* format, double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, format, v);
  return buf;
}
std::string us_text(double s) { return num("%.1f us", s * 1e6); }

// Per rank: lateness against the latest other, that pair's bound, own work, time in the call.
struct Lanes {
  std::vector<std::vector<double>> late, bound, last_late, last_bound, compute, wait;
  std::vector<double> step;
  explicit Lanes(std::size_t n) : late(n), bound(n), last_late(n), last_bound(n), compute(n), wait(n) {}
  void add(const std::vector<RankBlockTimes>& block, const std::vector<double>& uncertainty_s, int last) {
    double start = block[0].start_s, depart = block[0].depart_s;
    for (std::size_t r = 0; r < block.size(); ++r) {
      auto o = static_cast<std::size_t>(latest_other(block, static_cast<int>(r)));
      double l = block[r].arrive_s - block[o].arrive_s, b = uncertainty_s[r] + uncertainty_s[o];
      late[r].push_back(l);
      bound[r].push_back(b);
      if (static_cast<int>(r) == last) last_late[r].push_back(l), last_bound[r].push_back(b);
      compute[r].push_back(block[r].compute_s());
      wait[r].push_back(block[r].depart_s - block[r].arrive_s);
      start = std::min(start, block[r].start_s);
      depart = std::max(depart, block[r].depart_s);
    }
    step.push_back(depart - start);
  }
};

// Test 1 to 3 of pace.h for one rank: "" when it passes, else the short reason it fails.
std::string fails(const RankPace& p, double alpha, double min_effect_s) {
  if (p.p_value >= alpha) return "not last more often than chance";
  if (p.median_last_lateness_s <= p.median_last_bound_s) return "lateness within the clocks";
  if (p.median_last_lateness_s < min_effect_s) return "late by under 2% of the step";
  return "";
}

void decide(TrialPace& t) {
  const double n = static_cast<double>(t.ranks.size()), alpha = kPaceAlpha / n;
  const double min_effect_s = kPaceMinEffect * t.median_step_s;
  const RankPace* best = nullptr;  // the rank nearest to chance's rejection: the most last blocks
  bool tie = false;
  for (const RankPace& p : t.ranks) {
    if (best && p.last_blocks == best->last_blocks) tie = true;
    if (!best || p.last_blocks > best->last_blocks) best = &p, tie = false;
  }
  if (!best || t.blocks == 0) {
    t.short_reason = t.reason = "fewer than 2 ranks or no blocks";
    return;
  }
  std::string why = tie ? "two ranks last equally often" : fails(*best, alpha, min_effect_s);
  t.short_reason = why;
  std::string evidence = "rank " + std::to_string(best->rank) + " last in " + std::to_string(best->last_blocks) + "/" +
                         std::to_string(t.blocks) + " blocks (binomial p=" + num("%.2g", best->p_value) + ", needs < " +
                         num("%.2g", alpha) + "); median lateness " + us_text(best->median_last_lateness_s) +
                         " (clocks +-" + us_text(best->median_last_bound_s) + ", 2% of the " +
                         us_text(t.median_step_s) + " step: " + us_text(min_effect_s) + ")";
  t.reason = (why.empty() ? "named: " : "unknown, " + why + ": ") + evidence;
  if (why.empty()) t.setter = best->rank;
}

}  // namespace

TrialPace name_trial_pace(const PaceTimeline& blocks, const std::vector<double>& uncertainty_s) {
  TrialPace t;
  std::size_t n = uncertainty_s.size();
  t.blocks = static_cast<int>(blocks.size());
  Lanes lanes(n);
  t.ranks.resize(n);
  for (const auto& block : blocks) {
    BlockPace b = name_block_pace(block, uncertainty_s);
    if (b.setter < 0) ++t.unknown_blocks;
    if (b.setter >= 0) ++t.ranks[static_cast<std::size_t>(b.setter)].named_blocks;
    if (b.last >= 0) ++t.ranks[static_cast<std::size_t>(b.last)].last_blocks;
    t.per_block.push_back(b);
    if (n >= 2) lanes.add(block, uncertainty_s, b.last);
  }
  t.median_step_s = detail::median_of(lanes.step);
  for (std::size_t r = 0; r < n; ++r) {
    RankPace& p = t.ranks[r];
    p.rank = static_cast<int>(r);
    p.median_lateness_s = detail::median_of(lanes.late[r]);
    p.median_bound_s = detail::median_of(lanes.bound[r]);
    p.median_compute_s = detail::median_of(lanes.compute[r]);
    p.median_wait_s = detail::median_of(lanes.wait[r]);
    p.median_last_lateness_s = detail::median_of(lanes.last_late[r]);
    p.median_last_bound_s = detail::median_of(lanes.last_bound[r]);
    p.p_value = upper_tail(p.last_blocks, t.blocks, 1.0 / static_cast<double>(n));
  }
  decide(t);
  return t;
}

std::string pace_setter_text(int setter) { return setter < 0 ? "unknown" : std::to_string(setter); }

}  // namespace placebench::collectives
