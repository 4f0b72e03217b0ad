// Queue JSON (`placebench queue --json`; fields in docs/queue-replay.md): the QueueReplay record's keys,
// each spelled once in a field table that the writer and the typed reader (`decide --queue-from`) walk.
#include <fmt/format.h>

#include <algorithm>
#include <array>

#include "placebench/harness/decisions/queue_replay.h"
#include "placebench/harness/errors.h"
#include "placebench/harness/json_fields.h"

namespace placebench::harness::decisions {
namespace {

using nlohmann::json;

constexpr Field<WorkloadClass, std::string> kWorkloadTexts[] = {{"name", &WorkloadClass::name}};
constexpr Field<WorkloadClass, double> kWorkloadNumbers[] = {{"arrivals_per_hour", &WorkloadClass::arrivals_per_hour},
                                                             {"duration_s", &WorkloadClass::duration_s},
                                                             {"duration_remote_s", &WorkloadClass::duration_remote_s}};
constexpr Field<WorkloadClass, int> kWorkloadIntegers[] = {{"workers", &WorkloadClass::workers},
                                                           {"gpus_per_worker", &WorkloadClass::gpus_per_worker},
                                                           {"cpus_per_worker", &WorkloadClass::cpus_per_worker}};
constexpr Field<JobMix, std::string> kMixTexts[] = {{"file", &JobMix::file}};
constexpr Field<JobMix, std::uint64_t> kMixSeed[] = {{"seed", &JobMix::seed}};
constexpr Field<JobMix, double> kMixNumbers[] = {{"horizon_s", &JobMix::horizon_s}, {"drain_s", &JobMix::drain_s}};
constexpr Field<QueueReplay, std::string> kReplayTexts[] = {{"inventory", &QueueReplay::inventory_file}};
constexpr Field<QueueReplay, int> kReplayIntegers[] = {{"total_gpus", &QueueReplay::total_gpus}, {"jobs", &QueueReplay::jobs}};
constexpr Field<Combination, bool> kCombinationFlags[] = {{"gang", &Combination::gang}};
constexpr Field<ReplayOutcome, double> kOutcomeNumbers[] = {
    {"end_s", &ReplayOutcome::end_s},
    {"completed_gpu_h", &ReplayOutcome::completed_gpu_h},
    {"stranded_gpu_h", &ReplayOutcome::stranded_gpu_h},
    {"free_gpus_mean", &ReplayOutcome::free_gpus_mean},
    {"fragmentation_gpus_mean", &ReplayOutcome::fragmentation_gpus_mean},
    {"fragmentation_share", &ReplayOutcome::fragmentation_share}};
constexpr Field<ClassOutcome, std::string> kClassTexts[] = {{"name", &ClassOutcome::name}};
constexpr Field<ClassOutcome, int> kClassIntegers[] = {
    {"arrived", &ClassOutcome::arrived}, {"started", &ClassOutcome::started}, {"completed", &ClassOutcome::completed}};
// Seconds over started jobs, null when none started.
constexpr Field<ClassOutcome, std::optional<double>> kClassSeconds[] = {
    {"queue_mean_s", &ClassOutcome::queue_mean_s}, {"queue_p50_s", &ClassOutcome::queue_p50_s},
    {"queue_p90_s", &ClassOutcome::queue_p90_s},   {"queue_p99_s", &ClassOutcome::queue_p99_s},
    {"queue_max_s", &ClassOutcome::queue_max_s},   {"exec_mean_s", &ClassOutcome::exec_mean_s}};
constexpr Field<ClassOutcome, std::optional<double>> kClassShares[] = {{"remote_share", &ClassOutcome::remote_share}};
constexpr Field<ClassOutcome, double> kClassNumbers[] = {{"completed_gpu_h", &ClassOutcome::completed_gpu_h},
                                                         {"stranded_gpu_h", &ClassOutcome::stranded_gpu_h}};
constexpr const char* kQueueKind = "queue-replay";
constexpr const char* kMix = "mix";
constexpr const char* kClasses = "classes";
constexpr const char* kCombinations = "combinations";
constexpr const char* kName = "name";
constexpr const char* kLocality = "locality";
constexpr const char* kChoice = "choice";

const char* choice_name(GpuChoice c) { return c == GpuChoice::kBinpack ? "binpack" : "spread"; }

json outcome_json(const ReplayOutcome& o) {
  json per_class = json::array();
  for (const auto& c : o.classes)
    per_class.push_back(record_to_json(c, kClassTexts, kClassIntegers, kClassSeconds, kClassShares, kClassNumbers));
  json j = record_to_json(o, kOutcomeNumbers);
  write_fields(j, o.combination, kCombinationFlags);
  j[kName] = combination_name(o.combination);
  j[kLocality] = policy_name(o.combination.locality);
  j[kChoice] = choice_name(o.combination.choice);
  j[kClasses] = std::move(per_class);
  return j;
}

// Every field of the replay at `where` ("--queue-from FILE"), or InputError "WHERE: PATH.KEY: problem; FIX".
struct ReplayReader {
  const std::string& where;
  [[noreturn]] void fail(const std::string& at, const std::string& problem) const {
    throw InputError(fmt::format("{}: {}: {}; write it again with `placebench queue --json`", where, at, problem));
  }
  auto failing(const std::string& at) const {
    return [this, at](const char* key, const char* expected) {
      fail(at.empty() ? std::string(key) : at + "." + key, std::string("expected ") + expected);
    };
  }
  const json& list(const json& o, const char* key, const std::string& at) const {
    auto it = o.find(key);
    if (it == o.end() || !it->is_array()) fail(at + "." + key, "expected a list");
    return *it;
  }
  const json& map(const json& o, const std::string& at) const {
    if (!o.is_object()) fail(at, "expected a map");
    return o;
  }
  std::string text(const json& o, const char* key, const std::string& at) const {
    std::string s;
    auto it = o.find(key);
    if (it == o.end() || !json_to_member(*it, s)) fail(at + "." + key, "expected a string");
    return s;
  }
};

ClassOutcome class_from_json(const json& c, const std::string& at, const ReplayReader& r) {
  ClassOutcome out;
  r.map(c, at);
  read_all_fields(c, out, r.failing(at), kClassTexts, kClassIntegers);
  read_fields(c, out, kClassSeconds,
              [&](const char* key, const char*) { r.fail(at + "." + key, "expected a number of seconds, or null"); });
  read_all_fields(c, out, r.failing(at), kClassShares, kClassNumbers);
  return out;
}

ReplayOutcome outcome_from_json(const json& o, const std::string& at, const ReplayReader& r) {
  ReplayOutcome out;
  r.map(o, at);
  read_fields(o, out.combination, kCombinationFlags, r.failing(at));
  const std::string choice = r.text(o, kChoice, at);
  if (choice != choice_name(GpuChoice::kBinpack) && choice != choice_name(GpuChoice::kSpread))
    r.fail(at + "." + kChoice, fmt::format("'{}' is not binpack or spread", choice));
  out.combination.choice = choice == choice_name(GpuChoice::kBinpack) ? GpuChoice::kBinpack : GpuChoice::kSpread;
  const std::string locality = r.text(o, kLocality, at);
  const auto* p = std::find_if(kPolicies.begin(), kPolicies.end(), [&](Policy x) { return policy_name(x) == locality; });
  if (p == kPolicies.end()) r.fail(at + "." + kLocality, fmt::format("'{}' is not strict, prefer or any", locality));
  out.combination.locality = *p;
  r.text(o, kName, at);  // derived from the three above
  read_fields(o, out, kOutcomeNumbers, r.failing(at));
  const json& classes = r.list(o, kClasses, at);
  for (std::size_t i = 0; i < classes.size(); ++i)
    out.classes.push_back(class_from_json(classes[i], fmt::format("{}.classes[{}]", at, i), r));
  return out;
}

JobMix mix_from_json(const json& replay, const ReplayReader& r) {
  JobMix mix;
  auto it = replay.find(kMix);
  if (it == replay.end()) r.fail(kMix, "expected a map");
  const json& m = r.map(*it, kMix);
  read_all_fields(m, mix, r.failing(kMix), kMixTexts, kMixSeed, kMixNumbers);
  const json& classes = r.list(m, kClasses, kMix);
  for (std::size_t i = 0; i < classes.size(); ++i) {
    const std::string at = fmt::format("mix.classes[{}]", i);
    WorkloadClass w;
    r.map(classes[i], at);
    read_all_fields(classes[i], w, r.failing(at), kWorkloadTexts, kWorkloadNumbers, kWorkloadIntegers);
    mix.classes.push_back(std::move(w));
  }
  return mix;
}

}  // namespace

nlohmann::json queue_replay_to_json(const QueueReplay& r) {
  json classes = json::array(), outcomes = json::array();
  for (const auto& w : r.mix.classes) classes.push_back(record_to_json(w, kWorkloadTexts, kWorkloadNumbers, kWorkloadIntegers));
  for (const auto& o : r.outcomes) outcomes.push_back(outcome_json(o));
  json mix = record_to_json(r.mix, kMixTexts, kMixSeed, kMixNumbers);
  mix[kClasses] = std::move(classes);
  json j = record_to_json(r, kReplayTexts, kReplayIntegers);
  j[kSchemaVersionKey] = kQueueReplaySchemaVersion;
  j[kKindKey] = kQueueKind;
  j[kMix] = std::move(mix);
  j[kCombinations] = std::move(outcomes);
  return j;
}

QueueReplay queue_replay_from_json(const nlohmann::json& replay, const std::string& where) {
  const ReplayReader r{where};
  if (!replay.is_object() || !replay.contains(kKindKey) || replay[kKindKey] != kQueueKind || !replay.contains(kCombinations) ||
      !replay[kCombinations].is_array())
    r.fail(kKindKey, "not a queue replay (kind: queue-replay, combinations[])");
  const json& v = replay.contains(kSchemaVersionKey) ? replay[kSchemaVersionKey] : json();
  if (!v.is_number_integer() || v.get<std::int64_t>() != kQueueReplaySchemaVersion)
    throw InputError(fmt::format("{}: schema_version {} is not {}; re-run placebench queue", where, v.dump(),
                                 kQueueReplaySchemaVersion));
  QueueReplay out;
  const json& combinations = replay[kCombinations];
  for (std::size_t n = 0; n < combinations.size(); ++n)
    out.outcomes.push_back(outcome_from_json(combinations[n], fmt::format("combinations[{}]", n), r));
  read_all_fields(replay, out, r.failing(""), kReplayTexts, kReplayIntegers);
  out.mix = mix_from_json(replay, r);
  return out;
}

}  // namespace placebench::harness::decisions
