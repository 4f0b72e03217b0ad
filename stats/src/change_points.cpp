// detect_change_points: binary segmentation driven by the permutation-tested robust CUSUM of
// change_points_scan.cpp. Each segment (the whole series first) is scanned; a significant split that also
// passes the CI-aware gate is a change (its split refined to where the medians fit best; a step of more
// than kObviousScales within-side noise scales needs no permutation test, which short series cannot pass),
// and both sides are scanned in turn, down to 2 * min_segment runs.
// Levels are the medians of the final segments on either side (docs/statistics.md, "Change points").
#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "change_points_scan.h"
#include "placebench/stats/change_points.h"

namespace placebench::stats {
namespace {

constexpr const char* kWhere = "detect_change_points";

[[noreturn]] void fail(const std::string& message) { throw std::invalid_argument(std::string(kWhere) + ": " + message); }

// The smallest p-value B permutations can give is 1 / (B + 1).
void check_permutations(const std::string& name, std::size_t permutations, const std::string& level_name,
                        double level) {
  if (static_cast<double>(permutations + 1) * level < 1.0)
    fail(name + " (" + std::to_string(permutations) + ") must be at least 1 / " + level_name + " - 1 = " +
         std::to_string(static_cast<long long>(std::ceil(1.0 / level - 1.0))) + " for " + level_name + " " +
         std::to_string(level));
}

void validate_options(const ChangePointOptions& o) {
  if (!(o.alpha > 0.0 && o.alpha < 1.0)) fail("alpha must be in (0, 1), e.g. 0.01; got " + std::to_string(o.alpha));
  if (o.min_segment == 0) fail("min_segment must be at least 1");
  if (!(o.min_relative_change >= 0.0 && std::isfinite(o.min_relative_change)))
    fail("min_relative_change must be a finite fraction >= 0; got " + std::to_string(o.min_relative_change));
  if (!(o.clip > 0.0)) fail("clip must be > 0 (noise scales), e.g. 3; got " + std::to_string(o.clip));
  if (!(o.run_ci_confidence > 0.0 && o.run_ci_confidence < 1.0))
    fail("run_ci_confidence must be in (0, 1), e.g. 0.95; got " + std::to_string(o.run_ci_confidence));
  if (!(o.recent_alpha > 0.0 && o.recent_alpha < 1.0))
    fail("recent_alpha must be in (0, 1), e.g. 0.002; got " + std::to_string(o.recent_alpha));
  check_permutations("permutations", o.permutations, "alpha", o.alpha);
  if (o.recent_runs >= o.min_segment)
    check_permutations("recent_permutations", o.recent_permutations, "recent_alpha", o.recent_alpha);
}

void validate_series(std::span<const SeriesPoint> series) {
  for (std::size_t i = 0; i < series.size(); ++i) {
    const SeriesPoint& p = series[i];
    const std::string at = "series[" + std::to_string(i) + "]";
    if (!std::isfinite(p.value) || !std::isfinite(p.ci_lower) || !std::isfinite(p.ci_upper))
      fail(at + " has a non-finite value or CI bound");
    if (p.ci_lower > p.ci_upper)
      fail(at + " has an inverted CI (ci_lower " + std::to_string(p.ci_lower) + " > ci_upper " +
           std::to_string(p.ci_upper) + ")");
  }
}

struct Found {
  std::size_t index = 0;
  double p_value = 1.0;
};

// Binary segmentation over [0, n): a work list of segments; each stream number names its segment, so the
// permutations of a segment do not depend on the order segments are visited in.
std::vector<Found> segment_series(std::span<const SeriesPoint> series, std::span<const double> values,
                                  const ChangePointOptions& options) {
  std::vector<Found> found;
  std::vector<std::pair<std::size_t, std::size_t>> work{{0, values.size()}};
  while (!work.empty()) {
    const auto [first, last] = work.back();
    work.pop_back();
    if (last - first < 2 * options.min_segment) continue;
    const unsigned long long stream = (static_cast<unsigned long long>(first) << 32) ^ last;
    const std::span<const double> segment = values.subspan(first, last - first);
    const double floor = detail::run_ci_floor(series.subspan(first, last - first), options.run_ci_confidence);
    const double scale = detail::difference_scale(segment, floor);
    detail::ScanResult scan = detail::scan_segment(segment, scale, options, stream);
    if (scan.significant) scan.split = detail::refine_split(segment, scan.split, scale * options.clip, options.min_segment);
    else scan = detail::obvious_step(segment, floor, options.min_segment);
    if (!scan.significant) continue;
    if (!detail::change_passes_gate(segment, floor, scan.split, options)) continue;
    const std::size_t at = first + scan.split;
    found.push_back({at, scan.p_value});
    work.emplace_back(first, at);
    work.emplace_back(at, last);
  }
  std::sort(found.begin(), found.end(), [](const Found& a, const Found& b) { return a.index < b.index; });
  return found;
}

// The recent stage after binary segmentation: a step among the last recent_runs runs of the last segment,
// judged against the recent_window runs before them (change_points_recent.cpp).
void add_recent_change(std::span<const SeriesPoint> series, std::span<const double> values,
                       const ChangePointOptions& options, std::vector<Found>& found) {
  const std::size_t n = values.size(), reach = options.recent_runs + options.recent_window;
  const std::size_t first = std::max(found.empty() ? 0 : found.back().index, n > reach ? n - reach : 0);
  if (options.recent_runs < options.min_segment || n - first < 2 * options.min_segment) return;
  const std::span<const double> window = values.subspan(first);
  const double floor = detail::run_ci_floor(series.subspan(first), options.run_ci_confidence);
  const double scale = detail::difference_scale(window, floor);
  constexpr unsigned long long kRecentStream = 0x526563656E74ULL;  // "Recent": apart from the segments' streams
  const detail::ScanResult scan = detail::scan_recent(window, scale, options, kRecentStream ^ (first << 20) ^ n);
  if (!scan.significant) return;
  const std::size_t split = detail::refine_split(window, scan.split, scale * options.clip, options.min_segment);
  if (!detail::change_passes_gate(window, floor, split, options)) return;
  found.push_back({first + split, scan.p_value});
}

}  // namespace

std::vector<ChangePoint> detect_change_points(std::span<const SeriesPoint> series, const ChangePointOptions& options) {
  validate_options(options);
  validate_series(series);
  if (series.size() < 2 * options.min_segment) return {};
  std::vector<double> values(series.size());
  for (std::size_t i = 0; i < series.size(); ++i) values[i] = series[i].value;
  std::vector<Found> found = segment_series(series, values, options);
  add_recent_change(series, values, options, found);
  std::vector<ChangePoint> changes;
  changes.reserve(found.size());
  const std::span<const double> all(values);
  for (std::size_t c = 0; c < found.size(); ++c) {
    const std::size_t begin = c == 0 ? 0 : found[c - 1].index;
    const std::size_t end = c + 1 == found.size() ? values.size() : found[c + 1].index;
    const std::size_t at = found[c].index;
    ChangePoint cp;
    cp.index = at;
    cp.level_before = detail::median_of(all.subspan(begin, at - begin));
    cp.level_after = detail::median_of(all.subspan(at, end - at));
    cp.relative_change = cp.level_before != 0.0 ? cp.level_after / cp.level_before - 1.0 : 0.0;
    cp.p_value = found[c].p_value;
    detail::attribute_change(series, options.evidence_tolerance, cp);
    changes.push_back(std::move(cp));
  }
  return changes;
}

}  // namespace placebench::stats
