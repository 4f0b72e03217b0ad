// YAML -> ExperimentConfig with validation (see config.h). Every error names file, line and key.
#include <fmt/format.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <utility>

#include "placebench/harness/decisions/decide_input.h"
#include "placebench/harness/errors.h"
#include "placebench/harness/runner/config.h"
#include "placebench/harness/units.h"
#include "placebench/harness/yaml_check.h"

namespace placebench::harness {
namespace {

using detail::YamlContext;

std::vector<std::string> arm_strings() {
  std::vector<std::string> v;
  for (Arm a : all_arms()) v.push_back(arm_name(a));
  return v;
}

nlohmann::json yaml_to_json(const YAML::Node& n) {
  if (n.IsMap()) {
    nlohmann::json j = nlohmann::json::object();
    for (const auto& kv : n) j[kv.first.as<std::string>()] = yaml_to_json(kv.second);
    return j;
  }
  if (n.IsSequence()) {
    nlohmann::json j = nlohmann::json::array();
    for (const auto& e : n) j.push_back(yaml_to_json(e));
    return j;
  }
  if (n.IsNull()) return nullptr;
  // Scalars keep their YAML meaning: numbers and booleans stay numbers and booleans in run.json.
  std::string s = n.as<std::string>();
  if (n.Tag() != "!") {  // a quoted scalar stays a string
    std::size_t used = 0;
    try {
      long long i = std::stoll(s, &used);
      if (used == s.size()) return i;
      double d = std::stod(s, &used);
      if (used == s.size()) return d;
    } catch (const std::exception&) {
    }
    if (s == "true" || s == "false") return s == "true";
  }
  return s;
}

// Pipeline parameters: validated here (file and line), handed to the pipeline driver as JSON.
nlohmann::json parse_pipeline_params(const YamlContext& c, const YAML::Node& n, const std::string& where) {
  c.check_keys(n, where, {"type", "backend", "workers", "prefetch", "ring", "batch_bytes", "batch_samples", "image",
                          "decode", "cpu_work_ns_per_kb", "step_compute", "dataset_samples"});
  nlohmann::json p = nlohmann::json::object();
  for (const char* k : {"workers", "prefetch", "ring", "batch_samples", "dataset_samples"})
    if (n[k]) p[k] = c.integer(n[k], where + "." + k, std::string(k) == "ring" ? 0 : 1, 1 << 20);
  if (n["cpu_work_ns_per_kb"]) p["cpu_work_ns_per_kb"] = c.number(n["cpu_work_ns_per_kb"], where + ".cpu_work_ns_per_kb", 0, 1e9);
  if (n["decode"]) p["decode"] = c.one_of(n["decode"], where + ".decode", {"synthetic", "jpeg"});
  auto checked = [&](const char* key, auto parse) {
    if (!n[key]) return;
    try {
      p[key] = parse(c.text(n[key], where + "." + key), where + "." + key);
    } catch (const InputError&) {
      c.fail(n[key], where + "." + key, key == std::string("step_compute") ? "bad duration; use 2ms, 500us, 0.01s"
                                                                            : "bad size; use 4K, 64M, 1G");
    }
  };
  checked("batch_bytes", [](const std::string& t, const std::string& w) { return parse_size(t, w); });
  checked("step_compute", [](const std::string& t, const std::string& w) { return parse_duration_s(t, w); });
  if (n["image"]) {
    try {
      auto [width, height] = parse_image_size(c.text(n["image"], where + ".image"), pipeline_config_key);
      p["image_width"] = width;
      p["image_height"] = height;
    } catch (const PipelineInputError& e) {
      c.fail(n["image"], where + ".image", e.problem);
    }
  }
  return p;
}

// A pipeline class checked as its trials will be (validate_pipeline_config on the PipelineConfig they
// get), so that what the pipeline would refuse fails here, at its line, not after earlier trials ran.
// Keys of the experiment (steps, contention) are reported at their line in `experiment`.
void check_pipeline_class_yaml(const YamlContext& c, const YAML::Node& cls_node, const std::string& where,
                               const YamlContext& top, const YAML::Node& experiment, const ExperimentConfig& e,
                               const ClassConfig& k) {
  if (k.workload.type != "pipeline") return;
  try {
    validate_pipeline_config(pipeline_config(e, k, k.baseline), pipeline_config_key);
  } catch (const PipelineInputError& err) {
    std::string key = pipeline_config_key(err.key);
    if (key.rfind("experiment.", 0) == 0) {
      std::string sub = key.substr(std::string("experiment.").size());
      if (!experiment) c.fail(cls_node, key, err.problem);  // a default the class cannot run with
      top.fail(experiment.IsMap() && experiment[sub] ? experiment[sub] : experiment, key, err.problem);
    }
    const YAML::Node& w = cls_node["workload"];
    bool here = !key.empty() && w.IsMap() && w[key];
    c.fail(here ? w[key] : w, where + ".workload" + (key.empty() ? "" : "." + key), err.problem);
  }
}

// Collective parameters (one collective, type and size per class; run under mpirun).
nlohmann::json parse_collective_params(const YamlContext& c, const YAML::Node& n, const std::string& where) {
  c.check_keys(n, where, {"type", "backend", "op", "dtype", "redop", "bytes"});
  nlohmann::json p = {{"op", "allreduce"}, {"dtype", "float32"}, {"redop", "sum"}, {"bytes", 1u << 20}};
  if (n["op"])
    p["op"] = c.one_of(n["op"], where + ".op", {"allreduce", "allgather", "reducescatter", "broadcast", "reduce", "alltoall", "sendrecv"});
  if (n["dtype"]) p["dtype"] = c.one_of(n["dtype"], where + ".dtype", {"int8", "int32", "float16", "bfloat16", "float32", "float64"});
  if (n["redop"]) p["redop"] = c.one_of(n["redop"], where + ".redop", {"sum", "prod", "max", "min"});
  if (n["bytes"]) {
    try {
      p["bytes"] = parse_size(c.text(n["bytes"], where + ".bytes"), where + ".bytes");
    } catch (const InputError&) {
      c.fail(n["bytes"], where + ".bytes", "bad size; use 8, 64K, 1M");
    }
  }
  return p;
}

WorkloadSpec parse_workload(const YamlContext& c, const YAML::Node& n, const std::string& where) {
  WorkloadSpec w;
  if (!n.IsMap() || !n["type"]) c.fail(n, where + ".type", "missing; accepted: staging, pipeline, collective");
  w.type = c.one_of(n["type"], where + ".type", {"staging", "pipeline", "collective"});
  if (w.type == "collective") {
    w.params = parse_collective_params(c, n, where);
    if (n["backend"]) w.backend = c.one_of(n["backend"], where + ".backend", {"auto", "mpi", "nccl"});
    return w;
  }
  if (w.type == "pipeline") {
    w.params = parse_pipeline_params(c, n, where);
    if (n["backend"]) w.backend = c.one_of(n["backend"], where + ".backend", {"auto", "cuda", "host"});
    return w;
  }
  c.check_keys(n, where, {"type", "backend", "direction", "memory", "bytes", "copies"});
  if (n["backend"]) w.backend = c.one_of(n["backend"], where + ".backend", {"auto", "cuda", "host"});
  if (n["direction"]) {
    std::string d = c.one_of(n["direction"], where + ".direction", {"h2d", "d2h", "bidir"});
    w.direction = d == "h2d" ? Direction::kH2D : d == "d2h" ? Direction::kD2H : Direction::kBidir;
  }
  if (n["memory"]) {
    std::string m = c.one_of(n["memory"], where + ".memory", {"pinned", "pageable", "registered", "hostalloc"});
    w.memory = m == "pinned" ? HostMemory::kPinned : m == "pageable" ? HostMemory::kPageable
               : m == "registered" ? HostMemory::kRegistered : HostMemory::kHostAlloc;
  }
  if (n["bytes"]) {
    try {
      w.bytes = parse_size(c.text(n["bytes"], where + ".bytes"), where + ".bytes");
    } catch (const InputError&) {
      c.fail(n["bytes"], where + ".bytes", "bad size; use 4K, 64M, 1G");
    }
  }
  if (n["copies"]) w.copies = static_cast<int>(c.integer(n["copies"], where + ".copies", 1, config_limits::kMaxCopies));
  return w;
}

ClassConfig parse_class(const YamlContext& c, const YAML::Node& n, const std::string& where) {
  c.check_keys(n, where, {"name", "workload", "arms", "gpu", "device_numa", "remote_node", "cpus_per_worker",
                          "allow_degenerate", "margin_pct", "statistic", "decision"});
  ClassConfig k;
  if (!n["name"]) c.fail(n, where + ".name", "missing: every class needs a name");
  k.name = c.text(n["name"], where + ".name");
  if (!n["workload"]) c.fail(n, where + ".workload", "missing; e.g. {type: staging, bytes: 4M}");
  k.workload = parse_workload(c, n["workload"], where + ".workload");
  if (n["arms"]) {
    const YAML::Node& a = n["arms"];
    c.check_keys(a, where + ".arms", {"baseline", "compare"});
    if (a["baseline"]) k.baseline = *parse_arm(c.one_of(a["baseline"], where + ".arms.baseline", arm_strings()));
    if (a["compare"]) {
      if (!a["compare"].IsSequence()) c.fail(a["compare"], where + ".arms.compare", "must be a list, e.g. [remote, unpinned]");
      for (const auto& e : a["compare"]) k.compare.push_back(*parse_arm(c.one_of(e, where + ".arms.compare", arm_strings())));
    }
  }
  if (k.compare.empty()) k.compare = {Arm::kRemote};
  for (Arm a : k.compare)
    if (a == k.baseline) c.fail(n["arms"], where + ".arms.compare", "repeats the baseline arm " + arm_name(a));
  if (n["gpu"]) k.gpu = static_cast<int>(c.integer(n["gpu"], where + ".gpu", 0, 1023));
  if (n["device_numa"]) k.device_numa = static_cast<int>(c.integer(n["device_numa"], where + ".device_numa", 0, 1023));
  if (k.gpu && k.device_numa) c.fail(n["device_numa"], where + ".device_numa", "give either gpu or device_numa, not both");
  if (n["remote_node"]) k.remote_node = static_cast<int>(c.integer(n["remote_node"], where + ".remote_node", 0, 1023));
  if (n["cpus_per_worker"]) k.cpus_per_worker = static_cast<int>(c.integer(n["cpus_per_worker"], where + ".cpus_per_worker", 1, config_limits::kMaxCpusPerWorker));
  if (n["allow_degenerate"]) k.allow_degenerate = c.boolean(n["allow_degenerate"], where + ".allow_degenerate");
  if (n["margin_pct"]) k.margin_pct = c.number(n["margin_pct"], where + ".margin_pct", 0, 100);
  if (n["statistic"]) {
    std::string s = c.one_of(n["statistic"], where + ".statistic", {"median", "p99", "throughput"});
    k.statistic = s == "median" ? Statistic::kMedian : s == "p99" ? Statistic::kP99 : Statistic::kThroughput;
  }
  if (n["decision"]) {
    k.decision = yaml_to_json(n["decision"]);
    decisions::parse_decision_yaml(n["decision"], c.file);  // validated as `decide` will read it
  }
  return k;
}

void parse_rounds(const YamlContext& c, const YAML::Node& n, ExperimentConfig& e) {
  c.check_keys(n, "experiment.rounds", {"min", "max", "looks"});
  if (n["min"]) e.min_rounds = static_cast<int>(c.integer(n["min"], "experiment.rounds.min", config_limits::kMinRounds, config_limits::kMaxRounds));
  if (n["max"]) e.max_rounds = static_cast<int>(c.integer(n["max"], "experiment.rounds.max", config_limits::kMinRounds, config_limits::kMaxRounds));
  if (e.max_rounds < e.min_rounds) c.fail(n, "experiment.rounds", "max is below min");
  if (n["looks"]) e.looks = static_cast<int>(c.integer(n["looks"], "experiment.rounds.looks", 1, config_limits::kMaxLooks));
}

void parse_experiment(const YamlContext& c, const YAML::Node& n, ExperimentConfig& e) {
  c.check_keys(n, "experiment", {"name", "seed", "rounds", "order", "warmup_steps", "steps", "confidence",
                                 "target_half_width_pct", "output", "contention"});
  if (n["target_half_width_pct"])
    c.fail(n["target_half_width_pct"], "experiment.target_half_width_pct",
           "no longer used: a class stops when every arm is decided at a planned look, or at rounds.max "
           "(docs/statistics.md); remove the key (rounds.looks sets the looks)");
  if (n["name"]) e.name = c.text(n["name"], "experiment.name");
  if (n["seed"]) {
    e.seed = static_cast<std::uint64_t>(c.integer(n["seed"], "experiment.seed", 0, config_limits::kMaxSeed));
    e.seed_given = true;
  }
  if (n["rounds"]) parse_rounds(c, n["rounds"], e);
  if (n["order"]) {
    std::string o = c.one_of(n["order"], "experiment.order", {"random", "abba", "fixed"});
    e.order = o == "random" ? Order::kRandom : o == "abba" ? Order::kAbba : Order::kFixed;
  }
  if (n["warmup_steps"]) e.warmup_steps = static_cast<int>(c.integer(n["warmup_steps"], "experiment.warmup_steps", 0, config_limits::kMaxWarmupSteps));
  if (n["steps"]) e.steps = static_cast<int>(c.integer(n["steps"], "experiment.steps", config_limits::kMinSteps, config_limits::kMaxSteps));
  if (n["confidence"]) e.confidence = c.number(n["confidence"], "experiment.confidence", 0.5, 0.9999);
  if (n["output"]) e.output_dir = c.text(n["output"], "experiment.output");
  if (n["contention"] && !n["contention"].IsNull()) {
    const YAML::Node& spec = n["contention"];
    const std::string forms = "stream:NODE:THREADS[:SIZE][@CPUS] or spin:CPUS, joined with '+'";
    if (!spec.IsScalar()) c.fail(spec, "experiment.contention", "must be one string: " + forms);
    try {
      parse_contention_spec(spec.as<std::string>(), "experiment.contention");  // the machine is checked by run
    } catch (const PipelineInputError& err) {
      c.fail(spec, "experiment.contention", err.problem);
    }
    e.contention = spec.as<std::string>();
  }
}

YAML::Node load_yaml(const std::string& text, const std::string& source) {
  try {
    return YAML::Load(text);
  } catch (const YAML::Exception& ex) {
    throw InputError(fmt::format("{}:{}: not valid YAML ({}); fix the syntax at that line", source, ex.mark.line + 1, ex.msg));
  }
}

}  // namespace

ExperimentConfig parse_experiment_config(const std::string& text, const std::string& source) {
  YamlContext c{source};
  YAML::Node root = load_yaml(text, source);
  if (!root.IsMap()) throw InputError(source + ":1: the file must be a mapping with 'experiment' and 'classes'");
  c.check_keys(root, "", {"experiment", "classes"});
  ExperimentConfig e;
  e.source = source;
  e.name = std::filesystem::path(source).stem().string();
  if (root["experiment"]) parse_experiment(c, root["experiment"], e);
  const YAML::Node& classes = root["classes"];
  if (!classes || !classes.IsSequence() || classes.size() == 0)
    c.fail(classes ? classes : root, "classes", "missing or empty: list at least one workload class");
  for (std::size_t i = 0; i < classes.size(); ++i) {
    std::string where = fmt::format("classes[{}]", i);
    YAML::Node node = classes[i];
    if (node.IsMap() && node["include"]) {  // a class kept in its own file, relative to this one
      c.check_keys(node, where, {"include"});
      auto path = std::filesystem::path(source).parent_path() / c.text(node["include"], where + ".include");
      std::ifstream in(path);
      if (!in) c.fail(node["include"], where + ".include", "cannot read " + path.string());
      std::stringstream ss;
      ss << in.rdbuf();
      YamlContext included{path.string()};
      YAML::Node cls = load_yaml(ss.str(), path.string());
      e.classes.push_back(parse_class(included, cls, "class"));
      check_pipeline_class_yaml(included, cls, "class", c, std::as_const(root)["experiment"], e, e.classes.back());
    } else {
      e.classes.push_back(parse_class(c, node, where));
      check_pipeline_class_yaml(c, node, where, c, std::as_const(root)["experiment"], e, e.classes.back());
    }
    for (std::size_t j = 0; j + 1 < e.classes.size(); ++j)
      if (e.classes[j].name == e.classes.back().name) c.fail(node, where + ".name", "duplicate class name " + e.classes.back().name);
  }
  return e;
}

ExperimentConfig load_experiment_config(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw InputError(path + ": cannot read the config file; give a YAML file like configs/default.yaml");
  std::stringstream ss;
  ss << in.rdbuf();
  return parse_experiment_config(ss.str(), path);
}

}  // namespace placebench::harness
