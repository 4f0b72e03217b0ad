// ExperimentConfig <-> JSON: the copy kept in run.json, read back by --resume and compare; and what a
// class's trials are given (its placement request, a pipeline class's PipelineConfig and its checks).
#include "placebench/harness/runner/config.h"

#include "placebench/harness/stats/group_sequential.h"

namespace placebench::harness {

std::vector<int> planned_looks(const ExperimentConfig& config) {
  return stats::planned_look_rounds(config.min_rounds, config.max_rounds, config.looks);
}

std::string order_name(Order o) { return o == Order::kRandom ? "random" : o == Order::kAbba ? "abba" : "fixed"; }

std::string statistic_name(Statistic s) {
  return s == Statistic::kMedian ? "median" : s == Statistic::kP99 ? "p99" : "throughput";
}

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

template <class T>
nlohmann::json opt(const std::optional<T>& v) {
  return v ? nlohmann::json(*v) : nlohmann::json(nullptr);
}

template <class T>
std::optional<T> opt_from(const nlohmann::json& j) {
  return j.is_null() ? std::nullopt : std::optional<T>(j.get<T>());
}

nlohmann::json workload_to_json(const WorkloadSpec& w) {
  return {{"type", w.type}, {"backend", w.backend}, {"direction", direction_name(w.direction)},
          {"memory", host_memory_name(w.memory)}, {"bytes", w.bytes}, {"copies", w.copies}, {"params", w.params}};
}

WorkloadSpec workload_from_json(const nlohmann::json& j) {
  WorkloadSpec w;
  w.type = j.at("type");
  w.backend = j.at("backend");
  std::string d = j.at("direction");
  w.direction = d == "h2d" ? Direction::kH2D : d == "d2h" ? Direction::kD2H : Direction::kBidir;
  std::string m = j.at("memory");
  w.memory = m == "pinned" ? HostMemory::kPinned : m == "pageable" ? HostMemory::kPageable
             : m == "registered" ? HostMemory::kRegistered : HostMemory::kHostAlloc;
  w.bytes = j.at("bytes");
  w.copies = j.at("copies");
  w.params = j.value("params", nlohmann::json());
  return w;
}

}  // namespace

nlohmann::json config_to_json(const ExperimentConfig& e) {
  nlohmann::json classes = nlohmann::json::array();
  for (const auto& k : e.classes) {
    std::vector<std::string> compare;
    for (Arm a : k.compare) compare.push_back(arm_name(a));
    classes.push_back({{"name", k.name}, {"workload", workload_to_json(k.workload)},
                       {"arms", {{"baseline", arm_name(k.baseline)}, {"compare", compare}}},
                       {"gpu", opt(k.gpu)}, {"device_numa", opt(k.device_numa)}, {"remote_node", opt(k.remote_node)},
                       {"cpus_per_worker", k.cpus_per_worker}, {"allow_degenerate", k.allow_degenerate},
                       {"margin_pct", k.margin_pct}, {"statistic", statistic_name(k.statistic)},
                       {"decision", k.decision}});
  }
  return {{"source", e.source}, {"name", e.name}, {"seed", e.seed},
          {"rounds", {{"min", e.min_rounds}, {"max", e.max_rounds}, {"looks", e.looks}}}, {"order", order_name(e.order)},
          {"warmup_steps", e.warmup_steps}, {"steps", e.steps}, {"confidence", e.confidence},
          {"output", e.output_dir},
          {"contention", e.contention}, {"classes", classes}};
}

ExperimentConfig config_from_json(const nlohmann::json& j) {
  ExperimentConfig e;
  e.source = j.at("source");
  e.name = j.at("name");
  e.seed = j.at("seed");
  e.min_rounds = j.at("rounds").at("min");
  e.max_rounds = j.at("rounds").at("max");
  e.looks = j.at("rounds").at("looks");
  e.seed_given = true;  // a run's seed is fixed once it is recorded
  std::string o = j.at("order");
  e.order = o == "random" ? Order::kRandom : o == "abba" ? Order::kAbba : Order::kFixed;
  e.warmup_steps = j.at("warmup_steps");
  e.steps = j.at("steps");
  e.confidence = j.at("confidence");
  e.output_dir = j.at("output");
  e.contention = j.value("contention", nlohmann::json());
  for (const auto& c : j.at("classes")) {
    ClassConfig k;
    k.name = c.at("name");
    k.workload = workload_from_json(c.at("workload"));
    k.baseline = *parse_arm(c.at("arms").at("baseline"));
    for (const auto& a : c.at("arms").at("compare")) k.compare.push_back(*parse_arm(a));
    k.gpu = opt_from<int>(c.at("gpu"));
    k.device_numa = opt_from<int>(c.at("device_numa"));
    k.remote_node = opt_from<int>(c.at("remote_node"));
    k.cpus_per_worker = c.at("cpus_per_worker");
    k.allow_degenerate = c.at("allow_degenerate");
    k.margin_pct = c.at("margin_pct");
    std::string s = c.at("statistic");
    k.statistic = s == "median" ? Statistic::kMedian : s == "p99" ? Statistic::kP99 : Statistic::kThroughput;
    k.decision = c.value("decision", nlohmann::json());
    e.classes.push_back(std::move(k));
  }
  return e;
}

}  // namespace placebench::harness
