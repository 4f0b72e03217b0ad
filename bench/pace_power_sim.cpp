// placebench-pace-sim: the naming targets of issue 32 (a rank slowed by 10% of its step named in >= 95%
// of trials; A/A trials naming a rank in <= 1 of 20) for the trial rule of pace.h, measured on simulated
// trials of 4 ranks (docs/performance.md, "Who sets the pace"), against alternatives on the same trials:
// (1) the count of blocks each rank was last in, binomial against 1/n, with the effect test on its
// lateness when last (the rule before 2026-12-06); (2) a sign test of the lateness against the others'
// median arrival beyond max(clocks, 2% of the step); (3) the same beyond the clocks only; (4) a plain
// Friedman-type rank sum (normal approximation) with the effect bound (median lateness's lower bound
// beyond the threshold); (5) (1) or (2), each at half the alpha; (6) the shipped rule: the rank sum after
// moving each rank the threshold earlier; (7) the last count after that move; (8), (9) Wilcoxon and sign
// tests against every other rank (all must pass). Every test is one-sided at 0.01 / n (Bonferroni).
// Usage: placebench-pace-sim [--trials N] [--seed S]
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include "placebench/collectives/pace.h"
#include "placebench/stats/rank_tests.h"

namespace {

namespace pc = placebench::collectives;
using Rng = std::mt19937_64;

constexpr int kRanks = 4;
constexpr double kUncertaintyS = 1e-6;  // rtt/2 of ranks 1-3 (this VM's shared-memory ping-pong: ~2 us)

// How each rank's arrival is late beyond the step's work, per block.
struct Noise {
  std::string name;
  double step_s;                              // the work before each collective
  std::function<double(Rng&, int rank)> draw;
};

std::vector<Noise> noises() {
  return {
      {"1 ms step, exp 30 us + 5% x 400 us (unit tests)", 1e-3,
       [](Rng& g, int) {
         return std::exponential_distribution<double>(1 / 30e-6)(g) + (std::bernoulli_distribution(0.05)(g) ? 400e-6 : 0);
       }},
      {"100 ms step, oversubscribed: 1/2 x U(0, 6 ms) + exp 0.2 ms", 0.1,
       [](Rng& g, int) {
         double slice = std::bernoulli_distribution(0.5)(g) ? std::uniform_real_distribution<double>(0, 6e-3)(g) : 0;
         return slice + std::exponential_distribution<double>(1 / 0.2e-3)(g);
       }},
      {"the same, rank 3 + exp 0.4 ms (completion order)", 0.1,
       [](Rng& g, int r) {
         double slice = std::bernoulli_distribution(0.5)(g) ? std::uniform_real_distribution<double>(0, 6e-3)(g) : 0;
         double order = r == 3 ? std::exponential_distribution<double>(1 / 0.4e-3)(g) : 0;
         return slice + std::exponential_distribution<double>(1 / 0.2e-3)(g) + order;
       }},
      {"100 ms step, loaded: Poisson(1.5) x U(0, 12 ms), rank 3 + exp 1 ms", 0.1,
       [](Rng& g, int r) {
         int k = std::poisson_distribution<int>(1.5)(g);
         double wait = 0;
         for (int i = 0; i < k; ++i) wait += std::uniform_real_distribution<double>(0, 12e-3)(g);
         return wait + (r == 3 ? std::exponential_distribution<double>(1 / 1e-3)(g) : 0);
       }},
      {"100 ms step, oversubscribed, rank 0 always 5 ms early (asymmetric A/A)", 0.1,
       [](Rng& g, int r) {
         double slice = std::bernoulli_distribution(0.5)(g) ? std::uniform_real_distribution<double>(0, 6e-3)(g) : 0;
         return slice + std::exponential_distribution<double>(1 / 0.2e-3)(g) + (r == 0 ? -5e-3 : 0);
       }},
  };
}

// Ranks that start at 0, arrive after the work, the noise and (the slowed rank) the dose, all depart
// 10 us after the last arrival.
pc::PaceTimeline trial(const Noise& noise, int blocks, int slow, double dose_s, Rng& g) {
  pc::PaceTimeline t;
  for (int b = 0; b < blocks; ++b) {
    std::vector<pc::RankBlockTimes> block(kRanks);
    double last = 0;
    for (int r = 0; r < kRanks; ++r) {
      double a = noise.step_s + noise.draw(g, r) + (r == slow ? dose_s : 0);
      block[static_cast<std::size_t>(r)] = {0, a, 0};
      last = std::max(last, a);
    }
    for (auto& x : block) x.depart_s = last + 10e-6;
    t.push_back(block);
  }
  return t;
}

// A rule: the rank it names over the trial, -1 for none.
using Rule = std::function<int(const pc::PaceTimeline&, const pc::TrialPace&)>;

double alpha_per_rank(double share = 1) { return pc::kPaceAlpha * share / kRanks; }

// (1): the most-last rank (a tie names nobody), binomial p, clocks and effect on its lateness when last.
int by_last_count(const pc::TrialPace& p, double alpha) {
  const pc::RankPace* best = nullptr;
  bool tie = false;
  for (const pc::RankPace& r : p.ranks) {
    if (best && r.last_blocks == best->last_blocks) tie = true;
    if (!best || r.last_blocks > best->last_blocks) best = &r, tie = false;
  }
  if (!best || tie || best->p_value >= alpha) return -1;
  if (best->median_last_lateness_s <= best->median_last_bound_s || best->median_last_lateness_s < p.min_effect_s) return -1;
  return best->rank;
}

// Per rank and block: the arrival minus the others' median (pace.h).
std::vector<std::vector<double>> excess(const pc::PaceTimeline& t) {
  std::vector<std::vector<double>> out(kRanks);
  for (const auto& block : t)
    for (std::size_t r = 0; r < block.size(); ++r) {
      std::vector<double> others;
      for (std::size_t o = 0; o < block.size(); ++o)
        if (o != r) others.push_back(block[o].arrive_s);
      std::sort(others.begin(), others.end());
      out[r].push_back(block[r].arrive_s - others[others.size() / 2]);  // 3 others: the middle one
    }
  return out;
}

// (2), (3): the sign test of the lateness against the others' median beyond the threshold: the larger
// of the clocks and the minimum effect (min_effect_s 0: the clocks only).
int by_sign_test(const pc::PaceTimeline& t, double min_effect_s, double alpha) {
  auto d = excess(t);
  int best = -1, most = -1;
  for (int r = 0; r < kRanks; ++r) {
    std::vector<double> threshold(d[0].size(), std::max(r == 0 ? kUncertaintyS : 2 * kUncertaintyS, min_effect_s));
    pc::SignTest s = pc::pace_sign_test(d[static_cast<std::size_t>(r)], threshold, alpha);
    if (s.p_late < alpha && s.late_blocks > most) best = r, most = s.late_blocks;
  }
  return best;
}

// (4): Friedman-type: each rank's sum of its arrival order (1 = first) over blocks, one-sided normal
// test against B (n + 1) / 2 with variance B (n^2 - 1) / 12; then the shipped effect bound.
int by_rank_sum(const pc::PaceTimeline& t, const pc::TrialPace& p) {
  std::vector<double> sum(kRanks, 0);
  for (const auto& block : t)
    for (std::size_t r = 0; r < block.size(); ++r)
      for (const auto& o : block) sum[r] += o.arrive_s <= block[r].arrive_s;
  const double b = static_cast<double>(t.size()), n = kRanks;
  const double mean = b * (n + 1) / 2, sd = std::sqrt(b * (n * n - 1) / 12);
  auto r = static_cast<std::size_t>(std::max_element(sum.begin(), sum.end()) - sum.begin());
  double z = (sum[r] - mean) / sd, pvalue = 0.5 * std::erfc(z / std::sqrt(2.0));
  if (pvalue >= alpha_per_rank()) return -1;
  // The effect bound: the median lateness exceeds max(clocks, 2% of the step) with confidence 1 - alpha / n.
  double threshold = std::max(p.ranks[r].median_excess_bound_s, p.min_effect_s);
  return p.ranks[r].lateness_lower_bound_s > threshold ? static_cast<int>(r) : -1;
}

// (7): each rank's arrival moved earlier by the threshold (max(clocks, 2% of the step)), then its order
// among the others in each block (1 = first): with no rank late by more than the threshold, that order is
// at most uniform on 1..n (the shipped rule (6) tests its sum, pace.h); here the blocks where it is still
// last, against 1/n (binomial).
std::vector<std::vector<int>> shifted_order(const pc::PaceTimeline& t, const pc::TrialPace& p) {
  const double shift = std::max(2 * kUncertaintyS, p.min_effect_s);
  std::vector<std::vector<int>> out(kRanks);
  for (const auto& block : t)
    for (std::size_t r = 0; r < block.size(); ++r) {
      int order = 1;
      for (std::size_t o = 0; o < block.size(); ++o) order += o != r && block[o].arrive_s < block[r].arrive_s - shift;
      out[r].push_back(order);
    }
  return out;
}

double binomial_upper(int k, int n, double q) {  // P(X >= k), X ~ Binomial(n, q)
  double sum = 0;
  for (int i = k; i <= n; ++i) sum += std::exp(std::lgamma(n + 1) - std::lgamma(i + 1) - std::lgamma(n - i + 1) +
                                               i * std::log(q) + (n - i) * std::log1p(-q));
  return sum;
}

int by_shifted_last_count(const pc::PaceTimeline& t, const pc::TrialPace& p) {
  auto order = shifted_order(t, p);
  int best = -1, most = -1;
  for (int r = 0; r < kRanks; ++r) {
    int last = static_cast<int>(std::count(order[static_cast<std::size_t>(r)].begin(), order[static_cast<std::size_t>(r)].end(), kRanks));
    if (binomial_upper(last, static_cast<int>(t.size()), 1.0 / kRanks) < alpha_per_rank() && last > most) best = r, most = last;
  }
  return best;
}

// (8) and (9): rank r against each other rank o, paired over blocks: d = a_r - a_o - threshold; named
// when every pair rejects (an intersection-union test, each pair at alpha / n): (8) Wilcoxon signed-rank
// (the difference of two exchangeable ranks is symmetric), (9) sign test.
double one_sided_wilcoxon(const std::vector<double>& d) {
  placebench::stats::RankTest w = placebench::stats::wilcoxon_signed_rank(d);
  double n = static_cast<double>(w.n_used), mean = n * (n + 1) / 4;
  return w.statistic > mean ? w.p_value / 2 : 1 - w.p_value / 2;
}

int by_pairs(const pc::PaceTimeline& t, const pc::TrialPace& p, bool wilcoxon) {
  const double shift = std::max(2 * kUncertaintyS, p.min_effect_s);
  int best = -1;
  double best_late = 0;
  for (std::size_t r = 0; r < kRanks; ++r) {
    bool all = true;
    for (std::size_t o = 0; o < kRanks && all; ++o) {
      if (o == r) continue;
      std::vector<double> d;
      for (const auto& block : t) d.push_back(block[r].arrive_s - block[o].arrive_s - shift);
      double pv = wilcoxon ? one_sided_wilcoxon(d)
                           : pc::pace_sign_test(d, std::vector<double>(d.size(), 0), alpha_per_rank()).p_late;
      all = pv < alpha_per_rank();
    }
    if (all && (best < 0 || p.ranks[r].median_excess_s > best_late)) best = static_cast<int>(r), best_late = p.ranks[r].median_excess_s;
  }
  return best;
}

std::vector<std::pair<std::string, Rule>> rules() {
  return {
      {"(1) last count, binomial vs 1/n + effect when last (before)",
       [](const pc::PaceTimeline&, const pc::TrialPace& p) { return by_last_count(p, alpha_per_rank()); }},
      {"(2) sign test vs others' median > max(clocks, 2%)",
       [](const pc::PaceTimeline& t, const pc::TrialPace& p) { return by_sign_test(t, p.min_effect_s, alpha_per_rank()); }},
      {"(3) sign test vs others' median > clocks only",
       [](const pc::PaceTimeline& t, const pc::TrialPace&) { return by_sign_test(t, 0, alpha_per_rank()); }},
      {"(4) rank sum (Friedman-type) + effect bound",
       [](const pc::PaceTimeline& t, const pc::TrialPace& p) { return by_rank_sum(t, p); }},
      {"(5) (1) or (2), each at alpha / 2",
       [](const pc::PaceTimeline& t, const pc::TrialPace& p) {
         int a = by_sign_test(t, p.min_effect_s, alpha_per_rank(0.5));
         return a >= 0 ? a : by_last_count(p, alpha_per_rank(0.5));
       }},
      {"(6) rank sum after moving each rank max(clocks, 2%) earlier [shipped]",
       [](const pc::PaceTimeline&, const pc::TrialPace& p) { return p.setter; }},
      {"(7) last count after moving each rank max(clocks, 2%) earlier",
       [](const pc::PaceTimeline& t, const pc::TrialPace& p) { return by_shifted_last_count(t, p); }},
      {"(8) Wilcoxon vs every other rank, each > max(clocks, 2%)",
       [](const pc::PaceTimeline& t, const pc::TrialPace& p) { return by_pairs(t, p, true); }},
      {"(9) sign test vs every other rank, each > max(clocks, 2%)",
       [](const pc::PaceTimeline& t, const pc::TrialPace& p) { return by_pairs(t, p, false); }},
  };
}

struct Counts {
  int right = 0, wrong = 0, aa = 0;
};

void run_case(const Noise& noise, int blocks, double dose_share, int trials, std::uint64_t seed) {
  const int slow = 1;
  auto rs = rules();
  std::vector<Counts> c(rs.size());
  Rng g(seed);
  std::vector<double> unc(kRanks, kUncertaintyS);
  unc[0] = 0;
  for (int i = 0; i < trials; ++i) {
    pc::PaceTimeline s = trial(noise, blocks, slow, dose_share * noise.step_s, g), a = trial(noise, blocks, -1, 0, g);
    pc::TrialPace ps = pc::name_trial_pace(s, unc), pa = pc::name_trial_pace(a, unc);
    for (std::size_t k = 0; k < rs.size(); ++k) {
      int named = rs[k].second(s, ps);
      c[k].right += named == slow;
      c[k].wrong += named >= 0 && named != slow;
      c[k].aa += rs[k].second(a, pa) >= 0;
    }
  }
  fmt::print("\n{}; {} blocks; rank 1 slowed by {:g}% of the step; {} trials each\n", noise.name, blocks,
             100 * dose_share, trials);
  fmt::print("| rule | slowed rank named | another named | A/A naming a rank |\n|---|---:|---:|---:|\n");
  auto pct = [&](int k) { return fmt::format("{:.1f}%", 100.0 * k / trials); };
  for (std::size_t k = 0; k < rs.size(); ++k)
    fmt::print("| {} | {} | {} | {} |\n", rs[k].first, pct(c[k].right), pct(c[k].wrong), pct(c[k].aa));
}

}  // namespace

int main(int argc, char** argv) {
  int trials = 2000;
  std::uint64_t seed = 32;
  for (int i = 1; i + 1 < argc; i += 2) {
    std::string a = argv[i];
    if (a == "--trials") trials = std::atoi(argv[i + 1]);
    else if (a == "--seed") seed = std::strtoull(argv[i + 1], nullptr, 10);
  }
  if (trials < 1) {
    fmt::print(stderr, "placebench-pace-sim: --trials must be at least 1\n");
    return 2;
  }
  auto ns = noises();
  run_case(ns[0], 100, 0.10, trials, seed);
  run_case(ns[0], 10, 0.10, trials, seed + 1);
  for (std::size_t k = 1; k < ns.size(); ++k)
    for (double dose : {0.10, 0.05}) run_case(ns[k], 40, dose, trials, seed + 10 * k + static_cast<std::uint64_t>(dose * 100));
  return 0;
}
