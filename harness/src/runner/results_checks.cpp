// Checks of results files read back (see results_checks.h). Ranges follow what `placebench run` can write;
// the config copy is read and checked through the config's description (config_json.cpp).
#include "placebench/harness/text_clip.h"
#include "results_checks.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

#include "placebench/harness/errors.h"
#include "placebench/harness/runner/run_directory.h"
#include "placebench/stats/quantile.h"
#include "summary_table.h"

namespace placebench::harness::detail {
namespace {

using nlohmann::json;

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

}  // namespace

std::string describe(const json& v) {
  if (v.is_array()) return "a list";
  if (v.is_object()) return "a map";
  std::string s = v.dump();
  return s.size() > 40 ? utf8_prefix(s, 36) + "...\"" : s;
}

void Checker::fail(const std::string& key, const std::string& problem) const {
  throw InputError(fmt::format("{}: {}{}{}; {}", place_, key, key.empty() ? "" : ": ", problem, fix_));
}

void Checker::expect(bool ok, const std::string& key, const std::string& what, const json& got) const {
  if (!ok) fail(key, fmt::format("expected {}, got {}", what, describe(got)));
}

std::string Checker::item(const std::string& where, std::size_t i) { return fmt::format("{}[{}]", where, i); }

const json& Checker::at(const json& obj, const std::string& where, const std::string& key) const {
  auto it = obj.find(key);
  if (it == obj.end()) fail(join(where, key), "missing");
  return *it;
}

const json& Checker::object(const json& obj, const std::string& where, const std::string& key) const {
  const json& v = at(obj, where, key);
  expect(v.is_object(), join(where, key), "a map", v);
  return v;
}

const json& Checker::list(const json& obj, const std::string& where, const std::string& key) const {
  const json& v = at(obj, where, key);
  expect(v.is_array(), join(where, key), "a list", v);
  return v;
}

std::string Checker::text(const json& obj, const std::string& where, const std::string& key) const {
  const json& v = at(obj, where, key);
  expect(v.is_string(), join(where, key), "a string", v);
  return v.get<std::string>();
}

std::string Checker::one_of(const json& obj, const std::string& where, const std::string& key,
                            const std::vector<std::string>& accepted) const {
  const json& v = at(obj, where, key);
  bool ok = v.is_string() && std::find(accepted.begin(), accepted.end(), v.get<std::string>()) != accepted.end();
  expect(ok, join(where, key), "one of " + fmt::format("{}", fmt::join(accepted, ", ")), v);
  return v.get<std::string>();
}

bool Checker::boolean(const json& obj, const std::string& where, const std::string& key) const {
  const json& v = at(obj, where, key);
  expect(v.is_boolean(), join(where, key), "true or false", v);
  return v.get<bool>();
}

std::int64_t Checker::integer(const json& obj, const std::string& where, const std::string& key, std::int64_t lo,
                              std::int64_t hi) const {
  const json& v = at(obj, where, key);
  expect(whole_in(v, lo, hi), join(where, key),
         hi == kNoLimit ? fmt::format("a whole number >= {}", lo) : fmt::format("a whole number in [{}, {}]", lo, hi), v);
  return v.is_number_unsigned() ? static_cast<std::int64_t>(v.get<std::uint64_t>()) : v.get<std::int64_t>();
}

double Checker::number(const json& obj, const std::string& where, const std::string& key, double lo, double hi) const {
  const json& v = at(obj, where, key);
  std::string what = std::isinf(lo) ? "a number" : std::isinf(hi) ? fmt::format("a number >= {:g}", lo)
                                                                    : fmt::format("a number in [{:g}, {:g}]", lo, hi);
  expect(number_in(v, lo, hi), join(where, key), what, v);
  return v.get<double>();
}

namespace {

constexpr std::int64_t kMaxInt = std::numeric_limits<int>::max();
// A step measured takes some time, and less than ~11.6 days (1e15 ns): outside that it is no measurement.
constexpr double kMaxStepNs = 1e15;

// ---- trials.jsonl: what analysis, check and --resume read from each line ----

// The class of the line, which must be one of the run's (nullptr when the config is not known).
const ClassConfig* trial_class(const Checker& c, const json& t, const std::string& cls, const std::string& arm,
                               const std::optional<ExperimentConfig>& cfg) {
  if (!cfg) return nullptr;
  const ClassConfig* k = nullptr;
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
  return k;
}

// The statistics a trial's summary gives are summarize_steps of its step_ns (trial.cpp): recomputed
// here, they must agree (to rounding), so edited step times under an unchanged summary, or an edited
// summary, are refused rather than compared.
void check_summary_against_steps(const Checker& c, const TrialRecord& r) {
  std::vector<double> sorted = r.step_ns;
  for (double& x : sorted) x = std::max(x, 1.0);  // as summarize_steps
  std::sort(sorted.begin(), sorted.end());
  const double mean = std::accumulate(sorted.begin(), sorted.end(), 0.0) / static_cast<double>(sorted.size());
  const std::pair<Statistic, double> from_steps[] = {{Statistic::kMedian, stats::quantile_estimate_sorted(sorted, 0.5)},
                                                     {Statistic::kP99, stats::quantile_estimate_sorted(sorted, 0.99)},
                                                     {Statistic::kThroughput, 1e9 / mean}};
  for (const auto& [statistic, expected] : from_steps) {
    auto it = r.summary.find(statistic_key(statistic));
    if (it == r.summary.end() || std::abs(it->second - expected) <= 1e-9 * expected) continue;
    c.fail(Checker::join("summary", it->first),
           fmt::format("{:g} disagrees with step_ns, which give {:g} (the line was edited)", it->second, expected));
  }
}

void read_steps_and_summary(const Checker& c, const json& t, const ClassConfig* k, TrialRecord& r) {
  const json& steps = c.list(t, "", "step_ns");
  if (steps.empty()) c.fail("step_ns", "empty: a finished trial has at least one step");
  for (std::size_t i = 0; i < steps.size(); ++i) {
    bool ok = number_in(steps[i], 0, kMaxStepNs) && steps[i].get<double>() > 0;
    c.expect(ok, Checker::item("step_ns", i), fmt::format("a number of ns > 0 and <= {:g}", kMaxStepNs), steps[i]);
    r.step_ns.push_back(steps[i].get<double>());
  }
  const json& summary = c.object(t, "", "summary");
  for (Statistic s : {Statistic::kMedian, Statistic::kP99, Statistic::kThroughput}) {
    const char* key = statistic_key(s);
    if (k && k->statistic == s) c.at(summary, "summary", key);  // the statistic the class compares
    c.optional(summary, key, [&] {
      // A step takes time: 0 is no measurement (and would be a ratio's zero divisor downstream).
      c.expect(c.number(summary, "summary", key, 0, INFINITY) > 0, Checker::join("summary", key), "a number > 0",
               summary.at(key));
    });
  }
  for (const auto& [key, value] : summary.items())
    if (value.is_number()) r.summary[key] = value.get<double>();
  check_summary_against_steps(c, r);
}

// The placement record and the trial's flags say the same (run_trial writes both from one record; the
// flag takes the worst of several records, so a verified first record may sit beside a placement_ flag).
// Roles are read from the flags: a record that contradicts them is refused rather than half-believed.
void check_placement_agrees(const Checker& c, const json& p, const TrialRecord& r) {
  const bool flag_degenerate = r.has_flag("degenerate");
  if (p.contains("degenerate") && r.degenerate != flag_degenerate)
    c.fail("placement.degenerate", fmt::format("is {}, but flags {} \"degenerate\" (the two are written together)",
                                               r.degenerate ? "true" : "false", flag_degenerate ? "has" : "has no"));
  if ((r.placement_status == "partial" || r.placement_status == "failed") && !r.has_flag("placement_"))
    c.fail("placement.status", fmt::format("is \"{}\", but flags has no \"placement_{}\" (the two are written together)",
                                           r.placement_status, r.placement_status));
}

void read_flags_and_placement(const Checker& c, const json& t, const ClassConfig* k, TrialRecord& r) {
  c.optional(t, "flags", [&] {
    const json& flags = c.list(t, "", "flags");
    for (std::size_t i = 0; i < flags.size(); ++i) {
      c.expect(flags[i].is_string(), Checker::item("flags", i), "a string", flags[i]);
      r.flags.push_back(flags[i].get<std::string>());
    }
  });
  // The trial's place in its round's order: 0 .. (the class's arms - 1) when the config is known.
  const long long last_position = k ? static_cast<long long>(k->cells()) - 1 : kMaxInt;
  c.optional(t, "position", [&] { r.position = static_cast<int>(c.integer(t, "", "position", 0, last_position)); });
  c.optional(t, "placement", [&] {
    const json& p = c.object(t, "", "placement");
    c.optional(p, "status", [&] { r.placement_status = c.text(p, "placement", "status"); });
    c.optional(p, "degenerate", [&] { r.degenerate = c.boolean(p, "placement", "degenerate"); });
    check_placement_agrees(c, p, r);
  });
}

// The trial's interference condition (one of its class's, required when the class has conditions) and
// what its hog achieved.
void read_condition(const Checker& c, const json& t, const ClassConfig* k, TrialRecord& r) {
  if (k && !k->conditions.empty()) c.at(t, "", "condition");
  c.optional(t, "condition", [&] {
    r.condition = c.text(t, "", "condition");
    if (k && !k->condition(r.condition))
      c.fail("condition", fmt::format("{} is not a condition of class {}{}", describe(t["condition"]), k->name,
                                      k->conditions.empty() ? " (it has none)" : ""));
  });
  c.optional(t, "interference", [&] {
    const json& load = c.object(t, "", "interference");
    c.optional(load, "gbps", [&] { r.aggressor_gbps = c.number(load, "interference", "gbps", 0, INFINITY); });
    c.optional(load, "cores", [&] { r.aggressor_cores = c.number(load, "interference", "cores", 0, INFINITY); });
    c.optional(load, "degenerate", [&] { r.aggressor_degenerate = c.boolean(load, "interference", "degenerate"); });
    c.optional(load, "problems", [&] {
      const json& problems = c.list(load, "interference", "problems");
      for (std::size_t i = 0; i < problems.size(); ++i) {
        c.expect(problems[i].is_string(), Checker::item("interference.problems", i), "a problem in words", problems[i]);
        r.aggressor_starved = r.aggressor_starved || problems[i].get_ref<const std::string&>().starts_with("hog starved");
      }
    });
  });
}

TrialRecord check_trial(const Checker& c, json t, const std::optional<ExperimentConfig>& cfg, TrialSlots& seen,
                        std::size_t line_no) {
  c.expect(t.is_object(), "", "a trial record (one JSON object per line)", t);
  TrialRecord r;
  r.class_name = c.text(t, "", "class");
  r.arm = c.text(t, "", "arm");
  const ClassConfig* k = trial_class(c, t, r.class_name, r.arm, cfg);
  r.round = static_cast<int>(c.integer(t, "", "round", 0, cfg ? cfg->max_rounds - 1 : kMaxInt));
  read_steps_and_summary(c, t, k, r);
  read_flags_and_placement(c, t, k, r);
  read_condition(c, t, k, r);
  auto [it, fresh] = seen.emplace(TrialSlots::key_type{r.class_name, r.round, r.cell()}, line_no);
  if (!fresh)
    c.fail("", fmt::format("repeats the trial of class {}, round {}, arm {}{} of line {}", describe(t["class"]), r.round,
                           describe(t["arm"]), r.condition.empty() ? "" : " under " + r.condition, it->second));
  r.line = std::move(t);
  return r;
}

// ---- summary.json: what compare and check read (its fields: summary_table.h) ----

// Checks one object's fields against the table, each failure naming the key. `may_be_absent`: the fields
// of issue 26 (absent in summaries written before it), else every key must be present (null only where
// the kind allows it).
struct FieldCheck {
  const Checker& c;
  const json& o;
  std::string w;
  bool may_be_absent = false;

  // A key whose value must be of its kind (`strict`), and present unless may_be_absent.
  template <class F>
  void present(const char* key, F strict) const {
    if (may_be_absent)
      c.optional(o, key, strict);
    else
      strict();
  }
  // A key that may be null, and absent when may_be_absent.
  template <class F>
  void nullable(const char* key, F strict) const {
    if (!may_be_absent) c.at(o, w, key);
    c.optional(o, key, strict);
  }
  void text(const char* key, const std::string&) const { present(key, [&] { c.text(o, w, key); }); }
  void choice(const char* key, const std::string&, const std::vector<std::string>& accepted) const {
    present(key, [&] { c.one_of(o, w, key, accepted); });
  }
  void nullable_choice(const char* key, const std::string&, const std::vector<std::string>& accepted) const {
    nullable(key, [&] { c.one_of(o, w, key, accepted); });
  }
  void nullable_text(const char* key, const std::string&) const { nullable(key, [&] { c.text(o, w, key); }); }
  void gated_text(const char* key, const std::string& s, bool) const { nullable_text(key, s); }
  void boolean(const char* key, bool) const { present(key, [&] { c.boolean(o, w, key); }); }
  void derived(const char* key, bool b) const { boolean(key, b); }
  void constant(const char*, const char*) const {}
  template <class N>
  void integer(const char* key, N, long long lo) const { present(key, [&] { c.integer(o, w, key, lo, kNoLimit); }); }
  void nullable_integer(const char* key, const std::optional<int>&, long long lo) const {
    nullable(key, [&] { c.integer(o, w, key, lo, kNoLimit); });
  }
  void number(const char* key, double, double lo, double hi) const { present(key, [&] { c.number(o, w, key, lo, hi); }); }
  void nullable_number(const char* key, const std::optional<double>&, double lo) const {
    nullable(key, [&] { c.number(o, w, key, lo, INFINITY); });
  }
  void gated_number(const char* key, double, bool, Gate, double lo) const { nullable_number(key, std::nullopt, lo); }
  // [low, high], low <= high, both >= lo (a time or a rate: >= 0; a ratio in percent: any sign).
  void gated_pair(const char* key, double, double, bool, double lo) const {
    nullable(key, [&] {
      const json& v = o.at(key);
      bool ok = v.is_array() && v.size() == 2 && number_in(v[0], lo, INFINITY) && number_in(v[1], lo, INFINITY) &&
                v[0].get<double>() <= v[1].get<double>();
      c.expect(ok, Checker::join(w, key),
               std::isinf(lo) ? "[low, high] with low <= high, or null"
                              : fmt::format("[low, high] with {:g} <= low <= high, or null", lo), v);
    });
  }
  void strings(const char* key, const std::vector<std::string>&) const {
    present(key, [&] {
      const json& v = c.list(o, w, key);
      for (std::size_t i = 0; i < v.size(); ++i)
        c.expect(v[i].is_string(), Checker::item(Checker::join(w, key), i), "a string", v[i]);
    });
  }
  void looks(const char* key, const std::vector<int>&) const {
    const json& looks = c.list(o, w, key);
    c.expect(!looks.empty(), Checker::join(w, key), "at least one look round", looks);
    for (std::size_t k = 0; k < looks.size(); ++k)
      c.expect(whole_in(looks[k], k ? looks[k - 1].get<std::int64_t>() + 1 : 1, kNoLimit),
               Checker::item(Checker::join(w, key), k), "strictly increasing whole numbers >= 1", looks[k]);
  }
};

// What each arm's fields must agree on: a decided verdict with its look and a stop "decided", no verdict
// fields on an arm without a verdict, an A/A check only on a control. The field that contradicts is named.
void check_arm_agrees(const Checker& c, const json& a, const std::string& aw, const std::string& role,
                      const std::string& verdict) {
  const auto present = [&](const char* key) { return a.contains(key) && !a.at(key).is_null(); };
  const auto contradiction = [&](const char* key, const std::string& why) { c.fail(Checker::join(aw, key), why); };
  if (a.at("realised").get<bool>() != (role == "baseline" || role == "compared"))
    contradiction("realised", fmt::format("is {} for role {}", a.at("realised").dump(), role));
  const bool decisive = verdict == "faster" || verdict == "slower" || verdict == "equivalent";
  const std::string stop = a.at("stop_reason");
  if (decisive && stop != "decided") contradiction("stop_reason", fmt::format("is \"{}\" for verdict {}", stop, verdict));
  if (role == "compared" && !decisive && stop == "decided")
    contradiction("stop_reason", fmt::format("is \"decided\" for verdict {}", verdict));
  if (a.contains("decided_look") && decisive != present("decided_look"))
    contradiction("decided_look", decisive ? "is null for a decided verdict" : "is set for verdict " + verdict);
  if (present("held") && a.at("held").get<bool>() && verdict != "inconclusive")
    contradiction("held", "is true for verdict " + verdict);
  if (present("aa_check") && role != "control") contradiction("aa_check", "is set for role " + role);
  if (role == "control" || role == "unrealised")
    for (const char* key : {"detectable_pct", "detectable_below_pct", "repeated_p", "holm_adjusted_p", "decided_look"})
      if (present(key)) contradiction(key, fmt::format("is set for role {}, which has no verdict", role));
}

void check_summary_arm(const Checker& c, const json& a, const std::string& aw) {
  c.expect(a.is_object(), aw, "a map", a);
  const ArmAnalysis typed;  // the table's members, unread: the check reads the JSON
  detail::arm_fields(FieldCheck{c, a, aw}, typed);
  // A verdict is only a compared arm's; a control or unrealised arm carries its role as verdict.
  const std::string role = a.at("role"), verdict = a.at("verdict");
  const bool verdict_fits = role == "compared" ? (verdict != "baseline" && verdict != "control" && verdict != "unrealised")
                                               : verdict == role;
  c.expect(verdict_fits, aw + ".verdict", "a verdict that fits role " + role, a.at("verdict"));
  detail::arm_fields_added(FieldCheck{c, a, aw, true}, typed);
  check_arm_agrees(c, a, aw, role, verdict);
}

// A class with interference conditions (issue 32): its condition, its other conditions' entries (each a
// class entry whose arms carry their load comparison) and its dose-response slopes.
void check_summary_conditions(const Checker& c, const json& cls, const std::string& cw, bool loaded);

void check_summary_class(const Checker& c, const json& cls, const std::string& cw, bool loaded = false) {
  c.expect(cls.is_object(), cw, "a map", cls);
  const ClassAnalysis typed;  // the table's members, unread: the check reads the JSON
  detail::class_fields(FieldCheck{c, cls, cw}, typed);
  check_summary_conditions(c, cls, cw, loaded);
  const json& looks = cls.at("looks");
  const json& arms = c.list(cls, cw, "arms");
  for (std::size_t j = 0; j < arms.size(); ++j) {
    const std::string aw = Checker::item(cw + ".arms", j);
    check_summary_arm(c, arms[j], aw);
    const ArmAnalysis typed_arm;
    if (loaded) detail::arm_load_fields(FieldCheck{c, arms[j], aw, true}, typed_arm);
    if (arms[j].contains("decided_look") && arms[j].at("decided_look").is_number() &&
        arms[j].at("decided_look").get<std::int64_t>() > static_cast<std::int64_t>(looks.size()))
      c.fail(aw + ".decided_look", fmt::format("is {}, but the class plans {} looks", arms[j].at("decided_look").dump(),
                                               looks.size()));
  }
}

void check_summary_conditions(const Checker& c, const json& cls, const std::string& cw, bool loaded) {
  const ClassAnalysis typed;  // the table's members, unread
  const DoseResponse typed_dose;
  if (loaded) c.at(cls, cw, "condition");
  c.optional(cls, "condition", [&] { detail::class_condition_fields(FieldCheck{c, cls, cw}, typed); });
  if (loaded) return;
  c.optional(cls, "conditions", [&] {
    const json& list = c.list(cls, cw, "conditions");
    for (std::size_t i = 0; i < list.size(); ++i) check_summary_class(c, list[i], Checker::item(cw + ".conditions", i), true);
  });
  c.optional(cls, "dose_response", [&] {
    const json& list = c.list(cls, cw, "dose_response");
    for (std::size_t i = 0; i < list.size(); ++i) {
      const std::string dw = Checker::item(cw + ".dose_response", i);
      c.expect(list[i].is_object(), dw, "a map", list[i]);
      detail::dose_response_fields(FieldCheck{c, list[i], dw}, typed_dose);
    }
  });
}

void check_summary(const Checker& c, const json& s) {
  const RunSummary typed;
  detail::summary_fields(FieldCheck{c, s, ""}, typed);
  const json& classes = c.list(s, "", "classes");
  for (std::size_t i = 0; i < classes.size(); ++i) check_summary_class(c, classes[i], Checker::item("classes", i));
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
  Checker copy(run_path, "the config copy is damaged: restore run.json, or start a new run");
  return config_from_json(copy.object(run, "", "config"), run_path);  // every key it reads, checked
}

TrialRecord check_trial_line(json trial, const std::optional<ExperimentConfig>& config, const std::string& place,
                             std::size_t line_no, TrialSlots& seen) {
  Checker c(place, "the line is damaged: restore trials.jsonl, or delete that line (--resume runs its trial again)");
  return check_trial(c, std::move(trial), config, seen, line_no);
}

void check_summary_json(const json& summary, const std::string& path, const std::string& fix) {
  Checker c(path, "the file is damaged: " + fix);
  c.expect(summary.is_object(), "", "a JSON object", summary);
  const json& version = c.at(summary, "", "schema_version");
  if (version != kResultsSchemaVersion)
    throw SchemaVersionError(fmt::format("{}: schema_version {} is not the {} this placebench reads; use the placebench "
                                         "version that wrote it, or {}", path, version.dump(), kResultsSchemaVersion, fix),
                             version.is_number() && version.get<double>() > kResultsSchemaVersion);
  check_summary(c, summary);
}

}  // namespace placebench::harness::detail
