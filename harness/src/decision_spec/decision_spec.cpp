// The decision block's one parser (decision_spec.h), and the policy and objective names it uses.
#include "placebench/harness/decision_spec/decision_spec.h"

#include <fmt/format.h>

#include <cstdlib>
#include <set>

#include "placebench/harness/errors.h"
#include "placebench/harness/units.h"
#include "placebench/harness/yaml_check.h"
#include "placebench/hostpipe/input_file.h"

namespace placebench::harness::decisions {
namespace {

using nlohmann::json;

// The block's keys, for the parser and the writer (the policies' names are policy_name's).
constexpr const char *kJobLength = "job_length", *kGpusPerJob = "gpus_per_job", *kQueue = "queue",
                     *kObjective = "objective", *kRate = "rate_per_gpu_hour", *kPRemoteAny = "p_remote_any",
                     *kPLocalPrefer = "p_local_prefer", *kAnyArm = "any_arm", *kUnderLoad = "under_load";
const std::set<std::string> kDecisionKeys = {kJobLength, kGpusPerJob,   kQueue,  kObjective, kRate,
                                              kPRemoteAny, kPLocalPrefer, kAnyArm, kUnderLoad};
constexpr const char* kAccepted =
    "job_length, gpus_per_job, queue {strict, prefer, any}, objective, rate_per_gpu_hour, p_remote_any, "
    "p_local_prefer, any_arm, under_load";

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

}  // namespace

std::string_view policy_name(Policy policy) {
  switch (policy) {
    case Policy::kStrict: return "strict";
    case Policy::kPrefer: return "prefer";
    case Policy::kAny: return "any";
  }
  return "?";
}

Objective parse_objective(const std::string& text, const std::string& where) {
  if (text == "turnaround") return {1.0, "turnaround"};
  if (text == "efficiency") return {0.0, "efficiency"};
  char* end = nullptr;
  double w = std::strtod(text.c_str(), &end);
  if (text.empty() || end != text.c_str() + text.size() || !(w >= 0.0 && w <= 1.0))
    throw InputError(fmt::format("{}: bad objective '{}'; use turnaround, efficiency, or a turnaround weight "
                                 "between 0 (efficiency) and 1 (turnaround)", where, text));
  if (w == 1.0) return {1.0, "turnaround"};
  if (w == 0.0) return {0.0, "efficiency"};
  return {w, fmt::format("{:g}", w)};
}

UnderLoad parse_under_load(const std::string& text, const std::string& where) {
  if (text == "worst") return {UnderLoad::Mode::kWorst, 0.0};
  if (text == "quiet") return {UnderLoad::Mode::kQuiet, 0.0};
  const bool decimal = !text.empty() && text.find_first_not_of("0123456789.") == std::string::npos;
  char* end = nullptr;
  const double share = decimal ? std::strtod(text.c_str(), &end) : -1.0;
  if (!decimal || end != text.c_str() + text.size() || !(share >= 0.0 && share <= 1.0))
    throw InputError(fmt::format("{}: bad value '{}'; use quiet, worst, or the share of time under load, a number in "
                                 "[0, 1] such as 0.3", where, text));
  return {UnderLoad::Mode::kShare, share};
}

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
  const json& queue = require(block, kQueue, "", at);
  if (!queue.is_object()) throw InputError(fmt::format("{}: expected {{strict, prefer, any}} durations", at.value(kQueue)));
  for (const auto& [key, value] : queue.items())
    if (key != "strict" && key != "prefer" && key != "any")
      throw InputError(fmt::format("{}: unknown policy; accepted: strict, prefer, any", at.key(child(kQueue, key))));
  for (Policy p : kPolicies) {
    std::string key(policy_name(p));
    s.queue_s[static_cast<std::size_t>(p)] = duration_s(require(queue, key, kQueue, at), child(kQueue, key), at);
  }
}

UnderLoad read_under_load(const json& v, const DecisionPlaces& at) {
  if (v == "worst") return {UnderLoad::Mode::kWorst, 0.0};
  if (v == "quiet") return {UnderLoad::Mode::kQuiet, 0.0};
  if (v.is_number() && v.get<double>() >= 0 && v.get<double>() <= 1) return {UnderLoad::Mode::kShare, v.get<double>()};
  throw InputError(fmt::format("{}: expected worst, quiet, or the share of time under load (a number in [0, 1]), got {}",
                               at.value(kUnderLoad), v.dump()));
}

void read_optional_keys(const json& block, const DecisionPlaces& at, DecisionSpec& s) {
  if (block.contains(kObjective)) {
    const json& o = block[kObjective];
    std::string text = o.is_string()    ? o.get<std::string>()
                       : o.is_boolean() ? (o.get<bool>() ? "true" : "false")
                       : o.is_number()  ? fmt::format("{:g}", o.get<double>())
                                        : "";
    s.objective = parse_objective(text, at.value(kObjective));
  }
  if (block.contains(kRate))
    s.rate_per_gpu_hour = number_in(number(block[kRate], kRate, at), 0, 1e12, at.value(kRate), "the rate");  // as decide --rate
  for (auto [key, field] : {std::pair{kPRemoteAny, &s.p_remote_any}, std::pair{kPLocalPrefer, &s.p_local_prefer}})
    if (block.contains(key)) *field = number_in(number(block[key], key, at), 0, 1, at.value(key), "a probability");
  if (block.contains(kUnderLoad)) s.under_load = read_under_load(block[kUnderLoad], at);
  if (block.contains(kAnyArm)) {
    if (!block[kAnyArm].is_string()) throw InputError(fmt::format("{}: expected an arm name", at.value(kAnyArm)));
    s.any_arm = block[kAnyArm].get<std::string>();
  }
}

// The one parser of a decision block.
DecisionSpec parse_decision(const json& block, const DecisionPlaces& at) {
  check_keys(block, at);
  DecisionSpec s;
  s.job_length_s = duration_s(require(block, kJobLength, "", at), kJobLength, at);
  if (s.job_length_s <= 0) throw InputError(fmt::format("{}: must be > 0", at.value(kJobLength)));
  s.gpus_per_job = positive_int(number(require(block, kGpusPerJob, "", at), kGpusPerJob, at), at.value(kGpusPerJob));
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

json decision_to_json(const DecisionSpec& spec) {
  json queue = json::object();
  for (Policy p : kPolicies) queue[std::string(policy_name(p))] = spec.queue_s[static_cast<std::size_t>(p)];
  const double w = spec.objective.turnaround_weight;  // a weight as a string: parse_objective reads it exactly
  json j = {{kJobLength, spec.job_length_s}, {kGpusPerJob, spec.gpus_per_job}, {kQueue, std::move(queue)},
            {kObjective, w == 0.0 || w == 1.0 ? spec.objective.label : fmt::format("{}", w)}, {kAnyArm, spec.any_arm}};
  if (spec.rate_per_gpu_hour) j[kRate] = *spec.rate_per_gpu_hour;
  if (spec.p_remote_any) j[kPRemoteAny] = *spec.p_remote_any;
  if (spec.p_local_prefer) j[kPLocalPrefer] = *spec.p_local_prefer;
  if (spec.under_load)
    j[kUnderLoad] = spec.under_load->mode == UnderLoad::Mode::kShare ? json(spec.under_load->share)
                    : spec.under_load->mode == UnderLoad::Mode::kWorst ? json("worst") : json("quiet");
  return j;
}

}  // namespace placebench::harness::decisions
