// Checks of results files read back (see results_checks.h). Ranges follow what `placebench run` can write:
// the config copy's are those config_parse.cpp accepts.
#include "results_checks.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>
#include <limits>

#include "placebench/harness/errors.h"
#include "placebench/harness/runner/run_directory.h"

namespace placebench::harness::detail {
namespace {

using nlohmann::json;

constexpr std::int64_t kNoLimit = std::numeric_limits<std::int64_t>::max();

// A value as a message shows it: "text" (escaped: a message stays one line), 12, null, a list, a map.
std::string describe(const json& v) {
  if (v.is_array()) return "a list";
  if (v.is_object()) return "a map";
  std::string s = v.dump();
  return s.size() > 40 ? s.substr(0, 36) + "...\"" : s;
}

bool whole_in(const json& v, std::int64_t lo, std::int64_t hi) {
  if (v.is_number_unsigned()) {
    auto x = v.get<std::uint64_t>();
    return x <= static_cast<std::uint64_t>(hi) && (lo <= 0 || x >= static_cast<std::uint64_t>(lo));
  }
  return v.is_number_integer() && v.get<std::int64_t>() >= lo && v.get<std::int64_t>() <= hi;
}

bool number_in(const json& v, double lo, double hi) {
  return v.is_number() && std::isfinite(v.get<double>()) && v.get<double>() >= lo && v.get<double>() <= hi;
}

// The checks of one results file (or line): each failure is one InputError "PLACE: KEY: PROBLEM; FIX".
// `where` is the key path of the object looked into ("config.classes[0]"; "" at the top).
class Checker {
 public:
  Checker(std::string place, std::string fix) : place_(std::move(place)), fix_(std::move(fix)) {}

  [[noreturn]] void fail(const std::string& key, const std::string& problem) const {
    throw InputError(fmt::format("{}: {}{}{}; {}", place_, key, key.empty() ? "" : ": ", problem, fix_));
  }
  void expect(bool ok, const std::string& key, const std::string& what, const json& got) const {
    if (!ok) fail(key, fmt::format("expected {}, got {}", what, describe(got)));
  }
  static std::string join(const std::string& where, const std::string& key) { return where.empty() ? key : where + "." + key; }
  static std::string item(const std::string& where, std::size_t i) { return fmt::format("{}[{}]", where, i); }

  const json& at(const json& obj, const std::string& where, const std::string& key) const {
    auto it = obj.find(key);
    if (it == obj.end()) fail(join(where, key), "missing");
    return *it;
  }
  const json& object(const json& obj, const std::string& where, const std::string& key) const {
    const json& v = at(obj, where, key);
    expect(v.is_object(), join(where, key), "a map", v);
    return v;
  }
  const json& list(const json& obj, const std::string& where, const std::string& key) const {
    const json& v = at(obj, where, key);
    expect(v.is_array(), join(where, key), "a list", v);
    return v;
  }
  std::string text(const json& obj, const std::string& where, const std::string& key) const {
    const json& v = at(obj, where, key);
    expect(v.is_string(), join(where, key), "a string", v);
    return v.get<std::string>();
  }
  std::string one_of(const json& obj, const std::string& where, const std::string& key,
                     const std::vector<std::string>& accepted) const {
    const json& v = at(obj, where, key);
    bool ok = v.is_string() && std::find(accepted.begin(), accepted.end(), v.get<std::string>()) != accepted.end();
    expect(ok, join(where, key), "one of " + fmt::format("{}", fmt::join(accepted, ", ")), v);
    return v.get<std::string>();
  }
  bool boolean(const json& obj, const std::string& where, const std::string& key) const {
    const json& v = at(obj, where, key);
    expect(v.is_boolean(), join(where, key), "true or false", v);
    return v.get<bool>();
  }
  std::int64_t integer(const json& obj, const std::string& where, const std::string& key, std::int64_t lo,
                       std::int64_t hi) const {
    const json& v = at(obj, where, key);
    expect(whole_in(v, lo, hi), join(where, key),
           hi == kNoLimit ? fmt::format("a whole number >= {}", lo) : fmt::format("a whole number in [{}, {}]", lo, hi), v);
    return v.is_number_unsigned() ? static_cast<std::int64_t>(v.get<std::uint64_t>()) : v.get<std::int64_t>();
  }
  double number(const json& obj, const std::string& where, const std::string& key, double lo, double hi) const {
    const json& v = at(obj, where, key);
    std::string what = std::isinf(lo) ? "a number" : std::isinf(hi) ? fmt::format("a number >= {:g}", lo)
                                                                      : fmt::format("a number in [{:g}, {:g}]", lo, hi);
    expect(number_in(v, lo, hi), join(where, key), what, v);
    return v.get<double>();
  }
  // A key that may be absent or null; otherwise of the kind `check` accepts.
  template <class Check>
  void optional(const json& obj, const std::string& key, Check check) const {
    auto it = obj.find(key);
    if (it != obj.end() && !it->is_null()) check();
  }

 private:
  std::string place_, fix_;
};

std::vector<std::string> arm_strings() {
  std::vector<std::string> v;
  for (Arm a : all_arms()) v.push_back(arm_name(a));
  return v;
}

// ---- run.json's config copy: every key config_from_json reads, in the ranges a config file allows ----

void check_params(const Checker& c, const json& w, const std::string& where, const std::string& type) {
  const std::string pw = where + ".params";
  auto it = w.find("params");
  if (it == w.end() || it->is_null()) return;
  const json& p = *it;
  c.expect(p.is_object(), pw, "a map or null", p);
  if (type == "pipeline") {
    for (const char* k : {"workers", "prefetch", "batch_samples", "dataset_samples", "image_width", "image_height"})
      c.optional(p, k, [&] { c.integer(p, pw, k, 1, 1 << 20); });
    c.optional(p, "ring", [&] { c.integer(p, pw, "ring", 0, 1 << 20); });
    c.optional(p, "batch_bytes", [&] { c.integer(p, pw, "batch_bytes", 1, kNoLimit); });
    for (const char* k : {"cpu_work_ns_per_kb", "step_compute"})
      c.optional(p, k, [&] { c.number(p, pw, k, 0, INFINITY); });
    c.optional(p, "decode", [&] { c.one_of(p, pw, "decode", {"synthetic", "jpeg"}); });
  } else if (type == "collective") {
    c.one_of(p, pw, "op", {"allreduce", "allgather", "reducescatter", "broadcast", "reduce", "alltoall", "sendrecv"});
    c.one_of(p, pw, "dtype", {"int8", "int32", "float16", "bfloat16", "float32", "float64"});
    c.one_of(p, pw, "redop", {"sum", "prod", "max", "min"});
    c.integer(p, pw, "bytes", 1, kNoLimit);
  }
}

void check_class(const Checker& c, const json& k, const std::string& where) {
  c.expect(k.is_object(), where, "a map", k);
  c.text(k, where, "name");
  const json& w = c.object(k, where, "workload");
  const std::string ww = where + ".workload";
  std::string type = c.one_of(w, ww, "type", {"staging", "pipeline", "collective"});
  c.text(w, ww, "backend");
  c.one_of(w, ww, "direction", {"h2d", "d2h", "bidir"});
  c.one_of(w, ww, "memory", {"pinned", "pageable", "registered", "hostalloc"});
  c.integer(w, ww, "bytes", 1, kNoLimit);
  c.integer(w, ww, "copies", 1, config_limits::kMaxCopies);
  check_params(c, w, ww, type);
  const json& arms = c.object(k, where, "arms");
  const std::string aw = where + ".arms";
  std::string baseline = c.one_of(arms, aw, "baseline", arm_strings());
  const json& compare = c.list(arms, aw, "compare");
  if (compare.empty()) c.fail(aw + ".compare", "empty: a class compares at least one arm with its baseline");
  for (std::size_t i = 0; i < compare.size(); ++i) {
    bool ok = compare[i].is_string() && parse_arm(compare[i].get<std::string>()) && compare[i] != baseline;
    c.expect(ok, Checker::item(aw + ".compare", i), "an arm other than the baseline (" + arm_names_list() + ")", compare[i]);
  }
  for (const char* key : {"gpu", "device_numa", "remote_node"}) {
    c.at(k, where, key);
    c.optional(k, key, [&] { c.integer(k, where, key, 0, 1023); });
  }
  c.integer(k, where, "cpus_per_worker", 1, config_limits::kMaxCpusPerWorker);
  c.boolean(k, where, "allow_degenerate");
  c.number(k, where, "margin_pct", 0, 100);
  c.one_of(k, where, "statistic", {"median", "p99", "throughput"});
  c.optional(k, "decision", [&] { c.object(k, where, "decision"); });  // `decide` checks its keys
}

ExperimentConfig check_config_copy(const json& run, const std::string& run_path) {
  Checker c(run_path, "the config copy is damaged: restore run.json, or start a new run");
  const json& cfg = c.object(run, "", "config");
  const std::string w = "config";
  c.text(cfg, w, "source");
  c.text(cfg, w, "name");
  c.integer(cfg, w, "seed", 0, kNoLimit);
  const json& rounds = c.object(cfg, w, "rounds");
  std::int64_t min_rounds = c.integer(rounds, "config.rounds", "min", config_limits::kMinRounds, config_limits::kMaxRounds);
  c.integer(rounds, "config.rounds", "max", min_rounds, config_limits::kMaxRounds);
  c.integer(rounds, "config.rounds", "looks", 1, config_limits::kMaxLooks);
  c.one_of(cfg, w, "order", {"random", "abba", "fixed"});
  c.integer(cfg, w, "warmup_steps", 0, config_limits::kMaxWarmupSteps);
  c.integer(cfg, w, "steps", config_limits::kMinSteps, config_limits::kMaxSteps);
  c.number(cfg, w, "confidence", 0.5, 0.9999);
  c.text(cfg, w, "output");
  c.optional(cfg, "contention", [&] { c.text(cfg, w, "contention"); });
  const json& classes = c.list(cfg, w, "classes");
  if (classes.empty()) c.fail("config.classes", "empty: a run has at least one class");
  for (std::size_t i = 0; i < classes.size(); ++i) {
    check_class(c, classes[i], Checker::item("config.classes", i));
    for (std::size_t j = 0; j < i; ++j)
      if (classes[j]["name"] == classes[i]["name"])
        c.fail(Checker::item("config.classes", i) + ".name", "repeats the name of config.classes[" + std::to_string(j) + "]");
  }
  try {
    return config_from_json(cfg);
  } catch (const json::exception& e) {  // a key checked above cannot fail here; say so plainly if one does
    c.fail("config", std::string("cannot be read (") + e.what() + ")");
  }
}

// ---- trials.jsonl: what analysis, check and --resume read from each line ----

const char* statistic_key(Statistic s) {
  return s == Statistic::kMedian ? "median_ns" : s == Statistic::kP99 ? "p99_ns" : "throughput_steps_s";
}

void check_trial(const Checker& c, const json& t, const std::optional<ExperimentConfig>& cfg, TrialSlots& seen,
                 std::size_t line_no) {
  c.expect(t.is_object(), "", "a trial record (one JSON object per line)", t);
  std::string cls = c.text(t, "", "class"), arm = c.text(t, "", "arm");
  const ClassConfig* k = nullptr;
  if (cfg) {
    std::string names;
    for (const auto& kc : cfg->classes) {
      if (kc.name == cls) k = &kc;
      names += (names.empty() ? "" : ", ") + kc.name;
    }
    if (!k) c.fail("class", fmt::format("{} is not a class of this run ({})", describe(t["class"]), names));
    std::string arms;
    bool known = false;
    for (Arm a : k->arms()) {
      known = known || arm_name(a) == arm;
      arms += (arms.empty() ? "" : ", ") + arm_name(a);
    }
    if (!known) c.fail("arm", fmt::format("{} is not an arm of class {} ({})", describe(t["arm"]), cls, arms));
  }
  std::int64_t round = c.integer(t, "", "round", 0, cfg ? cfg->max_rounds - 1 : kNoLimit);
  const json& steps = c.list(t, "", "step_ns");
  if (steps.empty()) c.fail("step_ns", "empty: a finished trial has at least one step");
  for (std::size_t i = 0; i < steps.size(); ++i)
    c.expect(number_in(steps[i], 0, INFINITY), Checker::item("step_ns", i), "a number of ns >= 0", steps[i]);
  const json& summary = c.object(t, "", "summary");
  for (Statistic s : {Statistic::kMedian, Statistic::kP99, Statistic::kThroughput}) {
    const char* key = statistic_key(s);
    if (k && k->statistic == s) c.at(summary, "summary", key);  // the statistic the class compares
    c.optional(summary, key, [&] { c.number(summary, "summary", key, 0, INFINITY); });
  }
  c.optional(t, "flags", [&] {
    const json& flags = c.list(t, "", "flags");
    for (std::size_t i = 0; i < flags.size(); ++i) c.expect(flags[i].is_string(), Checker::item("flags", i), "a string", flags[i]);
  });
  auto [it, fresh] = seen.emplace(TrialSlots::key_type{cls, round, arm}, line_no);
  if (!fresh)
    c.fail("", fmt::format("repeats the trial of class {}, round {}, arm {} of line {}", describe(t["class"]), round,
                           describe(t["arm"]), it->second));
}

// ---- summary.json: what compare and check read ----

void check_summary(const Checker& c, const json& s) {
  c.boolean(s, "", "complete");
  c.integer(s, "", "trials", 0, kNoLimit);
  const json& classes = c.list(s, "", "classes");
  auto present = [&](const json& o, const std::string& w, const char* key) { c.at(o, w, key); };
  auto nullable_number = [&](const json& o, const std::string& w, const char* key) {
    present(o, w, key);
    c.optional(o, key, [&] { c.number(o, w, key, -INFINITY, INFINITY); });
  };
  auto nullable_text = [&](const json& o, const std::string& w, const char* key) {
    present(o, w, key);
    c.optional(o, key, [&] { c.text(o, w, key); });
  };
  auto nullable_pair = [&](const json& o, const std::string& w, const char* key) {
    present(o, w, key);
    c.optional(o, key, [&] {
      const json& v = o.at(key);
      bool ok = v.is_array() && v.size() == 2 && v[0].is_number() && v[1].is_number() &&
                v[0].get<double>() <= v[1].get<double>();
      c.expect(ok, Checker::join(w, key), "[low, high] with low <= high, or null", v);
    });
  };
  auto strings = [&](const json& o, const std::string& w, const char* key) {
    const json& v = c.list(o, w, key);
    for (std::size_t i = 0; i < v.size(); ++i) c.expect(v[i].is_string(), Checker::item(Checker::join(w, key), i), "a string", v[i]);
  };
  const std::vector<std::string> stops = {"before_first_look", "continue", "decided", "max_rounds"};
  for (std::size_t i = 0; i < classes.size(); ++i) {
    const std::string cw = Checker::item("classes", i);
    const json& cls = classes[i];
    c.expect(cls.is_object(), cw, "a map", cls);
    c.text(cls, cw, "name");
    c.one_of(cls, cw, "baseline", arm_strings());
    c.one_of(cls, cw, "statistic", {"median", "p99", "throughput"});
    c.one_of(cls, cw, "statistic_unit", {"ns", "steps/s"});
    c.number(cls, cw, "margin_pct", 0, INFINITY);
    c.integer(cls, cw, "rounds_done", 0, kNoLimit);
    const json& looks = c.list(cls, cw, "looks");
    c.expect(!looks.empty(), cw + ".looks", "at least one look round", looks);
    for (std::size_t k = 0; k < looks.size(); ++k)
      c.expect(whole_in(looks[k], k ? looks[k - 1].get<std::int64_t>() + 1 : 1, kNoLimit),
               Checker::item(cw + ".looks", k), "strictly increasing whole numbers >= 1", looks[k]);
    c.number(cls, cw, "look_confidence", 0, 1);
    c.number(cls, cw, "boundary_z", 0, INFINITY);
    c.integer(cls, cw, "comparisons", 1, kNoLimit);
    c.number(cls, cw, "family_confidence", 0, 1);
    c.boolean(cls, cw, "stop");
    c.one_of(cls, cw, "stop_reason", stops);
    c.text(cls, cw, "stop_words");
    nullable_number(cls, cw, "holm_adjusted_p");
    nullable_number(cls, cw, "noise_floor_pct");
    strings(cls, cw, "warnings");
    const json& arms = c.list(cls, cw, "arms");
    for (std::size_t j = 0; j < arms.size(); ++j) {
      const std::string aw = Checker::item(cw + ".arms", j);
      const json& a = arms[j];
      c.expect(a.is_object(), aw, "a map", a);
      c.one_of(a, aw, "arm", arm_strings());
      c.one_of(a, aw, "role", {"baseline", "compared", "control", "unrealised"});
      c.boolean(a, aw, "realised");
      nullable_text(a, aw, "unrealised_reason");
      c.one_of(a, aw, "verdict", {"baseline", "faster", "slower", "equivalent", "inconclusive", "control", "unrealised"});
      c.one_of(a, aw, "stop_reason", {"", "before_first_look", "continue", "decided", "max_rounds"});
      c.integer(a, aw, "n_rounds", 0, kNoLimit);
      c.integer(a, aw, "flagged_trials", 0, kNoLimit);
      for (const char* key : {"statistic_value", "statistic_ci_confidence", "median", "p90", "p99", "mean", "ratio_pct",
                              "confidence", "p_value", "repeated_p", "holm_adjusted_p", "detectable_pct", "lag1"})
        nullable_number(a, aw, key);
      nullable_text(a, aw, "statistic_ci_method");
      for (const char* key : {"statistic_ci", "within_run_median_ci", "ratio_ci_pct"}) nullable_pair(a, aw, key);
      c.boolean(a, aw, "dependence_flagged");
      c.number(a, aw, "ci_inflation", 1, INFINITY);
      // A verdict is only a compared arm's; a control or unrealised arm carries its role as verdict.
      const std::string role = a.at("role"), verdict = a.at("verdict");
      const bool verdict_fits = role == "compared" ? (verdict != "baseline" && verdict != "control" && verdict != "unrealised")
                                                   : verdict == role;
      c.expect(verdict_fits, aw + ".verdict", "a verdict that fits role " + role, a.at("verdict"));
    }
  }
}

}  // namespace

ExperimentConfig check_run_json(const json& run, const std::string& run_path) {
  Checker c(run_path, "the run's context is lost: restore run.json, or start a new run");
  c.expect(run.is_object(), "", "a JSON object", run);
  const json& version = c.at(run, "", "schema_version");
  if (version != kResultsSchemaVersion)
    throw InputError(fmt::format("{}: schema_version {} is not the {} this placebench reads; use the placebench "
                                 "version that wrote it", run_path, version.dump(), kResultsSchemaVersion));
  c.optional(run, "mpi", [&] { c.integer(c.object(run, "", "mpi"), "mpi", "ranks", 1, 1 << 24); });
  return check_config_copy(run, run_path);
}

void check_trial_line(const json& trial, const std::optional<ExperimentConfig>& config, const std::string& place,
                      std::size_t line_no, TrialSlots& seen) {
  Checker c(place, "the line is damaged: restore trials.jsonl, or delete that line (--resume runs its trial again)");
  check_trial(c, trial, config, seen, line_no);
}

void check_summary_json(const json& summary, const std::string& path, const std::string& fix) {
  Checker c(path, "the file is damaged: " + fix);
  c.expect(summary.is_object(), "", "a JSON object", summary);
  const json& version = c.at(summary, "", "schema_version");
  if (version != kResultsSchemaVersion)
    throw InputError(fmt::format("{}: schema_version {} is not the {} this placebench reads; use the placebench "
                                 "version that wrote it, or {}", path, version.dump(), kResultsSchemaVersion, fix));
  check_summary(c, summary);
}

}  // namespace placebench::harness::detail
