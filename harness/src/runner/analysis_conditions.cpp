// The run analysis of classes with interference conditions (issue 32; analysis.h, docs/statistics.md):
// each (class, condition) is analysed as a class of its own -- its arms compared with the baseline under
// that condition, in the run's one family -- then folded back into one entry per class, with each arm's
// load comparison (the arm under load against itself in the first condition, paired by round) and the
// dose-response slopes over the aggressor's measured dose.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>

#include "analysis_core.h"
#include "placebench/stats/comparison.h"
#include "placebench/stats/quantile.h"
#include "placebench/stats/verdict.h"

namespace placebench::harness {
namespace {

constexpr double kSlopeConfidence = 0.95;  // the dose-response CI over rounds

bool has_conditions(const ExperimentConfig& cfg) {
  return std::any_of(cfg.classes.begin(), cfg.classes.end(), [](const ClassConfig& k) { return !k.conditions.empty(); });
}

// The condition every other is compared with: quiet when listed, else the first.
std::size_t primary_condition(const ClassConfig& cls) {
  for (std::size_t i = 0; i < cls.conditions.size(); ++i)
    if (cls.conditions[i].quiet()) return i;
  return 0;
}

std::string entry_name(const ClassConfig& cls, const Condition& k) { return cls.name + "@" + k.name; }

// Each (class, condition) as a class of its own, its trials renamed to it; entries[ci][k] its index.
struct Expanded {
  ExperimentConfig cfg;
  std::vector<TrialRecord> trials;
  std::vector<std::vector<std::size_t>> entries;
};

Expanded expand(const ExperimentConfig& cfg, const std::vector<TrialRecord>& trials) {
  Expanded x{cfg, {}, {}};
  x.cfg.classes.clear();
  std::map<std::string, const ClassConfig*> by_name;
  for (const ClassConfig& cls : cfg.classes) {
    by_name[cls.name] = &cls;
    std::vector<std::size_t> idx;
    if (cls.conditions.empty()) {
      idx.push_back(x.cfg.classes.size());
      x.cfg.classes.push_back(cls);
    }
    for (const Condition& k : cls.conditions) {
      idx.push_back(x.cfg.classes.size());
      x.cfg.classes.push_back(cls);
      x.cfg.classes.back().name = entry_name(cls, k);
      x.cfg.classes.back().conditions.clear();
    }
    x.entries.push_back(std::move(idx));
  }
  x.trials = trials;
  for (TrialRecord& t : x.trials) {
    auto it = by_name.find(t.class_name);
    if (it != by_name.end() && !it->second->conditions.empty() && !t.condition.empty())
      t.class_name += "@" + t.condition;
  }
  return x;
}

// Statistic of each arm by round, under one expanded entry.
using ByArmRound = std::map<std::string, std::map<int, const TrialRecord*>>;
ByArmRound trials_of(const std::vector<TrialRecord>& trials, const std::string& entry) {
  ByArmRound out;
  for (const TrialRecord& t : trials)
    if (t.class_name == entry) out[t.arm][t.round] = &t;
  return out;
}

// The median of a dose figure over the trials whose hog applied its dose (a starved hog's is not the condition's).
std::optional<double> median_of(const ByArmRound& trials, std::optional<double> TrialRecord::*member) {
  std::vector<double> v;
  for (const auto& [arm, rounds] : trials)
    for (const auto& [r, t] : rounds)
      if (t->*member && !t->aggressor_starved) v.push_back(*(t->*member));
  if (v.empty()) return std::nullopt;
  return stats::median(std::move(v));
}

void describe_condition(const Condition& k, const ByArmRound& trials, ClassAnalysis& e) {
  e.condition = k.name;
  e.hog = hog_name(k.hog);
  e.hog_node = k.quiet() ? "" : k.node;
  e.hog_threads = k.threads;
  e.aggressor_gbps = median_of(trials, &TrialRecord::aggressor_gbps);
  e.aggressor_cores = median_of(trials, &TrialRecord::aggressor_cores);
  bool degenerate = false;
  int starved = 0, all = 0;
  for (const auto& [arm, rounds] : trials)
    for (const auto& [r, t] : rounds) degenerate = degenerate || t->aggressor_degenerate, starved += t->aggressor_starved, ++all;
  if (starved > 0)
    e.warnings.push_back(fmt::format("{}: the hog starved in {} of {} trials (under half a core per thread): their doses are "
                                     "left out of the measured dose and the slopes; those trials ran under less load",
                                     k.name, starved, all));
  if (degenerate)
    e.warnings.push_back(fmt::format("{}: {} (one NUMA node): this condition loads the device's node, not another",
                                     k.name, kDegenerateHogWarning));
}

// The arm under load against itself in the primary condition, paired by round.
void compare_load(const ClassConfig& cls, const ByArmRound& quiet, const ByArmRound& loaded, double confidence,
                  ArmAnalysis& a) {
  std::vector<double> base, arm;
  auto q = quiet.find(a.arm), l = loaded.find(a.arm);
  if (q == quiet.end() || l == loaded.end()) return;
  for (const auto& [round, t] : l->second) {
    auto it = q->second.find(round);
    if (it == q->second.end()) continue;
    base.push_back(trial_statistic(*it->second, cls.statistic));
    arm.push_back(trial_statistic(*t, cls.statistic));
  }
  if (base.size() < 2) return;
  const stats::PairedComparison c = stats::compare_paired(base, arm, confidence);
  a.load_compared = true;
  a.load_rounds = static_cast<int>(c.rounds);
  a.load_ratio_pct = c.ratio_pct.estimate;
  a.load_ratio_lo = c.ratio_pct.lower;
  a.load_ratio_hi = c.ratio_pct.upper;
  a.load_confidence = confidence;
  a.load_verdict = std::string(stats::to_string(stats::classify_verdict(
      c.ratio_pct.lower, c.ratio_pct.upper, cls.margin_pct, cls.statistic == Statistic::kThroughput)));
}

// The measured dose of a trial on its series' axis: GB/s (membw) or cores (cpu); quiet is 0; none when starved.
std::optional<double> dose_of(const TrialRecord& t, const Condition& k) {
  if (k.quiet()) return 0.0;
  if (t.aggressor_starved) return std::nullopt;
  return k.hog == Condition::Hog::kMembw ? t.aggressor_gbps : t.aggressor_cores;
}

// Least squares slope over the points, in percent of the intercept; none with fewer than two distinct doses.
std::optional<double> slope_pct(const std::vector<std::pair<double, double>>& pts) {
  if (pts.size() < 2) return std::nullopt;
  double mx = 0, my = 0;
  for (const auto& [x, y] : pts) mx += x, my += y;
  mx /= static_cast<double>(pts.size());
  my /= static_cast<double>(pts.size());
  double sxx = 0, sxy = 0;
  for (const auto& [x, y] : pts) sxx += (x - mx) * (x - mx), sxy += (x - mx) * (y - my);
  if (sxx <= 1e-12 * std::max(1.0, mx * mx)) return std::nullopt;
  const double b = sxy / sxx, a = my - b * mx;
  if (!(a > 0)) return std::nullopt;
  return 100 * b / a;
}

// One arm's dose-response over one hog series (the conditions of `hog` on `node`, and the primary quiet one).
std::optional<DoseResponse> dose_response(const ClassConfig& cls, const std::vector<const Condition*>& series,
                                          const std::vector<const ByArmRound*>& trials, const std::string& arm) {
  std::map<int, std::vector<std::pair<double, double>>> by_round;
  double max_dose = 0;
  for (std::size_t i = 0; i < series.size(); ++i) {
    auto it = trials[i]->find(arm);
    if (it == trials[i]->end()) continue;
    for (const auto& [round, t] : it->second)
      if (std::optional<double> x = dose_of(*t, *series[i])) {
        by_round[round].push_back({*x, trial_statistic(*t, cls.statistic)});
        max_dose = std::max(max_dose, *x);
      }
  }
  std::vector<double> slopes;
  for (const auto& [round, pts] : by_round)
    if (std::optional<double> s = slope_pct(pts)) slopes.push_back(*s);
  if (slopes.empty()) return std::nullopt;
  const Condition& loaded = *series.back();
  const stats::QuantileCi ci = stats::quantile_ci(std::move(slopes), 0.5, kSlopeConfidence);
  DoseResponse d{arm, hog_name(loaded.hog), loaded.node, loaded.hog == Condition::Hog::kMembw ? "%/(GB/s)" : "%/core",
                 static_cast<int>(ci.n), ci.estimate, ci.lower, ci.upper, ci.achieved_confidence, max_dose};
  return d;
}

// Every arm's slope for each hog series of the class (a series: one hog on one node, over its doses).
std::vector<DoseResponse> dose_responses(const ClassConfig& cls, const std::vector<ByArmRound>& by_condition) {
  std::vector<DoseResponse> out;
  const std::size_t p = primary_condition(cls);
  std::vector<std::pair<Condition::Hog, std::string>> seen;
  for (const Condition& k : cls.conditions) {
    if (k.quiet() || std::find(seen.begin(), seen.end(), std::make_pair(k.hog, k.node)) != seen.end()) continue;
    seen.emplace_back(k.hog, k.node);
    std::vector<const Condition*> series;
    std::vector<const ByArmRound*> trials;
    if (cls.conditions[p].quiet()) series.push_back(&cls.conditions[p]), trials.push_back(&by_condition[p]);
    for (std::size_t i = 0; i < cls.conditions.size(); ++i)
      if (cls.conditions[i].hog == k.hog && cls.conditions[i].node == k.node)
        series.push_back(&cls.conditions[i]), trials.push_back(&by_condition[i]);
    for (Arm arm : cls.arms())
      if (auto d = dose_response(cls, series, trials, arm_name(arm))) out.push_back(std::move(*d));
  }
  return out;
}

// A class's entries folded into one: the primary condition's, the others under it; it stops when all do.
ClassAnalysis fold_class(const ClassConfig& cls, const ExperimentConfig& cfg, const Expanded& x,
                         std::vector<ClassAnalysis>& flat, const std::vector<std::size_t>& idx) {
  const std::size_t p = primary_condition(cls);
  std::vector<ByArmRound> by_condition;
  for (const Condition& k : cls.conditions) by_condition.push_back(trials_of(x.trials, entry_name(cls, k)));
  const int load_comparisons = static_cast<int>(cls.arms().size() * (cls.conditions.size() - 1));
  const double confidence = stats::bonferroni_confidence(cfg.confidence, std::max(1, load_comparisons));
  ClassAnalysis top = std::move(flat[idx[p]]);
  bool all_stop = top.stop;
  for (std::size_t i = 0; i < cls.conditions.size(); ++i) {
    ClassAnalysis& e = i == p ? top : flat[idx[i]];
    e.name = cls.name;
    describe_condition(cls.conditions[i], by_condition[i], e);
    if (i == p) continue;
    for (ArmAnalysis& a : e.arms) compare_load(cls, by_condition[p], by_condition[i], confidence, a);
    all_stop = all_stop && e.stop;
    top.conditions.push_back(std::move(e));
  }
  top.dose_response = dose_responses(cls, by_condition);
  if (top.stop && !all_stop) {
    top.stop = false;
    top.stop_reason = "continue";
    top.stop_words += "; the loaded conditions' comparisons go on";
  }
  return top;
}

}  // namespace

std::vector<ClassAnalysis> analyze_run(const ExperimentConfig& cfg, const std::vector<TrialRecord>& trials) {
  if (!has_conditions(cfg)) return detail::analyze_classes(cfg, trials);
  Expanded x = expand(cfg, trials);
  std::vector<ClassAnalysis> flat = detail::analyze_classes(x.cfg, x.trials);
  std::vector<ClassAnalysis> out;
  for (std::size_t ci = 0; ci < cfg.classes.size(); ++ci) {
    const ClassConfig& cls = cfg.classes[ci];
    if (cls.conditions.empty())
      out.push_back(std::move(flat[x.entries[ci].front()]));
    else
      out.push_back(fold_class(cls, cfg, x, flat, x.entries[ci]));
  }
  return out;
}

bool has_degenerate_hog(const ClassAnalysis& condition) {
  return std::any_of(condition.warnings.begin(), condition.warnings.end(),
                     [](const std::string& w) { return w.find(kDegenerateHogWarning) != std::string::npos; });
}

}  // namespace placebench::harness
