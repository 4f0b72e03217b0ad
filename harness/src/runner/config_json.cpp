// ExperimentConfig <-> JSON: the copy kept in run.json, written and read back (by --resume, compare,
// check, decide) through the config's description (config_fields.h), every key read checked; and what a
// class's trials are given (its placement request, a pipeline class's PipelineConfig and its checks).
#include "placebench/harness/runner/config.h"

#include <algorithm>

#include "config_fields.h"
#include "config_interference.h"
#include "placebench/harness/errors.h"
#include "placebench/stats/group_sequential.h"
#include "results_checks.h"

namespace placebench::harness {

std::vector<int> planned_looks(const ExperimentConfig& config) {
  return stats::planned_look_rounds(config.min_rounds, config.max_rounds, config.looks);
}

std::string order_name(Order o) { return detail::name_in(detail::kOrders, o); }

std::string statistic_name(Statistic s) { return detail::name_in(detail::kStatistics, s); }

std::vector<Arm> ClassConfig::arms() const {
  std::vector<Arm> a{baseline};
  a.insert(a.end(), compare.begin(), compare.end());
  return a;
}

PlanRequest ClassConfig::plan_request(std::vector<Arm> arms_to_plan) const {
  PlanRequest req;
  req.arms = std::move(arms_to_plan);
  req.device = {gpu, device_numa};
  req.remote_node = remote_node;
  req.cpus_per_worker = cpus_per_worker;
  req.allow_degenerate = allow_degenerate;
  if (workload.type == "staging" && workload.direction == Direction::kBidir) req.workers = 2;
  if (workload.type == "pipeline") req.workers = workload.params.value("workers", 1);
  return req;
}

std::string pipeline_config_key(PipelineKey key) {
  switch (key) {
    case PipelineKey::kBackend: return "backend";
    case PipelineKey::kArm: return "arms";
    case PipelineKey::kWorkers: return "workers";
    case PipelineKey::kPrefetch: return "prefetch";
    case PipelineKey::kRing: return "ring";
    case PipelineKey::kBatchBytes: return "batch_bytes";
    case PipelineKey::kBatchSamples: return "batch_samples";
    case PipelineKey::kImage: return "image";
    case PipelineKey::kDecode: return "decode";
    case PipelineKey::kCpuWork: return "cpu_work_ns_per_kb";
    case PipelineKey::kDatasetSamples: return "dataset_samples";
    case PipelineKey::kStepCompute: return "step_compute";
    case PipelineKey::kSteps: return "experiment.steps";
    case PipelineKey::kWarmup: return "experiment.warmup_steps";
    case PipelineKey::kContention: return "experiment.contention";
    case PipelineKey::kStallTimeout: return "";  // auto: 10 s + 10 x step_compute
  }
  return "";
}

PipelineConfig pipeline_config(const ExperimentConfig& config, const ClassConfig& cls, Arm arm) {
  const nlohmann::json& p = cls.workload.params;
  PipelineConfig pc;
  pc.backend = cls.workload.backend;
  pc.placement = cls.plan_request({arm});
  pc.workers = p.value("workers", pc.workers);
  pc.prefetch = p.value("prefetch", pc.prefetch);
  pc.ring = p.value("ring", pc.ring);
  pc.batch_bytes = p.value("batch_bytes", pc.batch_bytes);
  pc.batch_samples = p.value("batch_samples", pc.batch_samples);
  pc.image_width = p.value("image_width", pc.image_width);
  pc.image_height = p.value("image_height", pc.image_height);
  pc.decode = p.value("decode", std::string("synthetic")) == "jpeg" ? DecodeKind::kJpeg : DecodeKind::kSynthetic;
  pc.cpu_work_ns_per_kib = p.value("cpu_work_ns_per_kb", pc.cpu_work_ns_per_kib);
  pc.step_compute_s = p.value("step_compute", pc.step_compute_s);
  pc.dataset_samples = p.value("dataset_samples", pc.dataset_samples);
  const std::string contention_key = pipeline_config_key(PipelineKey::kContention);
  if (config.contention.is_string())
    pc.contention = parse_contention_spec(config.contention.get<std::string>(), contention_key);
  else if (!config.contention.is_null())  // a run.json written before the parser checked it
    throw PipelineInputError(PipelineKey::kContention, contention_key,
                             "must be one string: stream:NODE:THREADS[:SIZE][@CPUS] or spin:CPUS, joined with '+'");
  pc.steps = config.steps;
  pc.warmup = config.warmup_steps;
  pc.seed = config.seed;
  return pc;
}

void check_pipeline_class(const Inventory& inv, const ExperimentConfig& config, const ClassConfig& cls) {
  if (cls.workload.type != "pipeline") return;
  try {
    for (Arm arm : cls.arms()) check_pipeline(inv, pipeline_config(config, cls, arm), pipeline_config_key);
  } catch (const PipelineInputError& e) {
    std::string key = pipeline_config_key(e.key);
    bool outside_workload = key.rfind("experiment.", 0) == 0 || key == "arms";
    throw InputError((outside_workload ? key : key.empty() ? "workload" : "workload." + key) + ": " + e.problem);
  }
}

namespace {

using detail::Checker;
using detail::IntRange;
using detail::Need;
using detail::NumberRange;
using detail::ParamKind;
using detail::ParamSpec;
using nlohmann::json;

// Writes run.json's copy: every field, defaults included.
class JsonWriter {
 public:
  explicit JsonWriter(json& out) : out_(out) {}
  void text(const char* key, const std::string& v, Need = {}) { put(key, v); }
  template <class T>
  void integer(const char* key, const T& v, IntRange) { put(key, v); }
  template <class T>
  void integer_not_below(const char* key, const T& v, IntRange, const char*, const T&) { put(key, v); }
  void number(const char* key, double v, NumberRange) { put(key, v); }
  void boolean(const char* key, bool v) { put(key, v); }
  template <class E, class Table>
  void choice(const char* key, const E& v, const Table& table) { put(key, detail::name_in(table, v)); }
  void optional_integer(const char* key, const std::optional<int>& v, IntRange) {
    put(key, v ? json(*v) : json(nullptr));
  }
  void size(const char* key, std::uint64_t v, const char*) { put(key, v); }
  template <class Describe>
  void map(const char* key, Describe&& describe) {
    JsonWriter sub(out_[key] = json::object());
    describe(sub);
  }
  void arm_list(const char* key, const std::vector<Arm>& arms, const Arm&) {
    std::vector<std::string> names;
    for (Arm a : arms) names.push_back(arm_name(a));
    put(key, names);
  }
  void workload(const char* key, const WorkloadSpec& w, Need) {
    JsonWriter sub(out_[key] = json::object());
    sub.put("type", w.type);
    sub.put("backend", w.backend);
    detail::staging_fields(sub, w);
    sub.put("params", w.params);
  }
  void contention(const char* key, const json& v) { put(key, v); }
  void decision(const char* key, const std::optional<decisions::DecisionSpec>& v, const std::string&) {
    put(key, v ? decisions::decision_to_json(*v) : json(nullptr));
  }
  // Only a class that has conditions (the copies written before issue 32 have no key).
  void interference(const char* key, const std::vector<Condition>& v) {
    if (!v.empty()) put(key, detail::interference_to_json(v));
  }
  void retired(const char*, const char*) {}
  void rule(bool, const char*, const char*) {}

 private:
  template <class T>
  void put(const char* key, const T& v) {
    out_[key] = v;
  }
  json& out_;
};

// Reads run.json's copy, checking each key it reads: every key is required, as the writer writes every one.
class JsonFields {
 public:
  JsonFields(const Checker& c, const json& obj, std::string where) : c_(c), obj_(obj), where_(std::move(where)) {}

  void text(const char* key, std::string& v, Need = {}) { v = c_.text(obj_, where_, key); }
  template <class T>
  void integer(const char* key, T& v, IntRange r) {
    v = static_cast<T>(c_.integer(obj_, where_, key, r.lo, r.copy_hi));
  }
  template <class T>
  void integer_not_below(const char* key, T& v, IntRange r, const char*, const T& other) {
    v = static_cast<T>(c_.integer(obj_, where_, key, std::max<long long>(r.lo, other), r.copy_hi));
  }
  void number(const char* key, double& v, NumberRange r) { v = c_.number(obj_, where_, key, r.lo, r.copy_hi); }
  void boolean(const char* key, bool& v) { v = c_.boolean(obj_, where_, key); }
  template <class E, class Table>
  void choice(const char* key, E& v, const Table& table) {
    v = detail::value_in<E>(table, c_.one_of(obj_, where_, key, detail::names_of(table)));
  }
  void optional_integer(const char* key, std::optional<int>& v, IntRange r) {
    c_.at(obj_, where_, key);
    v.reset();
    c_.optional(obj_, key, [&] { v = static_cast<int>(c_.integer(obj_, where_, key, r.lo, r.copy_hi)); });
  }
  void size(const char* key, std::uint64_t& v, const char*) {
    v = static_cast<std::uint64_t>(c_.integer(obj_, where_, key, 1, detail::kNoLimit));
  }
  template <class Describe>
  void map(const char* key, Describe&& describe) {
    JsonFields sub(c_, c_.object(obj_, where_, key), Checker::join(where_, key));
    describe(sub);
  }
  void arm_list(const char* key, std::vector<Arm>& v, const Arm& baseline);
  void workload(const char* key, WorkloadSpec& w, Need);
  void contention(const char* key, json& v) {
    c_.optional(obj_, key, [&] { c_.text(obj_, where_, key); });
    v = obj_.value(key, json());
  }
  // An object, then its keys through the block's one parser: "PLACE: config.classes[0].decision.KEY: ...".
  // A damaged block is kept as its message in `problem`: decide refuses it, the run's other readers do not
  // need the block (as before the block was typed).
  void decision(const char* key, std::optional<decisions::DecisionSpec>& v, std::string& problem) {
    v.reset();
    problem.clear();
    c_.optional(obj_, key, [&] {
      try {
        v = decisions::parse_decision_json(c_.object(obj_, where_, key), c_.place() + ": " + Checker::join(where_, key));
      } catch (const InputError& e) {
        problem = e.what();
      }
    });
  }
  void interference(const char* key, std::vector<Condition>& v) {
    v.clear();
    c_.optional(obj_, key, [&] { v = detail::interference_from_json(c_, obj_.at(key), Checker::join(where_, key)); });
  }
  void retired(const char*, const char*) {}
  void rule(bool ok, const char* key, const char* problem) {
    if (!ok) c_.fail(Checker::join(where_, key), problem);
  }

 private:
  void params(const std::string& type, json& out);

  const Checker& c_;
  const json& obj_;
  std::string where_;
};

void JsonFields::arm_list(const char* key, std::vector<Arm>& v, const Arm& baseline) {
  const std::string w = Checker::join(where_, key);
  const json& list = c_.list(obj_, where_, key);
  if (list.empty()) c_.fail(w, "empty: a class compares at least one arm with its baseline");
  v.clear();
  for (std::size_t i = 0; i < list.size(); ++i) {
    std::optional<Arm> a;
    if (list[i].is_string()) a = parse_arm(list[i].get<std::string>());
    if (!a || *a == baseline)
      c_.fail(Checker::item(w, i),
              "expected an arm other than the baseline (" + arm_names_list() + "), got " + detail::describe(list[i]));
    v.push_back(*a);
  }
}

void JsonFields::workload(const char* key, WorkloadSpec& w, Need) {
  JsonFields f(c_, c_.object(obj_, where_, key), Checker::join(where_, key));
  f.choice("type", w.type, detail::kWorkloadTypes);
  f.choice("backend", w.backend, detail::backends_of(w.type));
  detail::staging_fields(f, w);
  f.params(w.type, w.params);
}

// A workload's parameters as the YAML parser stored them (null for staging): every one the type needs.
void JsonFields::params(const std::string& type, json& out) {
  const std::string pw = Checker::join(where_, "params");
  auto it = obj_.find("params");
  out = it == obj_.end() ? json() : *it;
  if (out.is_null()) return;
  c_.expect(out.is_object(), pw, "a map or null", out);
  for (const ParamSpec& spec : detail::params_of(type)) {
    auto check = [&](const char* key) {
      switch (spec.kind) {
        case ParamKind::kCount:
        case ParamKind::kImage:
          c_.integer(out, pw, key, static_cast<long long>(spec.range.lo), static_cast<long long>(spec.range.copy_hi));
          return;
        case ParamKind::kSize: c_.integer(out, pw, key, 1, detail::kNoLimit); return;
        case ParamKind::kNumber:
        case ParamKind::kDuration: c_.number(out, pw, key, spec.range.lo, spec.range.copy_hi); return;
        case ParamKind::kChoice: c_.one_of(out, pw, key, detail::names_of(spec.choices)); return;
      }
    };
    std::vector<const char*> keys = spec.kind == ParamKind::kImage ? std::vector<const char*>{"image_width", "image_height"}
                                                                   : std::vector<const char*>{spec.key};
    for (const char* key : keys) {
      if (spec.fallback.is_null())
        c_.optional(out, key, [&] { check(key); });  // a parameter the config may leave out
      else
        check(key);
    }
  }
}

}  // namespace

json config_to_json(const ExperimentConfig& e) {
  json out = {{"source", e.source}};
  JsonWriter w(out);
  detail::experiment_fields(w, e);
  json classes = json::array();
  for (const ClassConfig& k : e.classes) {
    json cj = json::object();
    JsonWriter cw(cj);
    detail::class_fields(cw, k);
    classes.push_back(std::move(cj));
  }
  out["classes"] = std::move(classes);
  return out;
}

ExperimentConfig config_from_json(const json& j, const std::string& place) {
  Checker c(place, "the config copy is damaged: restore run.json, or start a new run");
  c.expect(j.is_object(), "config", "a map", j);
  ExperimentConfig e;
  e.source = c.text(j, "config", "source");
  JsonFields fields(c, j, "config");
  detail::experiment_fields(fields, e);
  e.seed_given = true;  // a run's seed is fixed once it is recorded
  const json& classes = c.list(j, "config", "classes");
  if (classes.empty()) c.fail("config.classes", "empty: a run has at least one class");
  for (std::size_t i = 0; i < classes.size(); ++i) {
    const std::string where = Checker::item("config.classes", i);
    c.expect(classes[i].is_object(), where, "a map", classes[i]);
    ClassConfig k;
    JsonFields cf(c, classes[i], where);
    detail::class_fields(cf, k);
    for (std::size_t m = 0; m < i; ++m)
      if (e.classes[m].name == k.name)
        c.fail(where + ".name", "repeats the name of config.classes[" + std::to_string(m) + "]");
    e.classes.push_back(std::move(k));
  }
  return e;
}

}  // namespace placebench::harness
