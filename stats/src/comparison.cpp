// Arm-versus-baseline comparisons on the log scale (ratios of times or throughputs are multiplicative,
// so the shift model holds on log values), reported as percent: (exp(x) - 1) * 100.
#include "placebench/stats/comparison.h"

#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

#include "validate.h"

namespace placebench::stats {
namespace {

std::vector<double> logs(std::span<const double> values) {
  std::vector<double> out(values.size());
  for (std::size_t i = 0; i < values.size(); ++i) out[i] = std::log(values[i]);
  return out;
}

double percent(double log_ratio) { return std::expm1(log_ratio) * 100.0; }

}  // namespace

double step_time_pct(double ratio_pct, bool throughput) {
  return throughput ? 100.0 / (1.0 + ratio_pct / 100.0) - 100.0 : ratio_pct;
}

PercentCi to_percent(const ShiftCi& log_shift) {
  PercentCi p;
  p.estimate = percent(log_shift.estimate);
  p.lower = percent(log_shift.lower);
  p.upper = percent(log_shift.upper);
  p.half_width = log_shift.coverage_met ? (p.upper - p.lower) / 2.0 : std::numeric_limits<double>::infinity();
  return p;
}

PairedComparison compare_paired(std::span<const double> baseline, std::span<const double> arm, double confidence) {
  constexpr std::string_view kWhere = "compare_paired";
  detail::require_non_empty(kWhere, "baseline", baseline.size());
  if (arm.size() != baseline.size())
    throw std::invalid_argument("compare_paired: baseline has " + std::to_string(baseline.size()) +
                                " rounds but arm has " + std::to_string(arm.size()) +
                                "; paired comparison needs one value per round for each");
  detail::require_positive(kWhere, "baseline", baseline);
  detail::require_positive(kWhere, "arm", arm);
  detail::require_confidence(kWhere, confidence);

  PairedComparison c;
  c.rounds = baseline.size();
  std::vector<double> d(c.rounds);
  for (std::size_t i = 0; i < c.rounds; ++i) {
    d[i] = std::log(arm[i] / baseline[i]);
    if (d[i] == 0.0) ++c.zero_differences;
  }
  c.log_ratio = hodges_lehmann_one_sample(d, confidence);
  c.ratio_pct = to_percent(c.log_ratio);
  c.wilcoxon = wilcoxon_signed_rank(d);
  return c;
}

UnpairedComparison compare_unpaired(std::span<const double> baseline, std::span<const double> arm,
                                    double confidence) {
  constexpr std::string_view kWhere = "compare_unpaired";
  detail::require_non_empty(kWhere, "baseline", baseline.size());
  detail::require_non_empty(kWhere, "arm", arm.size());
  detail::require_positive(kWhere, "baseline", baseline);
  detail::require_positive(kWhere, "arm", arm);
  detail::require_confidence(kWhere, confidence);

  UnpairedComparison c;
  c.n_baseline = baseline.size();
  c.n_arm = arm.size();
  const std::vector<double> log_baseline = logs(baseline), log_arm = logs(arm);
  c.log_ratio = hodges_lehmann_two_sample(log_baseline, log_arm, confidence);
  c.ratio_pct = to_percent(c.log_ratio);
  c.mann_whitney = mann_whitney_u(log_baseline, log_arm);
  return c;
}

}  // namespace placebench::stats
