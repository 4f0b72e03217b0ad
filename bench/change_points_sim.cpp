// placebench-change-points-sim: the targets of issue 31 for stats::detect_change_points, measured on
// simulated histories (docs/performance.md, "Change points"), and the same histories through two
// alternatives (change_points_alternatives.h): (a) a 5% step at 2% per-run noise found within 3 runs after it
// (the detector rerun as each run arrives, as CI would); (b) false alarms per 100 runs on flat histories,
// with drift, with Student t3 noise and with lognormal outliers, offline and when rerun after every run;
// (c) a step at an evidence change attributed to it; (d) the time to detect 6,000 series x 100 runs.
// Usage: placebench-change-points-sim [--histories N] [--series N] [--seed S] [--alpha A] [--permutations B]
//        [--recent-runs K]
//        [--recent-window W] [--recent-alpha A]   (the detector's levels and recent stage, for calibration)
#include <fmt/format.h>
#include <sys/resource.h>

#include <chrono>
#include <cmath>
#include <cstdlib>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include "change_points_alternatives.h"
#include "placebench/stats/change_points.h"

namespace {

namespace stats = placebench::stats;
namespace pbb = placebench::bench;

enum class Noise { kNormal, kStudentT3, kOutliers };

struct History {
  std::size_t runs = 100;
  Noise noise = Noise::kNormal;
  double drift_total = 0.0;       // fraction of the level gained linearly over the history
  std::size_t step_at = 0;        // 0: no step
  double step = 0.0;              // fraction
  bool evidence_at_step = false;
};

// One run: level 100 times (1 + noise), 2% per-run noise (standard deviation; t3 scaled to the same), a CI
// of +-1.96 x 1% (the run's rounds) times U(0.7, 1.3).
std::vector<stats::SeriesPoint> simulate(const History& h, std::mt19937_64& rng) {
  std::normal_distribution<double> z(0.0, 1.0);
  std::student_t_distribution<double> t3(3.0);
  std::uniform_real_distribution<double> u(0.0, 1.0);
  std::vector<stats::SeriesPoint> s(h.runs);
  for (std::size_t i = 0; i < h.runs; ++i) {
    double level = 100.0 * (1.0 + h.drift_total * static_cast<double>(i) / static_cast<double>(h.runs));
    if (h.step_at > 0 && i >= h.step_at) level *= 1.0 + h.step;
    double e = h.noise == Noise::kStudentT3 ? 0.02 * t3(rng) / std::sqrt(3.0) : 0.02 * z(rng);
    double v = level * (1.0 + e);
    if (h.noise == Noise::kOutliers && u(rng) < 0.05) v *= std::exp(0.25 * z(rng));
    const double half = 1.96 * 0.01 * level * (0.7 + 0.6 * u(rng));
    const bool changed = h.evidence_at_step && h.step_at > 0 && i >= h.step_at;
    s[i] = {v, v - half, v + half, changed ? "e2" : "e1", changed ? "driver 560.28" : "driver 550.54"};
  }
  return s;
}

using Detector = std::function<std::vector<std::size_t>(std::span<const stats::SeriesPoint>)>;

struct Method {
  std::string name;
  Detector detect;
};

std::vector<double> values_of(std::span<const stats::SeriesPoint> s) {
  std::vector<double> v;
  v.reserve(s.size());
  for (const auto& p : s) v.push_back(p.value);
  return v;
}

Detector shipped(const stats::ChangePointOptions& options) {
  return [options](std::span<const stats::SeriesPoint> s) {
    std::vector<std::size_t> idx;
    for (const auto& c : stats::detect_change_points(s, options)) idx.push_back(c.index);
    return idx;
  };
}

// The shipped detector with `options` (the defaults unless flags say otherwise), the same without its recent
// stage, the detector as it was before the recent stage (binary segmentation alone at alpha 0.01), and the
// two alternatives.
std::vector<Method> methods(const stats::ChangePointOptions& options) {
  stats::ChangePointOptions without_recent = options, before = options;
  without_recent.recent_runs = 0;
  before.recent_runs = 0;
  before.alpha = 0.01;
  return {
      {fmt::format("robust CUSUM at {} + recent stage (shipped)", options.alpha), shipped(options)},
      {fmt::format("robust CUSUM at {}, no recent stage", options.alpha), shipped(without_recent)},
      {"robust CUSUM at 0.01 alone (before)", shipped(before)},
      {"t-test binary segmentation",
       [](std::span<const stats::SeriesPoint> s) { return pbb::ttest_binary_segmentation(values_of(s), 0.01, 3); }},
      {"Pettitt binary segmentation",
       [](std::span<const stats::SeriesPoint> s) { return pbb::pettitt_binary_segmentation(values_of(s), 0.01, 3); }},
  };
}

bool near(const std::vector<std::size_t>& found, std::size_t at, std::size_t tolerance) {
  for (const std::size_t i : found)
    if ((i > at ? i - at : at - i) <= tolerance) return true;
  return false;
}

// Reruns the detector on each prefix [0, end) for end = first_end..size, as CI does after each run; counts
// alarms: a change reported at an index that no earlier prefix reported (within +-2 runs).
std::size_t sequential_alarms(const Detector& d, std::span<const stats::SeriesPoint> s, std::size_t first_end) {
  std::vector<std::size_t> seen;
  std::size_t alarms = 0;
  for (std::size_t end = first_end; end <= s.size(); ++end)
    for (const std::size_t i : d(s.first(end)))
      if (!near(seen, i, 2)) seen.push_back(i), ++alarms;
  return alarms;
}

// Runs after the step (the step's run is 0) when the prefix first shows a change at the step (+-2), or -1.
int detection_delay(const Detector& d, std::span<const stats::SeriesPoint> s, std::size_t at, int max_delay) {
  for (int delay = 0; delay <= max_delay && at + static_cast<std::size_t>(delay) < s.size(); ++delay)
    if (near(d(s.first(at + static_cast<std::size_t>(delay) + 1)), at, 2)) return delay;
  return -1;
}

struct StepFigures {
  double within_3 = 0.0, within_5 = 0.0, offline = 0.0, offline_extra = 0.0;
};

StepFigures step_histories(const Detector& d, std::size_t histories, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_int_distribution<std::size_t> where(30, 70);
  StepFigures f;
  for (std::size_t h = 0; h < histories; ++h) {
    History spec;
    spec.step_at = where(rng);
    spec.step = h % 2 == 0 ? 0.05 : -0.05;
    const auto s = simulate(spec, rng);
    const int delay = detection_delay(d, s, spec.step_at, 5);
    f.within_3 += delay >= 0 && delay <= 3 ? 1 : 0;
    f.within_5 += delay >= 0 ? 1 : 0;
    const auto found = d(s);
    f.offline += near(found, spec.step_at, 3) ? 1 : 0;
    for (const std::size_t i : found) f.offline_extra += near({spec.step_at}, i, 3) ? 0 : 1;
  }
  const double n = static_cast<double>(histories);
  return {f.within_3 / n, f.within_5 / n, f.offline / n, f.offline_extra / n};
}

struct FalseAlarms {
  double offline = 0.0, sequential = 0.0;  // per series of 100 runs
};

FalseAlarms null_histories(const Detector& d, const History& spec, std::size_t histories, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  FalseAlarms f;
  for (std::size_t h = 0; h < histories; ++h) {
    const auto s = simulate(spec, rng);
    f.offline += static_cast<double>(d(s).size());
    f.sequential += static_cast<double>(sequential_alarms(d, s, 10));
  }
  return {f.offline / static_cast<double>(histories), f.sequential / static_cast<double>(histories)};
}

double attribution_share(const stats::ChangePointOptions& options, std::size_t histories, std::uint64_t seed,
                         double& found_share) {
  std::mt19937_64 rng(seed);
  std::uniform_int_distribution<std::size_t> where(30, 70);
  std::size_t found = 0, attributed = 0;
  for (std::size_t h = 0; h < histories; ++h) {
    History spec;
    spec.step_at = where(rng);
    spec.step = h % 2 == 0 ? 0.05 : -0.05;
    spec.evidence_at_step = true;
    for (const auto& c : stats::detect_change_points(simulate(spec, rng), options)) {
      if (!near({spec.step_at}, c.index, 3)) continue;
      ++found;
      attributed += c.at_evidence_change && c.evidence_change == "driver 550.54 -> 560.28" ? 1u : 0u;
    }
  }
  found_share = static_cast<double>(found) / static_cast<double>(histories);
  return found == 0 ? 0.0 : static_cast<double>(attributed) / static_cast<double>(found);
}

void print_rates(const std::vector<Method>& ms, std::size_t histories, std::uint64_t seed) {
  fmt::print("| method | step: within 3 runs | within 5 | offline +-3 | extra per series |"
             " flat | drift 2% | drift 5% | t3 | outliers |\n|---|---|---|---|---|---|---|---|---|---|\n");
  const std::vector<History> nulls = {{100, Noise::kNormal, 0.0},
                                      {100, Noise::kNormal, 0.02},
                                      {100, Noise::kNormal, 0.05},
                                      {100, Noise::kStudentT3, 0.0},
                                      {100, Noise::kOutliers, 0.0}};
  for (const Method& m : ms) {
    const StepFigures s = step_histories(m.detect, histories, seed);
    std::string row = fmt::format("| {} | {:.3f} | {:.3f} | {:.3f} | {:.3f} |", m.name, s.within_3, s.within_5,
                                  s.offline, s.offline_extra);
    for (std::size_t k = 0; k < nulls.size(); ++k) {
      const FalseAlarms f = null_histories(m.detect, nulls[k], histories, seed + 1 + k);
      row += fmt::format(" {:.3f} / {:.3f} |", f.offline, f.sequential);
    }
    fmt::print("{}\n", row);
  }
}

void print_scale(const stats::ChangePointOptions& options, std::size_t series, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<std::vector<stats::SeriesPoint>> all(series);
  for (std::size_t i = 0; i < series; ++i) {
    History spec;
    if (i % 10 == 0) spec.step_at = 50, spec.step = 0.05;  // a tenth of the series change
    all[i] = simulate(spec, rng);
  }
  const auto t0 = std::chrono::steady_clock::now();
  std::size_t changes = 0;
  for (const auto& s : all) changes += stats::detect_change_points(s, options).size();
  const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  rusage ru{};
  getrusage(RUSAGE_SELF, &ru);
  fmt::print("scale: {} series x 100 runs detected in {:.2f} s on one thread ({:.3f} ms per series), {} changes; "
             "peak RSS {} MiB\n", series, secs, 1e3 * secs / static_cast<double>(series), changes, ru.ru_maxrss / 1024);
}

}  // namespace

int main(int argc, char** argv) {
  std::size_t histories = 1000, series = 6000;
  std::uint64_t seed = 20261205;
  stats::ChangePointOptions options;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string flag = argv[i];
    const auto value = std::strtoull(argv[i + 1], nullptr, 10);
    if (flag == "--histories") histories = value;
    else if (flag == "--series") series = value;
    else if (flag == "--seed") seed = value;
    else if (flag == "--alpha") options.alpha = std::strtod(argv[i + 1], nullptr);
    else if (flag == "--permutations") options.permutations = value;
    else if (flag == "--recent-runs") options.recent_runs = value;
    else if (flag == "--recent-window") options.recent_window = value;
    else if (flag == "--recent-alpha") options.recent_alpha = std::strtod(argv[i + 1], nullptr);
    else {
      fmt::print(stderr, "placebench-change-points-sim: unknown option {}; use --histories, --series, --seed, "
                 "--alpha, --permutations, --recent-runs, --recent-window, --recent-alpha\n", flag);
      return 2;
    }
  }
  fmt::print("{} histories of 100 runs per scenario, seed {}; alpha {}, recent stage: last {} runs against {} "
             "before, alpha {}; false alarms as offline / rerun after each run, per series\n\n", histories, seed,
             options.alpha, options.recent_runs, options.recent_window, options.recent_alpha);
  print_rates(methods(options), histories, seed);
  double found = 0.0;
  const double attributed = attribution_share(options, histories, seed + 100, found);
  fmt::print("\nattribution: step at a driver change found (+-3 runs) in {:.3f} of histories, attributed in {:.3f} "
             "of those\n", found, attributed);
  print_scale(options, series, seed + 200);
  return 0;
}
