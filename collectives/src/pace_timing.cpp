// Pace records and the dose rounds (see pace_timing.h).
#include "pace_timing.h"

#include <sched.h>

#include <algorithm>
#include <random>
#include <stdexcept>
#include <string>
#include <tuple>

#include "block_timing.h"
#include "placebench/collectives/clock_sync.h"
#include "placebench/stats/hodges_lehmann.h"

namespace placebench::collectives::detail {
namespace {

constexpr std::size_t kFields = 3;  // start, arrive, depart
constexpr double kConfidence = 0.95;

struct Ci {
  double estimate = 0, lo = 0, hi = 0;
  bool covered = false;  // enough rounds for the confidence asked
};

Ci shift_ci(const std::vector<double>& d) {
  if (d.empty()) return {};
  stats::ShiftCi c = stats::hodges_lehmann_one_sample(d, kConfidence);
  return {c.estimate, c.lower, c.upper, c.coverage_met};
}

// Per round: the median over its steps of f(step).
std::vector<double> round_medians(const std::vector<PaceTimeline>& rounds, double (*f)(const std::vector<RankBlockTimes>&)) {
  std::vector<double> out;
  for (const PaceTimeline& t : rounds) {
    std::vector<double> v;
    for (const auto& block : t) v.push_back(f(block));
    out.push_back(median_of(v));
  }
  return out;
}

// Per round: the median over steps of the slowed ranks' mean own work before the call.
std::vector<double> round_dose(const std::vector<PaceTimeline>& rounds, const std::vector<int>& slow) {
  std::vector<double> out;
  for (const PaceTimeline& t : rounds) {
    std::vector<double> v;
    for (const auto& block : t) {
      double sum = 0;
      for (int r : slow) sum += block.at(static_cast<std::size_t>(r)).compute_s();
      v.push_back(slow.empty() ? 0 : sum / static_cast<double>(slow.size()));
    }
    out.push_back(median_of(v));
  }
  return out;
}

std::vector<double> minus(const std::vector<double>& a, const std::vector<double>& b) {
  std::vector<double> d(a.size());
  for (std::size_t i = 0; i < a.size(); ++i) d[i] = a[i] - b[i];
  return d;
}

}  // namespace

double spin_for_s(double s) {
  double start = steady_now_s(), now = start, yielded = start;
  while (now - start < s) {
    now = steady_now_s();
    if (now - yielded >= kSpinYieldS) sched_yield(), yielded = now;
  }
  return now - start;
}

double PaceRecorder::now_s() const { return steady_now_s() + offset_s_; }

void PaceRecorder::record(double start_s, double arrive_s, double depart_s) {
  wire_.insert(wire_.end(), {start_s, arrive_s, depart_s});
}

PaceTimeline timeline_from_wire(const std::vector<double>& gathered, std::size_t nranks) {
  if (nranks == 0 || gathered.size() % (nranks * kFields) != 0)
    throw std::invalid_argument("pace records: " + std::to_string(gathered.size()) + " values do not split over " +
                                std::to_string(nranks) + " ranks");
  std::size_t records = gathered.size() / (nranks * kFields);
  PaceTimeline t(records, std::vector<RankBlockTimes>(nranks));
  for (std::size_t r = 0; r < nranks; ++r)
    for (std::size_t b = 0; b < records; ++b) {
      const double* p = &gathered[(r * records + b) * kFields];
      t[b][r] = {p[0], p[1], p[2]};
    }
  return t;
}

double step_s(const std::vector<RankBlockTimes>& block) {
  if (block.empty()) return 0;
  double start = block[0].start_s, depart = block[0].depart_s;
  for (const RankBlockTimes& r : block) {
    start = std::min(start, r.start_s);
    depart = std::max(depart, r.depart_s);
  }
  return depart - start;
}

double longest_call_s(const std::vector<RankBlockTimes>& block) {
  double most = 0;
  for (const RankBlockTimes& r : block) most = std::max(most, r.depart_s - r.arrive_s);
  return most;
}

std::vector<std::size_t> dose_order(std::size_t doses, std::uint64_t seed, int round) {
  std::vector<std::size_t> out(doses);
  for (std::size_t i = 0; i < doses; ++i) out[i] = i;
  std::seed_seq seq{static_cast<std::uint32_t>(seed), static_cast<std::uint32_t>(seed >> 32), static_cast<std::uint32_t>(round)};
  std::mt19937_64 rng(seq);
  // Our own index draws: std::shuffle's algorithm is implementation-defined, and every rank must agree.
  for (std::size_t i = out.size(); i > 1; --i) std::swap(out[i - 1], out[rng() % i]);
  return out;
}

DoseFigures reduce_dose(const std::vector<PaceTimeline>& rounds, const std::vector<PaceTimeline>& reference,
                        const std::vector<int>& slow_ranks, const std::vector<double>& uncertainty_s) {
  DoseFigures f;
  f.rounds = static_cast<int>(rounds.size());
  std::vector<double> step = round_medians(rounds, step_s), step0 = round_medians(reference, step_s);
  std::vector<double> call = round_medians(rounds, longest_call_s), call0 = round_medians(reference, longest_call_s);
  std::vector<double> dose = round_dose(rounds, slow_ranks), dose0 = round_dose(reference, slow_ranks);
  f.achieved_us = median_of(dose) * 1e6;
  f.step_us = median_of(step) * 1e6;
  f.collective_us = median_of(call) * 1e6;
  std::vector<double> step_delta = minus(step, step0);
  Ci s = shift_ci(step_delta), c = shift_ci(minus(call, call0)), e = shift_ci(minus(step_delta, minus(dose, dose0)));
  std::tie(f.step_delta_us, f.step_delta_lo_us, f.step_delta_hi_us) = std::tuple(s.estimate * 1e6, s.lo * 1e6, s.hi * 1e6);
  std::tie(f.collective_delta_us, f.collective_delta_lo_us, f.collective_delta_hi_us) =
      std::tuple(c.estimate * 1e6, c.lo * 1e6, c.hi * 1e6);
  std::tie(f.excess_us, f.excess_lo_us, f.excess_hi_us) = std::tuple(e.estimate * 1e6, e.lo * 1e6, e.hi * 1e6);
  // Slowest-rank model: the step grows by the slowest rank's extra work, so the excess is 0.
  f.model = !e.covered ? "unknown" : (e.lo <= 0 && 0 <= e.hi ? "consistent" : "inconsistent");
  PaceTimeline all;
  for (const PaceTimeline& t : rounds) all.insert(all.end(), t.begin(), t.end());
  f.pace = name_trial_pace(all, uncertainty_s);
  return f;
}

namespace {
double dose_seconds(const SlowDose& d, double base_step_s) { return d.percent ? d.value / 100 * base_step_s : d.value; }
}  // namespace

std::vector<DoseFigures> run_dose_rounds(MpiSession& session, const CollectiveBenchConfig& cfg, double offset_s,
                                         double base_step_s, const std::vector<double>& uncertainty_s,
                                         const TimedStep& one_step) {
  const std::size_t doses = cfg.slow_doses.size(), rounds = static_cast<std::size_t>(std::max(cfg.slow_rounds, 0));
  const auto steps = static_cast<std::size_t>(std::max(cfg.iters, 1));
  bool slowed = std::find(cfg.slow_ranks.begin(), cfg.slow_ranks.end(), session.rank()) != cfg.slow_ranks.end();
  // Recorded in execution order; slot[k] says which (round, dose) the k-th run of `steps` records was.
  PaceRecorder rec(offset_s, rounds * doses * steps);
  double longest = 0;
  for (const SlowDose& d : cfg.slow_doses) longest = std::max(longest, dose_seconds(d, base_step_s));
  StartWindows windows(
      cfg.start_at_barrier ? WindowPlan{} : agree_windows(session, offset_s, window_period_s(base_step_s, longest)), offset_s);
  std::vector<std::size_t> slot, missed(doses, 0);
  for (std::size_t round = 0; round < rounds; ++round)
    for (std::size_t d : dose_order(doses, cfg.seed, static_cast<int>(round))) {
      double spin = slowed ? dose_seconds(cfg.slow_doses[d], base_step_s) : 0;
      std::size_t before = windows.missed();
      for (std::size_t i = 0; i < steps; ++i) one_step(spin, rec, windows);
      missed[d] += windows.missed() - before;
      slot.push_back(round * doses + d);
    }
  std::vector<double> all = session.gather_doubles(rec.wire(), 0);
  std::vector<int> missed_all(doses);
  for (std::size_t d = 0; d < doses; ++d) missed_all[d] = static_cast<int>(session.sum(static_cast<double>(missed[d])));
  if (session.rank() != 0) return {};
  PaceTimeline t = timeline_from_wire(all, static_cast<std::size_t>(session.size()));
  std::vector<std::vector<PaceTimeline>> by_dose(doses, std::vector<PaceTimeline>(rounds));
  for (std::size_t k = 0; k < slot.size(); ++k)
    by_dose[slot[k] % doses][slot[k] / doses].assign(t.begin() + static_cast<std::ptrdiff_t>(k * steps),
                                                     t.begin() + static_cast<std::ptrdiff_t>((k + 1) * steps));
  std::vector<DoseFigures> out;
  for (std::size_t d = 0; d < doses; ++d) {
    DoseFigures f = reduce_dose(by_dose[d], by_dose[0], cfg.slow_ranks, uncertainty_s);
    f.dose = cfg.slow_doses[d].text;
    f.set_us = dose_seconds(cfg.slow_doses[d], base_step_s) * 1e6;
    if (!cfg.start_at_barrier) {  // the windows were used
      f.windows_missed = missed_all[d];
      f.window_period_us = windows.period_s() * 1e6;
    }
    out.push_back(std::move(f));
  }
  return out;
}

}  // namespace placebench::collectives::detail
