// Reading `decide` inputs: decision blocks (one parser: JSON from run.json, or a config's YAML as JSON with
// its lines) and run directories.
#include "placebench/harness/decisions/decide_input.h"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <set>

#include "placebench/harness/errors.h"
#include "placebench/harness/runner/run_directory.h"
#include "placebench/harness/units.h"
#include "placebench/hostpipe/input_file.h"

namespace placebench::harness::decisions {
namespace {

using nlohmann::json;

const std::set<std::string> kDecisionKeys = {"job_length", "gpus_per_job", "queue", "objective", "rate_per_gpu_hour",
                                              "p_remote_any", "p_local_prefer", "any_arm"};
constexpr const char* kAccepted =
    "job_length, gpus_per_job, queue {strict, prefer, any}, objective, rate_per_gpu_hour, p_remote_any, "
    "p_local_prefer, any_arm";

double number_in(double v, double lo, double hi, const std::string& where, const std::string& what) {
  if (!(v >= lo && v <= hi))
    throw InputError(fmt::format("{}: {} must lie in [{:g}, {:g}], got {:g}", where, what, lo, hi, v));
  return v;
}

int positive_int(double v, const std::string& where) {
  if (!(v >= 1 && v == static_cast<int>(v)))
    throw InputError(fmt::format("{}: must be a whole number >= 1, got {:g}", where, v));
  return static_cast<int>(v);
}

// A throughput class's ratio (+ = more steps per second) as the execution-time ratio decide weighs:
// the same work at throughput x (1 + t) takes 1 / (1 + t) as long. Decreasing, so the CI bounds swap.
void as_execution_time(RemoteRatio& r) {
  auto time_pct = [](double t) { return 100.0 * (1.0 / (1.0 + t / 100.0) - 1.0); };
  r.throughput_pct = r.pct;
  r.pct = time_pct(r.pct);
  if (r.lo_pct && r.hi_pct) {
    double lo = time_pct(*r.hi_pct), hi = time_pct(*r.lo_pct);
    r.lo_pct = lo;
    r.hi_pct = hi;
  }
}

}  // namespace

namespace {

// Where each key of a block is, in the words of its format: a run.json block names its key path, a YAML
// block its file, line and key.
class DecisionPlaces {
 public:
  static DecisionPlaces json_block(std::string where) {
    DecisionPlaces p;
    p.where_ = std::move(where);
    return p;
  }
  static DecisionPlaces yaml_block(const detail::LocatedJson& block, std::string file) {
    DecisionPlaces p;
    p.yaml_ = &block;
    p.where_ = std::move(file);
    return p;
  }
  // The value at `path` ("" the block, "queue.any"): "run.json: config.classes[0].decision.queue.any" or
  // "c.yaml:7: decision.queue.any".
  std::string value(const std::string& path) const { return at(path, yaml_ ? yaml_->value_line(path) : 0); }
  // The key itself (for an unknown key: its line, not its value's).
  std::string key(const std::string& path) const { return at(path, yaml_ ? yaml_->key_line(path) : 0); }
  const char* a_map() const { return yaml_ ? "a mapping" : "an object"; }
  const char* a_duration() const {
    return yaml_ ? "a duration such as 90s, 36m, 2h" : "a duration such as \"90s\", \"36m\", \"2h\" (or seconds)";
  }

 private:
  std::string at(const std::string& path, int line) const {
    if (yaml_) return fmt::format("{}:{}: decision{}{}", where_, line, path.empty() ? "" : ".", path);
    return path.empty() ? where_ : where_ + "." + path;
  }
  const detail::LocatedJson* yaml_ = nullptr;
  std::string where_;
};

std::string child(const std::string& path, const std::string& key) { return path.empty() ? key : path + "." + key; }

const json& require(const json& obj, const std::string& key, const std::string& path, const DecisionPlaces& at) {
  if (!obj.contains(key)) throw InputError(fmt::format("{}: missing key '{}'", at.value(path), key));
  return obj.at(key);
}

// A duration of the block: at most kSecondsPerYear (8760h), as a string or in seconds.
double duration_s(const json& v, const std::string& path, const DecisionPlaces& at) {
  if (v.is_string()) return parse_duration_s(v.get<std::string>(), at.value(path), kSecondsPerYear);
  if (v.is_number() && v.get<double>() >= 0 && v.get<double>() <= kSecondsPerYear) return v.get<double>();
  throw InputError(fmt::format("{}: expected {}, at most {}", at.value(path), at.a_duration(), format_duration(kSecondsPerYear)));
}

double number(const json& v, const std::string& path, const DecisionPlaces& at) {
  if (!v.is_number()) throw InputError(fmt::format("{}: expected a number", at.value(path)));
  return v.get<double>();
}

void check_keys(const json& block, const DecisionPlaces& at) {
  if (!block.is_object()) throw InputError(fmt::format("{}: expected {} with {}", at.value(""), at.a_map(), kAccepted));
  for (const auto& [key, value] : block.items())
    if (!kDecisionKeys.count(key)) throw InputError(fmt::format("{}: unknown key; accepted: {}", at.key(key), kAccepted));
}

void read_queue(const json& block, const DecisionPlaces& at, DecisionSpec& s) {
  const json& queue = require(block, "queue", "", at);
  if (!queue.is_object()) throw InputError(fmt::format("{}: expected {{strict, prefer, any}} durations", at.value("queue")));
  for (const auto& [key, value] : queue.items())
    if (key != "strict" && key != "prefer" && key != "any")
      throw InputError(fmt::format("{}: unknown policy; accepted: strict, prefer, any", at.key(child("queue", key))));
  for (Policy p : kPolicies) {
    std::string key(policy_name(p));
    s.queue_s[static_cast<std::size_t>(p)] = duration_s(require(queue, key, "queue", at), child("queue", key), at);
  }
}

void read_optional_keys(const json& block, const DecisionPlaces& at, DecisionSpec& s) {
  if (block.contains("objective")) {
    const json& o = block["objective"];
    std::string text = o.is_string()    ? o.get<std::string>()
                       : o.is_boolean() ? (o.get<bool>() ? "true" : "false")
                       : o.is_number()  ? fmt::format("{:g}", o.get<double>())
                                        : "";
    s.objective = parse_objective(text, at.value("objective"));
  }
  if (block.contains("rate_per_gpu_hour"))
    s.rate_per_gpu_hour = number_in(number(block["rate_per_gpu_hour"], "rate_per_gpu_hour", at), 0, 1e12,  // as decide --rate
                                    at.value("rate_per_gpu_hour"), "the rate");
  for (auto [key, field] : {std::pair{"p_remote_any", &s.p_remote_any}, std::pair{"p_local_prefer", &s.p_local_prefer}})
    if (block.contains(key)) *field = number_in(number(block[key], key, at), 0, 1, at.value(key), "a probability");
  if (block.contains("any_arm")) {
    if (!block["any_arm"].is_string()) throw InputError(fmt::format("{}: expected an arm name", at.value("any_arm")));
    s.any_arm = block["any_arm"].get<std::string>();
  }
}

// The one parser of a decision block.
DecisionSpec parse_decision(const json& block, const DecisionPlaces& at) {
  check_keys(block, at);
  DecisionSpec s;
  s.job_length_s = duration_s(require(block, "job_length", "", at), "job_length", at);
  if (s.job_length_s <= 0) throw InputError(fmt::format("{}: must be > 0", at.value("job_length")));
  s.gpus_per_job = positive_int(number(require(block, "gpus_per_job", "", at), "gpus_per_job", at), at.value("gpus_per_job"));
  read_queue(block, at, s);
  read_optional_keys(block, at, s);
  return s;
}

}  // namespace

DecisionSpec parse_decision_json(const json& block, const std::string& where) {
  return parse_decision(block, DecisionPlaces::json_block(where));
}

DecisionSpec parse_decision_yaml(const detail::LocatedJson& block, const std::string& file) {
  return parse_decision(block.value, DecisionPlaces::yaml_block(block, file));
}

DecisionSpec parse_decision_yaml(const YAML::Node& block, const std::string& file) {
  // Bounded and checked as every YAML document is (a config's block was, with its document).
  if (auto p = hostpipe::yaml_document_problem(block))
    throw InputError(fmt::format("{}:{}: decision{}: {}", file, p->line, p->path.empty() ? "" : "." + p->path, p->what));
  return parse_decision_yaml(detail::yaml_to_located_json(block), file);
}

ClassInput make_class_input(const std::string& name, const DecisionSpec& spec, const RemoteRatio& remote,
                            const DecideOverrides& overrides) {
  ClassInput in;
  in.name = name;
  in.job_length_min = spec.job_length_s / 60.0;
  in.gpus_per_job = spec.gpus_per_job;
  for (std::size_t i = 0; i < 3; ++i) in.queue_min[i] = spec.queue_s[i] / 60.0;
  in.objective = overrides.objective.value_or(spec.objective);
  in.rate_per_gpu_hour = overrides.rate_per_gpu_hour ? overrides.rate_per_gpu_hour : spec.rate_per_gpu_hour;
  in.p_remote_any = overrides.p_remote_any.value_or(spec.p_remote_any.value_or(1.0));
  in.p_local_prefer = overrides.p_local_prefer.value_or(spec.p_local_prefer.value_or(0.5));
  in.remote = remote;
  return in;
}

namespace {

// The decision block of a class in the run's config copy (run.json), or null.
const json* decision_block(const ExperimentConfig& config, const std::string& name, std::string& where) {
  for (std::size_t k = 0; k < config.classes.size(); ++k)
    if (config.classes[k].name == name && !config.classes[k].decision.is_null()) {
      where = fmt::format("config.classes[{}].decision", k);
      return &config.classes[k].decision;
    }
  return nullptr;
}

// The `any` arm's ratio against local as decide weighs it (execution time), or why the class cannot be
// decided on this run (`why` filled in).
std::optional<RemoteRatio> remote_ratio(const ClassAnalysis& c, const std::string& any_arm, const std::string& dir,
                                        std::string& why) {
  if (c.baseline != "local") {
    why = fmt::format("its ratios are against '{}', and decide needs them against local; rerun with baseline: local",
                      c.baseline);
    return std::nullopt;
  }
  auto arm = std::find_if(c.arms.begin(), c.arms.end(), [&](const ArmAnalysis& a) { return a.arm == any_arm; });
  if (arm == c.arms.end())
    why = fmt::format("it has no '{}' arm, whose ratio against local is what `any` placement costs; add the arm to the "
                      "class or name another with decision.any_arm / --any-arm", any_arm);
  else if (arm->role == "control" || arm->role == "unrealised")
    why = fmt::format("the '{}' arm was not realised ({}), so its ratio says nothing about that placement; decide on a "
                      "run from a node where it can be realised", any_arm, arm->unrealised_reason);
  else if (!arm->compared)
    why = fmt::format("the '{}' arm has no ratio yet (ratio_pct is null); run more rounds", any_arm);
  for (const ArmAnalysis& a : c.arms)
    if (why.empty() && a.aa_check == "failed")
      why = fmt::format("its A/A control '{}' failed (ratio CI [{:+.2f}, {:+.2f}]% excludes 0 for the baseline's own "
                        "placement), so its ratios are not placement effects; decide on a run from a quiet node",
                        a.arm, a.ratio_lo, a.ratio_hi);
  if (!why.empty()) return std::nullopt;
  RemoteRatio r;
  r.arm = any_arm;
  r.pct = arm->ratio_pct;
  r.lo_pct = arm->ratio_lo;
  r.hi_pct = arm->ratio_hi;
  if (!(r.pct > -100 && *r.lo_pct > -100 && *r.lo_pct <= r.pct && r.pct <= *r.hi_pct))
    throw InputError(fmt::format("{}/summary.json: class {}: arm {}: ratio_ci_pct: expected [lo, hi] with -100 < lo <= "
                                 "ratio_pct <= hi; rebuild it with `placebench compare {} --write-summary`",
                                 dir, c.name, any_arm, dir));
  if (c.statistic == "throughput") as_execution_time(r);
  r.verdict = arm->verdict;
  r.n_rounds = arm->n_rounds;
  return r;
}

}  // namespace

// summary.json and run.json through their one reader each (RunDirectory: schema versions and every
// field checked), then one decision per class from the `any` arm's ratio against local.
DecideReport decide_run_directory(const std::string& dir, const DecideOverrides& overrides) {
  RunDirectory rd = RunDirectory::open(dir);
  const RunSummary summary = rd.read_summary();
  const std::string rw = (std::filesystem::path(dir) / "run.json").string();
  DecideReport report;
  report.source = dir;
  for (const ClassAnalysis& c : summary.classes) {
    std::string dw, why;
    const json* decision = decision_block(*rd.config(), c.name, dw);
    if (!decision) {
      report.classes.push_back(undecidable_class(
          c.name, fmt::format("{} has no decision block for it under config.classes; add decision: {{job_length, "
                              "gpus_per_job, queue: {{strict, prefer, any}}, objective}} to the class's config",
                              rw)));
      continue;
    }
    DecisionSpec spec = parse_decision_json(*decision, rw + ": " + dw);
    std::optional<RemoteRatio> r = remote_ratio(c, overrides.any_arm.value_or(spec.any_arm), dir, why);
    report.classes.push_back(r ? decide_class(make_class_input(c.name, spec, *r, overrides))
                               : undecidable_class(c.name, why));
  }
  return report;
}

}  // namespace placebench::harness::decisions
