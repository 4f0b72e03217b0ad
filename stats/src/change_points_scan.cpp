// The test behind detect_change_points: a robust CUSUM scanned over every split of a segment, its null
// distribution by permutation of the segment's own scores, and the CI-aware gate (docs/statistics.md,
// "Change points"). Scores are psi(x) = clip((x - median) / s, +-c), s the noise scale from first
// differences floored by the runs' CIs (raw deviations when s is 0: exactly constant runs, no CI); the statistic is max_k |S_k| sqrt(n / (k (n - k))) over the allowed splits, S_k the sum of
// the first k centred scores. Under "no change" the runs are exchangeable, so the permutation p-value is
// exact whatever the noise's distribution (heavy tails, outliers); the clip keeps one outlier from looking
// like a step and costs little power on Gaussian noise.
#include <algorithm>
#include <cmath>
#include <functional>
#include <numbers>
#include <vector>

#include "change_points_scan.h"
#include "placebench/stats/normal.h"

namespace placebench::stats::detail {
namespace {

// w[k] = sqrt(n / (k (n - k))): the standardization of the CUSUM at split k (unit variance per score).
std::vector<double> split_weights(std::size_t n) {
  std::vector<double> w(n, 0.0);
  const double nd = static_cast<double>(n);
  for (std::size_t k = 1; k < n; ++k) {
    const double kd = static_cast<double>(k);
    w[k] = std::sqrt(nd / (kd * (nd - kd)));
  }
  return w;
}

double observed_maximum(std::span<const double> y, std::span<const double> w, std::size_t m, std::size_t& argmax) {
  double s = 0.0, best = -1.0;
  for (std::size_t k = 1; k + m <= y.size(); ++k) {
    s += y[k - 1];
    if (k < m) continue;
    const double t = std::fabs(s) * w[k];
    if (t > best) best = t, argmax = k;
  }
  return best;
}

// One permutation by forward Fisher-Yates, building the prefix sums as it goes; stops as soon as a split
// reaches `observed` (the permutation then counts as at least as extreme).
bool permutation_reaches(std::vector<double>& buf, std::span<const double> w, std::size_t m, double observed,
                         SplitMix& rng) {
  const std::size_t n = buf.size();
  double s = 0.0;
  for (std::size_t i = 0; i + m < n; ++i) {
    std::swap(buf[i], buf[i + rng.below(n - i)]);
    s += buf[i];
    const std::size_t k = i + 1;
    if (k >= m && std::fabs(s) * w[k] >= observed) return true;
  }
  return false;
}

}  // namespace

std::vector<double> robust_scores(std::span<const double> values, double scale, double clip) {
  const double center = median_of(values);
  std::vector<double> y(values.size());
  double sum = 0.0;
  for (std::size_t i = 0; i < values.size(); ++i) {
    const double d = values[i] - center;
    y[i] = scale > 0.0 ? std::clamp(d / scale, -clip, clip) : d;
    sum += y[i];
  }
  const double mean = sum / static_cast<double>(y.size());
  for (double& v : y) v -= mean;  // the CUSUM then needs no total: S_n = 0
  return y;
}

PermutationP sequential_permutation_test(std::size_t permutations, double alpha,
                                         const std::function<bool()>& permutation_reaches) {
  // Significant iff (1 + c) / (B + 1) <= alpha, c the permutations at least as extreme: stop once c exceeds
  // that (Besag and Clifford's sequential Monte Carlo test), which makes a flat series cheap.
  const double c_allowed = std::floor(alpha * static_cast<double>(permutations + 1) - 1.0 + 1e-9);
  std::size_t c = 0, done = 0;
  for (; done < permutations; ++done) {
    if (permutation_reaches() && static_cast<double>(++c) > c_allowed) {
      ++done;
      break;
    }
  }
  return {static_cast<double>(1 + c) / static_cast<double>(1 + done),
          done == permutations && static_cast<double>(c) <= c_allowed};
}

double median_of(std::span<const double> values) {
  if (values.empty()) return 0.0;
  std::vector<double> v(values.begin(), values.end());
  const std::size_t mid = v.size() / 2;
  std::nth_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(mid), v.end());
  const double upper = v[mid];
  if (v.size() % 2 == 1) return upper;
  const double lower = *std::max_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(mid));
  return lower + (upper - lower) / 2.0;
}

double mad_scale(std::span<const double> values) {
  if (values.size() < 2) return 0.0;
  const double center = median_of(values);
  std::vector<double> dev(values.size());
  for (std::size_t i = 0; i < values.size(); ++i) dev[i] = std::fabs(values[i] - center);
  return 1.482602218505602 * median_of(dev);
}

double difference_scale(std::span<const double> values, double floor) {
  if (values.size() < 2) return floor;
  std::vector<double> diff(values.size() - 1);
  for (std::size_t i = 0; i + 1 < values.size(); ++i) diff[i] = std::fabs(values[i + 1] - values[i]);
  return std::max(median_of(diff) / (0.6744897501960817 * std::numbers::sqrt2), floor);
}

double run_ci_floor(std::span<const SeriesPoint> segment, double run_ci_confidence) {
  if (segment.empty()) return 0.0;
  const double z = normal_quantile(0.5 + run_ci_confidence / 2.0);
  double sum_sq = 0.0;
  for (const SeriesPoint& p : segment) {
    const double se = (p.ci_upper - p.ci_lower) / (2.0 * z);
    sum_sq += se * se;
  }
  return std::sqrt(sum_sq / static_cast<double>(segment.size()));
}

ScanResult scan_segment(std::span<const double> values, double scale, const ChangePointOptions& options,
                        unsigned long long stream) {
  ScanResult r;
  const std::size_t n = values.size(), m = options.min_segment;
  if (n < 2 * m) return r;
  std::vector<double> y = robust_scores(values, scale, options.clip);
  const std::vector<double> w = split_weights(n);
  r.statistic = observed_maximum(y, w, m, r.split);
  if (!(r.statistic > 0.0)) return r;
  const double observed = r.statistic * (1.0 - 1e-12);  // ties in floating point count as reached
  SplitMix rng{options.seed ^ (stream * 0xD1B54A32D192ED03ULL)};
  const PermutationP p = sequential_permutation_test(
      options.permutations, options.alpha, [&] { return permutation_reaches(y, w, m, observed, rng); });
  r.p_value = p.p_value;
  r.significant = p.significant;
  return r;
}

bool change_passes_gate(std::span<const double> values, double floor, std::size_t split,
                        const ChangePointOptions& options) {
  const double before = median_of(values.first(split)), after = median_of(values.subspan(split));
  if (options.min_relative_change > 0.0) {
    const double rel = before != 0.0 ? std::fabs(after / before - 1.0) : (after != before ? HUGE_VAL : 0.0);
    if (rel < options.min_relative_change) return false;
  }
  // Per-run noise: the between-run scale within the segments, floored by the runs' own CI standard errors
  // (RMS); the medians' standard error is sqrt(pi / 2) times the mean's. The runs' CIs set a floor: a shift
  // the runs themselves cannot resolve is not a change, however consistent the points happen to be.
  const double z = normal_quantile(0.5 + options.run_ci_confidence / 2.0);
  const double sigma = difference_scale(values, floor);
  const double nb = static_cast<double>(split), na = static_cast<double>(values.size() - split);
  const double threshold = z * std::sqrt(std::numbers::pi / 2.0) * sigma * std::sqrt(1.0 / nb + 1.0 / na);
  return std::fabs(after - before) > threshold;
}

}  // namespace placebench::stats::detail
