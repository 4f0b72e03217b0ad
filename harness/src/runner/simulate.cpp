// Monte Carlo of whole experiments through analyze_run (simulate.h). Portable randomness: mt19937_64 is
// fully specified by the standard; normals come from our own Box-Muller, not std::normal_distribution.
#include "placebench/harness/runner/simulate.h"

#include <algorithm>
#include <cmath>
#include <numbers>
#include <random>
#include <set>
#include <stdexcept>

#include "placebench/harness/runner/analysis.h"
#include "placebench/harness/runner/default_config.h"

namespace placebench::harness {
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

void validate(const RunSimulation& s) {
  const auto fail = [](const std::string& m) { throw std::invalid_argument("run simulation: " + m); };
  if (s.experiments < 1) fail("experiments must be >= 1");
  if (!(s.round_sd >= 0)) fail("round_sd must be >= 0");
  if (!(std::fabs(s.ar_phi) < 1)) fail("ar_phi must be in (-1, 1)");
  for (const auto& [k, e] : s.effect_pct)
    if (!(e > -100)) fail("effect of " + k + " must be > -100%");
  if (s.config.classes.empty()) fail("the config has no classes");
}

TrialRecord trial_record(const std::string& cls, const std::string& arm, int round, double value, bool degenerate,
                         bool failed) {
  TrialRecord t;
  t.class_name = cls;
  t.arm = arm;
  t.round = round;
  if (degenerate) t.flags = {"degenerate"};
  if (failed) t.flags.push_back("placement_failed");
  t.placement_status = failed ? "failed" : "verified";
  t.degenerate = degenerate;
  t.step_ns = {value};
  t.summary = {{"median_ns", value}, {"p99_ns", value}, {"throughput_steps_s", 1e9 / value}};
  return t;
}

double effect_of(const RunSimulation& sim, const std::string& key) {
  auto it = sim.effect_pct.find(key);
  return it == sim.effect_pct.end() ? 0.0 : it->second;
}

// The class's conditions ({nullptr}: none).
std::vector<const Condition*> conditions_of(const ClassConfig& cls) {
  std::vector<const Condition*> out;
  for (const Condition& k : cls.conditions) out.push_back(&k);
  if (out.empty()) out.push_back(nullptr);
  return out;
}

// A trial under a condition, with the aggressor's dose as the runner records it measured.
void with_condition(const RunSimulation& sim, const Condition& k, TrialRecord& t) {
  t.condition = k.name;
  if (k.quiet()) return;
  t.aggressor_cores = k.threads;
  if (k.hog == Condition::Hog::kMembw) t.aggressor_gbps = k.threads * sim.gbps_per_thread;
}

struct Series {
  double u = 0;  // the arm's AR(1) state
};

struct Experiment {
  std::vector<ClassAnalysis> final;
  std::vector<int> rounds_used;
};

Experiment run_one(const RunSimulation& sim, std::uint64_t seed) {
  const ExperimentConfig& cfg = sim.config;
  NormalSource normal(seed);
  const double arm_sd = sim.round_sd / std::sqrt(2.0);
  const double innovation_sd = arm_sd * std::sqrt(1 - sim.ar_phi * sim.ar_phi);
  const std::set<std::string> degenerate(sim.degenerate.begin(), sim.degenerate.end());
  std::map<std::string, Series> series;
  std::vector<TrialRecord> trials;
  std::vector<bool> stopped(cfg.classes.size(), false);
  Experiment e;
  e.rounds_used.assign(cfg.classes.size(), cfg.max_rounds);
  const std::vector<int> looks = planned_looks(cfg);
  for (int round = 0; round < cfg.max_rounds; ++round) {
    for (std::size_t ci = 0; ci < cfg.classes.size(); ++ci) {
      if (stopped[ci]) continue;
      const ClassConfig& cls = cfg.classes[ci];
      const double shared = 0.05 * normal.next();
      for (const Condition* k : conditions_of(cls))
        for (Arm arm : cls.arms()) {
          const std::string key = cls.name + "/" + arm_name(arm), cell = k ? key + "@" + k->name : key;
          Series& s = series[cell];
          s.u = round == 0 ? arm_sd * normal.next() : sim.ar_phi * s.u + innovation_sd * normal.next();
          const double load = k ? effect_of(sim, cell) : 0.0;
          const double value = 1e6 * std::exp(shared + s.u) * (1 + effect_of(sim, key) / 100) * (1 + load / 100);
          auto fails = sim.fails_from.find(key);
          const bool failed = fails != sim.fails_from.end() && round >= fails->second;
          trials.push_back(trial_record(cls.name, arm_name(arm), round, value, degenerate.count(key) > 0, failed));
          if (k) with_condition(sim, *k, trials.back());
        }
    }
    // The runner analyses after every round; a class can only stop at a planned look, so looking
    // there alone gives the same stops.
    if (std::find(looks.begin(), looks.end(), round + 1) == looks.end()) continue;
    std::vector<ClassAnalysis> analysis = analyze_run(cfg, trials);
    for (std::size_t ci = 0; ci < cfg.classes.size(); ++ci)
      if (!stopped[ci] && analysis[ci].stop) {
        stopped[ci] = true;
        e.rounds_used[ci] = round + 1;
      }
    e.final = std::move(analysis);
    if (std::all_of(stopped.begin(), stopped.end(), [](bool b) { return b; })) break;
  }
  return e;
}

// The load comparisons of one experiment into r.loads; whether one of zero effect said faster or slower.
bool tally_loads(const RunSimulation& sim, const std::vector<ClassAnalysis>& final, SimulationResult& r) {
  bool false_load = false;
  for (const ClassAnalysis& c : final)
    for (const ClassAnalysis& k : c.conditions)
      for (const ArmAnalysis& a : k.arms) {
        if (!a.load_compared) continue;
        const std::string key = c.name + "/" + a.arm + "@" + k.condition;
        ArmTally& t = r.loads[key];
        t.faster += a.load_verdict == "faster";
        t.slower += a.load_verdict == "slower";
        t.equivalent += a.load_verdict == "equivalent";
        t.inconclusive += a.load_verdict == "inconclusive";
        t.mean_rounds += static_cast<double>(a.load_rounds) / sim.experiments;
        if ((a.load_verdict == "faster" || a.load_verdict == "slower") && effect_of(sim, key) == 0) false_load = true;
      }
  return false_load;
}

}  // namespace

ExperimentConfig default_experiment_config() {
  return parse_experiment_config(default_config_yaml(), "configs/default.yaml (built in)");
}

SimulationResult simulate_runs(const RunSimulation& sim) {
  validate(sim);
  SimulationResult r;
  r.experiments = sim.experiments;
  r.max_rounds = sim.config.max_rounds;
  double rounds = 0;
  for (int i = 0; i < sim.experiments; ++i) {
    Experiment e = run_one(sim, mix(sim.seed ^ mix(static_cast<std::uint64_t>(i))));
    bool false_different = false, false_unflagged = false, flagged = false;
    for (const ClassAnalysis& c : e.final)
      for (const ArmAnalysis& a : c.arms) {
        if (a.role == "baseline") continue;
        const std::string key = c.name + "/" + a.arm;
        ArmTally& t = r.arms[key];
        const bool different = a.verdict == "faster" || a.verdict == "slower";
        t.faster += a.verdict == "faster";
        t.slower += a.verdict == "slower";
        t.equivalent += a.verdict == "equivalent";
        t.inconclusive += a.verdict == "inconclusive";
        t.other += a.verdict == "control" || a.verdict == "unrealised";
        t.dependence_flagged += a.dependence_flagged;
        flagged = flagged || a.dependence_flagged;
        t.aa_failed += a.aa_check == "failed";
        t.different_unflagged += different && !a.dependence_flagged;
        t.mean_rounds += static_cast<double>(a.n_rounds) / sim.experiments;
        auto it = sim.effect_pct.find(key);
        if (different && (it == sim.effect_pct.end() || it->second == 0)) {
          false_different = true;
          false_unflagged = false_unflagged || !a.dependence_flagged;
        }
      }
    r.any_false_load += tally_loads(sim, e.final, r);
    r.any_false_different += false_different;
    r.any_false_different_unflagged += false_unflagged;
    r.any_flagged += flagged;
    for (int used : e.rounds_used) rounds += used;
  }
  r.mean_rounds = rounds / (static_cast<double>(sim.experiments) * static_cast<double>(sim.config.classes.size()));
  return r;
}

int fixed_rounds_for_power(const RunSimulation& sim, const std::string& key, const std::string& verdict, double power,
                           int max_n) {
  auto reaches = [&](int n) {
    RunSimulation fixed = sim;
    fixed.config.min_rounds = fixed.config.max_rounds = n;
    fixed.config.looks = 1;
    const ArmTally t = simulate_runs(fixed).arms[key];
    const int hits = verdict == "slower" ? t.slower : verdict == "faster" ? t.faster : t.equivalent;
    return static_cast<double>(hits) / fixed.experiments >= power;
  };
  // Power grows with n (up to Monte Carlo noise): bisection over [2, max_n].
  int lo = 2, hi = max_n + 1;
  while (lo < hi) {
    const int mid = (lo + hi) / 2;
    if (reaches(mid)) hi = mid;
    else lo = mid + 1;
  }
  return lo;
}

}  // namespace placebench::harness
