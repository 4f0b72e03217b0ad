// Experiment configuration (configs/*.yaml) as plain structs, validated once at load time.
// Errors name the file, line, key and the accepted values (InputError -> exit 2).
#pragma once
#include <algorithm>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "placebench/harness/decision_spec/decision_spec.h"
#include "placebench/harness/placement/arm.h"
#include "placebench/harness/workloads/pipeline.h"
#include "placebench/harness/workloads/staging.h"

namespace placebench::harness {

// The ranges a config accepts: the one description of the config's fields (runner/config_fields.h) gives
// them to the YAML parser, the JSON reader and the check of run.json's config copy.
namespace config_limits {
inline constexpr int kMinRounds = 2, kMaxRounds = 100000, kMaxLooks = 50;
inline constexpr int kMinSteps = 3, kMaxSteps = 10000000, kMaxWarmupSteps = 1000000;
inline constexpr int kMaxCopies = 1000000, kMaxCpusPerWorker = 4096;
inline constexpr int kMaxDeviceIndex = 1023;                 // gpu, device_numa, remote_node
inline constexpr int kMaxPipelineCount = 1 << 20;            // workers, prefetch, ring, samples, image sides
inline constexpr double kMaxCpuWorkNsPerKb = 1e9;
inline constexpr double kMinConfidence = 0.5, kMaxConfidence = 0.9999;
inline constexpr double kMaxMarginPct = 100;
inline constexpr long long kMaxSeed = 1ll << 62;
}  // namespace config_limits

enum class Order { kRandom, kAbba, kFixed };
enum class Statistic { kMedian, kP99, kThroughput };

std::string order_name(Order o);
std::string statistic_name(Statistic s);

struct WorkloadSpec {
  std::string type;                 // "staging" | "pipeline" | "collective"
  std::string backend = "auto";     // auto | cuda | host (staging, pipeline)
  // staging: one step = one batch of `copies` copies of `bytes` in `direction`
  Direction direction = Direction::kH2D;
  HostMemory memory = HostMemory::kPinned;
  std::uint64_t bytes = 4ull << 20;
  int copies = 4;
  nlohmann::json params;            // pipeline/collective parameters, validated by their adapters
};

// An interference condition (issue 32, docs/configuration.md#interference): the machine as it is (quiet),
// or a hog running beside every trial of the condition -- `membw` (STREAM triad threads, buffer on the
// node) or `cpu` (spinning threads on the node's CPUs) -- on the device's NUMA node or on another node,
// at a dose of `threads` threads (0: the hog's machinery with no thread, an A/A control of quiet).
// Which node and CPUs that means is resolved per trial from the topology (runner/interference.cpp).
struct Condition {
  enum class Hog { kNone, kMembw, kCpu };
  std::string name = "quiet";       // "quiet", or HOG-NODE-THREADS ("membw-device-2")
  Hog hog = Hog::kNone;
  std::string node = "device";      // device | other
  int threads = 0;
  std::uint64_t bytes = std::uint64_t{64} << 20;  // membw: each thread's buffer (three triad arrays)
  bool quiet() const { return hog == Hog::kNone; }
};
std::string hog_name(Condition::Hog hog);  // "quiet", "membw", "cpu"

struct ClassConfig {
  std::string name;
  WorkloadSpec workload;
  Arm baseline = Arm::kLocal;
  std::vector<Arm> compare;         // the other arms
  std::optional<int> gpu;           // the device (GPU index) or ...
  std::optional<int> device_numa;   // ... host device NUMA node
  std::optional<int> remote_node;
  int cpus_per_worker = 1;
  bool allow_degenerate = false;
  double margin_pct = 2.0;          // |difference| below this is "equivalent"
  Statistic statistic = Statistic::kMedian;
  std::optional<decisions::DecisionSpec> decision;  // the `decision` block, parsed at load (for `decide`)
  // run.json's copy only: why its decision block could not be read. Only `decide` needs the block, so only
  // decide refuses it (with this message); compare, check, fleet and --resume read the run as before.
  std::string decision_problem;
  // Interference conditions (empty: none, the machine as it is, and trials carry no condition); every round
  // runs every (arm x condition) cell, in one order drawn over the cells (schedule.h).
  std::vector<Condition> conditions;
  std::vector<Arm> arms() const;    // baseline first, then compare
  std::size_t cells() const { return arms().size() * std::max<std::size_t>(1, conditions.size()); }
  const Condition* condition(const std::string& wanted) const;  // nullptr when the class has none of that name
  // The placement request every trial of this class plans with (device, remote node, CPUs per worker,
  // degenerate arms, and the workers its workload needs: 2 for bidir staging, the pipeline's workers).
  PlanRequest plan_request(std::vector<Arm> arms) const;
};

struct ExperimentConfig {
  std::string source;               // the file it came from
  std::string name;
  std::uint64_t seed = 1;
  bool seed_given = false;          // the config named experiment.seed (else `run` draws a fresh one)
  int min_rounds = 5;               // the first planned look
  int max_rounds = 20;              // the last planned look
  int looks = 6;                    // planned looks, evenly spaced from min_rounds to max_rounds
  Order order = Order::kRandom;
  int warmup_steps = 5;
  int steps = 50;
  double confidence = 0.95;         // family-wise over every compared (class, arm) and every look
  std::string output_dir = "results";  // runs go to <output_dir>/<timestamp>-<host>/
  nlohmann::json contention;        // null or a --contention spec string, for workloads that support it
  std::vector<ClassConfig> classes;
};

// Parses and validates. Throws InputError "FILE:LINE: KEY: problem; accepted: ..." for any problem.
ExperimentConfig load_experiment_config(const std::string& path);
ExperimentConfig parse_experiment_config(const std::string& yaml_text, const std::string& source);

// A pipeline class's trial configuration for one arm: its workload parameters, the experiment's steps,
// warm-up, seed and contention (run_pipeline's input for that trial).
PipelineConfig pipeline_config(const ExperimentConfig& config, const ClassConfig& cls, Arm arm);
// A config file's name for a pipeline key ("ring", "experiment.contention"; "" for the stall timeout,
// which a config leaves auto), for refusals (validate_pipeline_config, check_pipeline).
std::string pipeline_config_key(PipelineKey key);
// Whether this node can run the pipeline class (check_pipeline for each of its arms: contention nodes
// and CPUs, backend cuda without a usable device, memory), before anything is measured. Throws
// InputError "workload.KEY: problem" or "experiment.contention: problem" (the caller adds file and class).
void check_pipeline_class(const Inventory& inv, const ExperimentConfig& config, const ClassConfig& cls);

// The planned look rounds: stats::planned_look_rounds(min_rounds, max_rounds, looks).
std::vector<int> planned_looks(const ExperimentConfig& config);

// The config copy of run.json: the one writer, and the one reader, which checks every key it reads (kind
// and range as a config file allows) and throws InputError "PLACE: config.KEY: problem; fix" for damage.
nlohmann::json config_to_json(const ExperimentConfig& config);
ExperimentConfig config_from_json(const nlohmann::json& j, const std::string& place = "run.json");

}  // namespace placebench::harness
