// Monte Carlo of the sequential rule on a lognormal step-time model (simulation.h). Portable randomness:
// mt19937_64 is fully specified by the standard; uniforms and normals (Box-Muller) are computed here
// rather than by std::normal_distribution, whose algorithm is implementation-defined.
#include "placebench/harness/stats/simulation.h"

#include <algorithm>
#include <cmath>
#include <numbers>
#include <random>
#include <stdexcept>
#include <string>

namespace placebench::harness::stats {
namespace {

// SplitMix64 finaliser (Steele, Lea & Flood 2014): decorrelates the per-experiment seeds.
std::uint64_t mix(std::uint64_t x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

class NormalSource {
 public:
  explicit NormalSource(std::uint64_t seed) : engine_(seed) {}
  double next() {
    if (has_spare_) {
      has_spare_ = false;
      return spare_;
    }
    const double radius = std::sqrt(-2.0 * std::log(uniform()));
    const double angle = 2.0 * std::numbers::pi * uniform();
    spare_ = radius * std::sin(angle);
    has_spare_ = true;
    return radius * std::cos(angle);
  }

 private:
  double uniform() { return (static_cast<double>(engine_() >> 11) + 0.5) * 0x1.0p-53; }  // in (0, 1)
  std::mt19937_64 engine_;
  bool has_spare_ = false;
  double spare_ = 0.0;
};

void validate(const SimulationConfig& c) {
  const auto fail = [](const std::string& m) { throw std::invalid_argument("simulation config: " + m); };
  if (c.experiments < 1) fail("experiments must be >= 1");
  if (c.steps_per_round < 1) fail("steps_per_round must be >= 1");
  if (!(c.base_step_s > 0.0)) fail("base_step_s must be > 0");
  if (!(c.step_sigma >= 0.0 && c.round_sigma >= 0.0 && c.arm_round_sigma >= 0.0)) fail("sigmas must be >= 0");
  if (!(c.true_effect_pct > -100.0)) fail("true_effect_pct must be > -100");
  planned_looks(c.plan.min_rounds, c.plan.max_rounds);  // throws on a bad plan
}

double median_step_time(NormalSource& normal, const SimulationConfig& c, double log_location,
                        std::vector<double>& steps) {
  for (double& s : steps) s = std::exp(log_location + c.step_sigma * normal.next());
  const std::size_t mid = steps.size() / 2;
  std::nth_element(steps.begin(), steps.begin() + static_cast<std::ptrdiff_t>(mid), steps.end());
  if (steps.size() % 2 == 1) return steps[mid];
  const double upper = steps[mid];
  return (*std::max_element(steps.begin(), steps.begin() + static_cast<std::ptrdiff_t>(mid)) + upper) / 2.0;
}

Verdict verdict_of(const PairedComparison& c, const SequentialPlan& plan) {
  if (!c.log_ratio.coverage_met) return Verdict::kInconclusive;
  return classify_verdict(c.ratio_pct.lower, c.ratio_pct.upper, plan.margin_pct, plan.higher_is_better);
}

ExperimentOutcome run_experiment(const SimulationConfig& c, std::uint64_t seed) {
  const SimulatedRounds rounds = simulate_rounds(c, seed);
  ExperimentOutcome out;
  const std::span<const double> base(rounds.baseline), arm(rounds.arm);
  for (int r = c.plan.min_rounds; r <= c.plan.max_rounds; ++r) {
    const auto n = static_cast<std::size_t>(r);
    const Look look = evaluate_look(base.first(n), arm.first(n), c.plan);
    if (look.decision.stop) {
      out.sequential = look.verdict;
      out.rounds_used = r;
      out.stop_reason = look.decision.reason;
      break;
    }
  }
  const double fixed_confidence = bonferroni_confidence(c.plan.confidence, c.plan.classes);
  out.fixed = verdict_of(compare_paired(base, arm, fixed_confidence), c.plan);
  return out;
}

}  // namespace

SimulatedRounds simulate_rounds(const SimulationConfig& c, std::uint64_t experiment_seed) {
  validate(c);
  NormalSource normal(experiment_seed);
  std::vector<double> steps(static_cast<std::size_t>(c.steps_per_round));
  const double log_base = std::log(c.base_step_s);
  const double log_effect = std::log1p(c.true_effect_pct / 100.0);
  SimulatedRounds out;
  for (int r = 0; r < c.plan.max_rounds; ++r) {
    const double shared = c.round_sigma * normal.next();
    const double base_location = log_base + shared + c.arm_round_sigma * normal.next();
    out.baseline.push_back(median_step_time(normal, c, base_location, steps));
    const double arm_location = log_base + log_effect + shared + c.arm_round_sigma * normal.next();
    out.arm.push_back(median_step_time(normal, c, arm_location, steps));
  }
  return out;
}

SimulationSummary simulate_sequential(const SimulationConfig& c) {
  validate(c);
  SimulationSummary s;
  s.experiments = c.experiments;
  double rounds_fraction = 0.0;
  int agree = 0;
  for (int i = 0; i < c.experiments; ++i) {
    const ExperimentOutcome o = run_experiment(c, mix(c.seed ^ mix(static_cast<std::uint64_t>(i))));
    s.outcomes.push_back(o);
    s.faster += o.sequential == Verdict::kFaster;
    s.slower += o.sequential == Verdict::kSlower;
    s.equivalent += o.sequential == Verdict::kEquivalent;
    s.inconclusive += o.sequential == Verdict::kInconclusive;
    agree += o.sequential == o.fixed;
    rounds_fraction += static_cast<double>(o.rounds_used) / c.plan.max_rounds;
  }
  s.decisive_rate = static_cast<double>(s.faster + s.slower) / c.experiments;
  s.mean_rounds_fraction = rounds_fraction / c.experiments;
  s.agreement_with_fixed = static_cast<double>(agree) / c.experiments;
  return s;
}

}  // namespace placebench::harness::stats
