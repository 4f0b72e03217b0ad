// The pace-setter rule (see pace.h).
#include "placebench/collectives/pace.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <utility>
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

// Rank r's arrival minus the median arrival of the other ranks, and the clock bound of that pair (r's
// uncertainty plus the median other's; of two middle others, the larger).
std::pair<double, double> excess_over_others(const std::vector<RankBlockTimes>& block,
                                             const std::vector<double>& uncertainty_s, std::size_t r) {
  std::vector<std::pair<double, double>> others;  // (arrival, uncertainty)
  for (std::size_t o = 0; o < block.size(); ++o)
    if (o != r) others.emplace_back(block[o].arrive_s, uncertainty_s[o]);
  std::sort(others.begin(), others.end());
  std::size_t m = others.size() / 2;
  if (others.size() % 2) return {block[r].arrive_s - others[m].first, uncertainty_s[r] + others[m].second};
  double median = (others[m - 1].first + others[m].first) / 2;
  return {block[r].arrive_s - median, uncertainty_s[r] + std::max(others[m - 1].second, others[m].second)};
}

// Per rank: lateness against the latest other and the others' median, their bounds, own work, time in the call.
struct Lanes {
  std::vector<std::vector<double>> late, bound, last_late, last_bound, excess, excess_bound, compute, wait;
  std::vector<double> step;
  std::vector<const std::vector<RankBlockTimes>*> blocks;  // for the orders, once the step is known
  explicit Lanes(std::size_t n)
      : late(n), bound(n), last_late(n), last_bound(n), excess(n), excess_bound(n), compute(n), wait(n) {}
  void add(const std::vector<RankBlockTimes>& block, const std::vector<double>& uncertainty_s, int last) {
    blocks.push_back(&block);
    double start = block[0].start_s, depart = block[0].depart_s;
    for (std::size_t r = 0; r < block.size(); ++r) {
      auto o = static_cast<std::size_t>(latest_other(block, static_cast<int>(r)));
      double l = block[r].arrive_s - block[o].arrive_s, b = uncertainty_s[r] + uncertainty_s[o];
      late[r].push_back(l);
      bound[r].push_back(b);
      if (static_cast<int>(r) == last) last_late[r].push_back(l), last_bound[r].push_back(b);
      auto [e, eb] = excess_over_others(block, uncertainty_s, r);
      excess[r].push_back(e);
      excess_bound[r].push_back(eb);
      compute[r].push_back(block[r].compute_s());
      wait[r].push_back(block[r].depart_s - block[r].arrive_s);
      start = std::min(start, block[r].start_s);
      depart = std::max(depart, block[r].depart_s);
    }
    step.push_back(depart - start);
  }
};

// Rank r's arrival order in a block (1 = first) after moving it earlier by the threshold against each
// other rank: max(their clock bound, min_effect_s).
int shifted_order(const std::vector<RankBlockTimes>& block, const std::vector<double>& uncertainty_s, std::size_t r,
                  double min_effect_s) {
  int order = 1;
  for (std::size_t o = 0; o < block.size(); ++o) {
    double shift = std::max(uncertainty_s[r] + uncertainty_s[o], min_effect_s);
    if (o != r) order += block[o].arrive_s < block[r].arrive_s - shift;
  }
  return order;
}

// P(S >= sum), S the sum of `blocks` independent orders each uniform on 1..n: exact up to 400 blocks (a
// convolution), above that normal with a continuity correction.
double order_sum_upper_tail(long sum, int blocks, int n) {
  if (blocks <= 0 || sum <= blocks) return 1.0;
  if (blocks > 400) {
    double b = blocks, m = n, mean = b * (m + 1) / 2, sd = std::sqrt(b * (m * m - 1) / 12);
    return 0.5 * std::erfc((static_cast<double>(sum) - 0.5 - mean) / sd / std::sqrt(2.0));
  }
  std::vector<double> pmf(1, 1.0);  // of the sum so far, from 0
  for (int b = 0; b < blocks; ++b) {
    std::vector<double> next(pmf.size() + static_cast<std::size_t>(n), 0.0);
    for (std::size_t s = 0; s < pmf.size(); ++s)
      for (int k = 1; k <= n; ++k) next[s + static_cast<std::size_t>(k)] += pmf[s] / n;
    pmf.swap(next);
  }
  double tail = 0;
  for (auto s = static_cast<std::size_t>(sum); s < pmf.size(); ++s) tail += pmf[s];
  return std::min(1.0, tail);
}

// Why the rank-sum test did not name p (pace.h): "" when it passes, else the short reason.
std::string fails(const RankPace& p, double alpha, double min_effect_s) {
  if (p.p_late < alpha) return "";
  if (p.median_excess_s <= p.median_excess_bound_s) return "lateness within the clocks";
  if (p.median_excess_s < min_effect_s) return "late by under 2% of the step";
  return "not late in enough blocks";
}

// The candidate: the rank latest in order after the shift, then the larger median lateness.
const RankPace* candidate(const std::vector<RankPace>& ranks, bool& tie) {
  const RankPace* best = nullptr;
  tie = false;
  for (const RankPace& p : ranks) {
    bool same = best && p.order_sum == best->order_sum;
    if (same && p.median_excess_s == best->median_excess_s) tie = true;
    if (!best || p.order_sum > best->order_sum || (same && p.median_excess_s > best->median_excess_s))
      best = &p, tie = false;
  }
  return best;
}

void decide(TrialPace& t) {
  const double alpha = kPaceAlpha / static_cast<double>(t.ranks.size());
  bool tie = false;
  const RankPace* best = candidate(t.ranks, tie);
  if (!best || t.blocks == 0 || t.ranks.size() < 2) {
    t.short_reason = t.reason = "fewer than 2 ranks or no blocks";
    return;
  }
  std::string why = tie ? "two ranks late equally often" : fails(*best, alpha, t.min_effect_s);
  t.short_reason = why;
  const std::string blocks = "/" + std::to_string(t.blocks);
  std::string evidence =
      "rank " + std::to_string(best->rank) + " moved max(clocks, 2% of the step) earlier: mean arrival order " +
      num("%.2f", static_cast<double>(best->order_sum) / t.blocks) + " of " + std::to_string(t.ranks.size()) +
      ", still last in " + std::to_string(best->late_blocks) + blocks + " (rank-sum p=" + num("%.2g", best->p_late) +
      ", needs < " + num("%.2g", alpha) + "); median lateness against the others' median " +
      us_text(best->median_excess_s) + " (clocks +-" + us_text(best->median_excess_bound_s) + ", 2% of the " +
      us_text(t.median_step_s) + " step: " + us_text(t.min_effect_s) + "); last in " +
      std::to_string(best->last_blocks) + blocks;
  t.reason = (why.empty() ? "named: " : "unknown, " + why + ": ") + evidence;
  if (why.empty()) t.setter = best->rank;
}

void summarise(RankPace& p, const Lanes& lanes, const std::vector<double>& uncertainty_s, std::size_t r, int blocks,
               double min_effect_s, double alpha) {
  p.rank = static_cast<int>(r);
  p.median_lateness_s = detail::median_of(lanes.late[r]);
  p.median_bound_s = detail::median_of(lanes.bound[r]);
  p.median_compute_s = detail::median_of(lanes.compute[r]);
  p.median_wait_s = detail::median_of(lanes.wait[r]);
  p.median_last_lateness_s = detail::median_of(lanes.last_late[r]);
  p.median_last_bound_s = detail::median_of(lanes.last_bound[r]);
  p.p_value = upper_tail(p.last_blocks, blocks, 1.0 / static_cast<double>(lanes.late.size()));
  p.median_excess_s = detail::median_of(lanes.excess[r]);
  p.median_excess_bound_s = detail::median_of(lanes.excess_bound[r]);
  p.lateness_lower_bound_s = median_lower_bound(lanes.excess[r], alpha);
  const int n = static_cast<int>(lanes.late.size());
  p.order_sum = 0;
  p.late_blocks = 0;
  for (const auto* block : lanes.blocks) {
    int order = shifted_order(*block, uncertainty_s, r, min_effect_s);
    p.order_sum += order;
    p.late_blocks += order == n;
  }
  p.p_late = order_sum_upper_tail(p.order_sum, blocks, n);
}

}  // namespace

SignTest pace_sign_test(const std::vector<double>& excess, const std::vector<double>& threshold, double alpha) {
  if (excess.size() != threshold.size())
    throw std::invalid_argument("pace: " + std::to_string(excess.size()) + " lateness values, " +
                                std::to_string(threshold.size()) + " thresholds");
  SignTest s;
  const int n = static_cast<int>(excess.size());
  for (std::size_t b = 0; b < excess.size(); ++b) s.late_blocks += excess[b] > threshold[b];
  s.p_late = upper_tail(s.late_blocks, n, 0.5);
  s.lower_bound_s = median_lower_bound(excess, alpha);
  return s;
}

double median_lower_bound(std::vector<double> values, double alpha) {
  // The median exceeds the k-th smallest with confidence P(X >= k | n, 1/2): the largest k with
  // P(X <= k - 1) <= alpha (none when even the smallest is not, 2^-n > alpha).
  const auto n = static_cast<std::int64_t>(values.size());
  std::int64_t k = 0;
  while (k < n && stats::binomial_cdf(n, 0.5, k) <= alpha) ++k;
  std::sort(values.begin(), values.end());
  return k == 0 ? std::numeric_limits<double>::quiet_NaN() : values[static_cast<std::size_t>(k - 1)];
}

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
  t.min_effect_s = kPaceMinEffect * t.median_step_s;
  const double alpha = n ? kPaceAlpha / static_cast<double>(n) : kPaceAlpha;
  for (std::size_t r = 0; r < n; ++r) summarise(t.ranks[r], lanes, uncertainty_s, r, t.blocks, t.min_effect_s, alpha);
  decide(t);
  return t;
}

std::string pace_setter_text(int setter) { return setter < 0 ? "unknown" : std::to_string(setter); }

}  // namespace placebench::collectives
