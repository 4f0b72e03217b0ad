// placebench-history-realpath-sim: issue 31's change-point targets through the real path
// (docs/performance.md, "Change points from the store"). Each simulated history is a node's run directories,
// written by the runner's own writers (history_run_writer.h: 1 class, local baseline and remote compared),
// added with the code behind `placebench history add` (add_run_dirs) and detected with the code behind
// `placebench history changes` (find_changes on the store, --node and --until as runs arrive):
//   (a) a 5% step at 2% per-run noise, found within 3 runs after it: the detector rerun on the runs up to
//       each new one (`--until`), the change found (+-2 runs) by the prefix ending 3 runs after the step;
//   (b) false alarms per 100-run series on flat histories, with drift and with heavy tails (Student t3,
//       lognormal outliers): offline (the whole history) and rerun after each run from run 10 on;
//   (c) a step at a change of run.json's versions.cuda_driver (12.4 -> 12.6), attributed to it.
// Whatever detector is linked is measured. Usage: placebench-history-realpath-sim [--histories N] [--runs R]
// [--rounds K] [--seed S] [--keep DIR] (DIR keeps each scenario's run directories and store; else they are
// written under $TMPDIR, or /dev/shm, and removed).
#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <map>
#include <random>

#include "history_run_writer.h"
#include "placebench/harness/admission/admission.h"
#include "placebench/harness/history/changes.h"
#include "placebench/harness/history/history.h"

namespace {

namespace fs = std::filesystem;
namespace history = placebench::harness::history;

struct SimOptions {
  int histories = 200, runs = 100, rounds = 5, steps = 8;
  std::uint64_t seed = 20261206;
  std::string keep;  // empty: everything written is removed
};

enum class Noise { kNormal, kStudentT3, kOutliers };

struct Scenario {
  std::string name;
  Noise noise = Noise::kNormal;
  double drift_total = 0.0;   // fraction of the level gained linearly over the history
  double step = 0.0;          // fraction, from a run drawn in 30..70 (0: none)
  bool driver_at_step = false;
};

constexpr double kRunNoise = 0.02;     // per-run sd of the run's statistic, all noise together
constexpr double kRoundNoise = 0.017;  // sd of one round's figure around the run's level (the run's CI)
constexpr double kEpoch0 = 1767225600.0;  // 2026-01-01T00:00:00Z; run i starts i days later (+ node seconds)

double run_epoch(int node, int run) { return kEpoch0 + 86400.0 * run + node; }

// The run-to-run part of the noise: the median of 5 rounds adds about 0.54 x kRoundNoise of its own.
double between_run_sd(int rounds) {
  const double within = 1.2 * kRoundNoise / std::sqrt(static_cast<double>(rounds));
  return std::sqrt(kRunNoise * kRunNoise - within * within);
}

struct SimHistory {
  std::vector<double> level;  // per run, the multiplier of every arm's step times
  int step_at = 0;            // 0: none
};

// One history: a step (up on even nodes, down on odd ones) from a run drawn in the middle 40% of it.
SimHistory simulate(const Scenario& sc, int node, const SimOptions& o, std::mt19937_64& rng) {
  std::normal_distribution<double> z(0.0, 1.0);
  std::student_t_distribution<double> t3(3.0);
  std::uniform_real_distribution<double> u(0.0, 1.0);
  SimHistory h;
  if (sc.step != 0.0) h.step_at = std::uniform_int_distribution<int>(o.runs * 3 / 10, o.runs * 7 / 10)(rng);
  const double sd = between_run_sd(o.rounds);
  for (int i = 0; i < o.runs; ++i) {
    double level = 1.0 + sc.drift_total * i / o.runs;
    if (h.step_at > 0 && i >= h.step_at) level *= 1.0 + (node % 2 == 0 ? sc.step : -sc.step);
    const double e = sc.noise == Noise::kStudentT3 ? sd * t3(rng) / std::sqrt(3.0) : sd * z(rng);
    double v = level * (1.0 + e);
    if (sc.noise == Noise::kOutliers && u(rng) < 0.05) v *= std::exp(0.25 * z(rng));
    h.level.push_back(v);
  }
  return h;
}

// The history's run directories <root>/<node>/run-NNN, written by the runner's writers.
std::vector<std::string> write_history(const std::string& root, int node, const SimHistory& h, const Scenario& sc,
                                       const SimOptions& o, std::mt19937_64& rng) {
  std::normal_distribution<double> z(0.0, 1.0);
  placebench::bench::RunDirSpec spec;
  spec.name = "history-sim";
  spec.command_line = "placebench-history-realpath-sim";
  spec.host = fmt::format("h{:04}", node);
  spec.rounds = o.rounds;
  spec.steps = o.steps;
  spec.classes = 1;
  spec.arms = {"local", "remote"};
  fs::create_directories(root + "/" + spec.host);
  std::vector<std::string> dirs;
  for (int i = 0; i < o.runs; ++i) {
    spec.start_time = placebench::harness::admission::format_rfc3339(run_epoch(node, i));
    const bool new_driver = sc.driver_at_step && i >= h.step_at;
    spec.versions = {{"placebench", "0.1.0"}, {"cuda_driver", new_driver ? "12.6" : "12.4"}};
    dirs.push_back(fmt::format("{}/{}/run-{:03}", root, spec.host, i));
    placebench::bench::write_run_dir(dirs.back(), spec, [&](int, int, int position) {
      const double trial = 1e6 * (position == 0 ? 1.0 : 1.25) * h.level[static_cast<std::size_t>(i)] * (1 + kRoundNoise * z(rng));
      std::vector<std::int64_t> steps;
      for (int s = 0; s < o.steps; ++s) steps.push_back(std::llround(trial * (1 + 0.002 * z(rng))));
      return steps;
    });
  }
  return dirs;
}

struct Written {
  std::string dir, db;
  std::vector<SimHistory> histories;
  double write_s = 0, add_s = 0;
  std::size_t added = 0, not_added = 0;
};

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

// Every history of the scenario written, then added to a fresh store as `history add DB DIR` adds them.
Written write_and_add(const Scenario& sc, const SimOptions& o, const std::string& tmp, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  Written w{tmp + "/" + sc.name, tmp + "/" + sc.name + ".db", {}, 0, 0, 0, 0};
  auto t0 = std::chrono::steady_clock::now();
  for (int n = 0; n < o.histories; ++n) {
    w.histories.push_back(simulate(sc, n, o, rng));
    write_history(w.dir, n, w.histories.back(), sc, o, rng);
  }
  w.write_s = seconds_since(t0);
  t0 = std::chrono::steady_clock::now();
  history::Store store = history::Store::open_for_writing(w.db);
  history::AddReport report = history::add_run_dirs(store, history::find_run_dirs({w.dir}));
  w.add_s = seconds_since(t0);
  w.added = report.outcomes.size();
  w.not_added = report.not_added.size();
  return w;
}

// `history changes DB --node NODE [--until START]`: the node's series from its first `runs` runs.
history::ChangesReport changes_of(const history::Store& store, int node, int runs) {
  history::HistoryFilter f;
  f.node = fmt::format("h{:04}", node);
  f.until_epoch_s = run_epoch(node, runs);
  return history::find_changes(store, f);
}

const history::HistorySeries* series_of(const history::ChangesReport& r, const char* arm, const char* metric) {
  for (const auto& s : r.series)
    if (s.arm == arm && s.metric == metric) return &s;
  return nullptr;
}

bool near(const history::HistorySeries* s, int at, int tolerance) {
  if (s == nullptr) return false;
  for (const auto& c : s->changes)
    if (std::abs(static_cast<int>(c.change.index) - at) <= tolerance) return true;
  return false;
}

struct StepScore {
  int within_3 = 0, within_5 = 0, offline = 0, extra = 0;
};

// (a) the baseline arm's statistic (local/median): how many runs after the step the rerun detector first
// shows it (+-2 runs), and what the whole history shows (+-3 runs; other changes counted as extra).
StepScore score_step(const Written& w, const SimOptions& o) {
  history::Store store = history::Store::open_for_reading(w.db);
  StepScore score;
  for (int n = 0; n < o.histories; ++n) {
    const int at = w.histories[static_cast<std::size_t>(n)].step_at;
    for (int delay = 0; delay <= 5 && at + delay < o.runs; ++delay)
      if (near(series_of(changes_of(store, n, at + delay + 1), "local", "median"), at, 2)) {
        score.within_3 += delay <= 3 ? 1 : 0;
        ++score.within_5;
        break;
      }
    const history::ChangesReport all = changes_of(store, n, o.runs);
    const history::HistorySeries* s = series_of(all, "local", "median");
    score.offline += near(s, at, 3) ? 1 : 0;
    for (const auto& c : s ? s->changes : std::vector<history::SeriesChange>{})
      score.extra += std::abs(static_cast<int>(c.change.index) - at) > 3 ? 1 : 0;
  }
  return score;
}

struct NullScore {
  double offline = 0, rerun = 0;  // changes per series per 100 runs
  double run_sd = 0, ci_half = 0;  // of local/median: sd of the runs' values, mean CI half-width (fractions)
};

// (b) every series (local/median, remote/median, remote/ratio_pct): changes in the whole history, and new
// changes (an index no earlier prefix reported within +-2) as the detector is rerun after each run from 10.
NullScore score_nulls(const Written& w, const SimOptions& o) {
  history::Store store = history::Store::open_for_reading(w.db);
  double offline = 0, rerun = 0, series = 0, sd = 0, half = 0;
  for (int n = 0; n < o.histories; ++n) {
    const history::ChangesReport all = changes_of(store, n, o.runs);
    for (const auto& s : all.series) offline += static_cast<double>(s.changes.size());
    series += static_cast<double>(all.series.size());
    std::map<std::string, std::vector<std::size_t>> seen;
    for (int end = std::min(10, o.runs); end <= o.runs; ++end)
      for (const auto& s : changes_of(store, n, end).series)
        for (const auto& c : s.changes) {
          std::vector<std::size_t>& known = seen[s.arm + "/" + s.metric];
          if (std::none_of(known.begin(), known.end(), [&](std::size_t i) { return (i > c.change.index ? i - c.change.index : c.change.index - i) <= 2; }))
            known.push_back(c.change.index), ++rerun;
        }
    if (const history::HistorySeries* s = series_of(all, "local", "median")) {
      double sum = 0, sum2 = 0;
      for (const auto& p : s->points) sum += p.value, sum2 += p.value * p.value, half += (p.ci_high - p.ci_low) / 2 / p.value;
      const double k = static_cast<double>(s->points.size()), mean = sum / k;
      sd += std::sqrt(std::max(0.0, sum2 / k - mean * mean)) / mean;
    }
  }
  const double per_100 = 100.0 / o.runs, h = std::max(1, o.histories);
  return {offline / series * per_100, rerun / series * per_100, sd / h, half / (h * o.runs)};
}

// (c) the baseline arm's step at the driver change: found (+-3 runs) in the whole history, and attributed
// to "cuda_driver 12.4 -> 12.6".
std::pair<int, int> score_attribution(const Written& w, const SimOptions& o) {
  history::Store store = history::Store::open_for_reading(w.db);
  int found = 0, attributed = 0;
  for (int n = 0; n < o.histories; ++n) {
    const int at = w.histories[static_cast<std::size_t>(n)].step_at;
    const history::ChangesReport all = changes_of(store, n, o.runs);
    const history::HistorySeries* s = series_of(all, "local", "median");
    for (const auto& c : s ? s->changes : std::vector<history::SeriesChange>{}) {
      if (std::abs(static_cast<int>(c.change.index) - at) > 3) continue;
      ++found;
      attributed += c.attribution && c.attribution->find("cuda_driver 12.4 -> 12.6") != std::string::npos ? 1 : 0;
      break;
    }
  }
  return {found, attributed};
}

std::string scenario_line(const Scenario& sc, const Written& w, const SimOptions& o) {
  const double h = std::max(1, o.histories);
  std::string line = fmt::format("| {} | {:.1f} s | {:.2f} ms | {} | ", sc.name, w.write_s,
                                 1e3 * w.add_s / std::max<double>(1, static_cast<double>(w.added)), w.not_added);
  if (sc.driver_at_step) {
    const auto [found, attributed] = score_attribution(w, o);
    return line + fmt::format("(c) step found (+-3) in {:.3f}; attributed to cuda_driver 12.4 -> 12.6 in {:.3f} of those ({} of {}) |",
                              found / h, found ? static_cast<double>(attributed) / found : 0.0, attributed, found);
  }
  if (sc.step != 0.0) {
    const StepScore s = score_step(w, o);
    return line + fmt::format("(a) within 3 runs {:.3f}, within 5 {:.3f}, offline +-3 {:.3f}, extra {:.3f} per series |",
                              s.within_3 / h, s.within_5 / h, s.offline / h, s.extra / h);
  }
  const NullScore s = score_nulls(w, o);
  return line + fmt::format("(b) {:.3f} offline / {:.3f} rerun per 100 runs per series; local/median sd {:.2f}%, "
                            "CI +-{:.2f}% |", s.offline, s.rerun, 100 * s.run_sd, 100 * s.ci_half);
}

// $TMPDIR when set, else /dev/shm where there is one (the runner's writers fsync every file: on a disk that,
// not the store, would be what the simulation waits for), else the system's temporary folder.
std::string work_root() {
  std::error_code ec;
  if (std::getenv("TMPDIR") == nullptr && fs::is_directory("/dev/shm", ec) && ::access("/dev/shm", W_OK) == 0) return "/dev/shm";
  return fs::temp_directory_path().string();
}

int parse(int argc, char** argv, SimOptions& o) {
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string flag = argv[i], value = argv[i + 1];
    if (flag == "--histories") o.histories = std::stoi(value);
    else if (flag == "--runs") o.runs = std::stoi(value);
    else if (flag == "--rounds") o.rounds = std::stoi(value);
    else if (flag == "--seed") o.seed = std::stoull(value);
    else if (flag == "--keep") o.keep = value;
    else return 2;
  }
  const bool ok = argc % 2 == 1 && o.histories >= 1 && o.runs >= 12 && o.rounds >= 2;
  return ok ? 0 : 2;
}

}  // namespace

int main(int argc, char** argv) {
  SimOptions o;
  if (parse(argc, argv, o) != 0) {
    std::cerr << "usage: placebench-history-realpath-sim [--histories N>=1] [--runs R>=12] [--rounds K>=2] [--seed S] "
                 "[--keep DIR]\n";
    return 2;
  }
  const std::vector<Scenario> scenarios = {{"step 5%", Noise::kNormal, 0.0, 0.05, false},
                                           {"step 5% at driver change", Noise::kNormal, 0.0, 0.05, true},
                                           {"flat", Noise::kNormal, 0.0, 0.0, false},
                                           {"drift 2%", Noise::kNormal, 0.02, 0.0, false},
                                           {"drift 5%", Noise::kNormal, 0.05, 0.0, false},
                                           {"t3", Noise::kStudentT3, 0.0, 0.0, false},
                                           {"outliers", Noise::kOutliers, 0.0, 0.0, false}};
  const std::string tmp = o.keep.empty() ? fmt::format("{}/placebench-history-sim-{}", work_root(), ::getpid()) : o.keep;
  fs::remove_all(tmp);
  fs::create_directories(tmp);
  fmt::print("{} histories x {} runs per scenario ({} rounds x {} steps per arm, local and remote), seed {}\n\n"
             "| scenario | write | history add per dir | not added | figures |\n|---|---|---|---|---|\n",
             o.histories, o.runs, o.rounds, o.steps, o.seed);
  int status = 0;
  try {
    for (std::size_t k = 0; k < scenarios.size(); ++k) {
      const Written w = write_and_add(scenarios[k], o, tmp, o.seed + 101 * k);
      fmt::print("{}\n", scenario_line(scenarios[k], w, o));
      std::fflush(stdout);
      status = w.not_added > 0 ? 1 : status;
      if (o.keep.empty()) fs::remove_all(w.dir);
    }
  } catch (const std::exception& e) {
    std::cerr << "placebench-history-realpath-sim: " << e.what() << "\n";
    status = 1;
  }
  if (o.keep.empty()) fs::remove_all(tmp);
  return status;
}
