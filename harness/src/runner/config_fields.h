// The one description of an experiment config's fields, for both of its formats: configs/*.yaml and
// run.json's config copy. Each field is one line: its key, its kind, its range (config_limits) and, through
// the struct's initialisers, its default; in the order a config file lists them. Each format is a
// visitor of this description:
//   YamlFields (config_parse.cpp): reads a YAML map, every error "FILE:LINE: KEY: problem";
//   JsonWriter (config_json.cpp):  writes run.json's copy;
//   JsonFields (config_json.cpp):  reads the copy back, checking each key it reads (the run.json check).
// Adding a key is one line here, plus its use.
//
// A visitor has, for one key of the map it visits:
//   text(key, s, need)                 a string
//   integer(key, n, range)             a whole number (int or std::uint64_t) in the range
//   integer_not_below(key, n, range, other_key, other)   ... and not below another field
//   number(key, x, range)              a number
//   boolean(key, b)
//   choice(key, v, table)              one of the named values of the table (an enum or a string)
//   optional_integer(key, n, range)    a whole number, or none (absent in YAML, null in JSON)
//   size(key, bytes, forms)            bytes: "4M" in YAML, a number in JSON
//   map(key, describe)                 a nested map, described by `describe(visitor)`
//   arm_list(key, arms, baseline)      arms other than the baseline; [remote] when none is given
//   workload(key, w, need)             a workload: staging_fields, or the type's parameters (params_of)
//   contention(key, spec)              a --contention spec string, or null
//   decision(key, spec, problem)       a decision block for `decide`, or none (decision_spec.h: parser, writer);
//                                      run.json's reader keeps a damaged block's message in `problem` (decide refuses it)
//   interference(key, conditions)      a class's interference conditions (config_interference.h), or none
//   retired(key, why)                  a key no longer read: refused with why (YAML), ignored (JSON)
//   rule(ok, key, problem)             a rule between fields: refused at `key` when !ok
#pragma once
#include <cstdint>
#include <limits>
#include <nlohmann/json.hpp>
#include <span>
#include <string>
#include <type_traits>
#include <vector>

#include "placebench/harness/runner/config.h"

namespace placebench::harness::detail {

inline constexpr long long kUnbounded = std::numeric_limits<long long>::max();

// `copy_hi`: the upper bound the check of run.json's copy applies, where it has always been wider than
// a config file's (it never refuses a copy for a bound only a config file needs).
struct IntRange {
  long long lo, hi, copy_hi;
  constexpr IntRange(long long low, long long high) : lo(low), hi(high), copy_hi(high) {}
  constexpr IntRange(long long low, long long high, long long copy_high) : lo(low), hi(high), copy_hi(copy_high) {}
};
struct NumberRange {
  double lo, hi, copy_hi;
  constexpr NumberRange(double low, double high) : lo(low), hi(high), copy_hi(high) {}
  constexpr NumberRange(double low, double high, double copy_high) : lo(low), hi(high), copy_hi(copy_high) {}
};

// What a config file must give (run.json's copy holds every key, as it was run): the message when the key
// is left out (`missing`), or when its text is empty (`empty`).
struct Need {
  const char* missing = nullptr;
  const char* empty = nullptr;
};

// Named values of a choice. A table is an array of Named<E>, or of names for a string field.
template <class E>
struct Named {
  E value;
  const char* name;
};
inline const char* entry_name(const char* name) { return name; }
template <class E>
const char* entry_name(const Named<E>& n) { return n.name; }
inline std::string entry_value(const char* name) { return name; }
template <class E>
E entry_value(const Named<E>& n) { return n.value; }

template <class Table>
std::vector<std::string> names_of(const Table& table) {
  std::vector<std::string> names;
  for (const auto& e : table) names.emplace_back(entry_name(e));
  return names;
}
// The name of `value` in the table ("" when it has none; a string field is its own name).
template <class Table, class E>
std::string name_in(const Table& table, const E& value) {
  if constexpr (std::is_same_v<E, std::string>) {
    return value;
  } else {
    for (const auto& e : table)
      if (entry_value(e) == value) return entry_name(e);
    return "";
  }
}
// The value named `name` (which names_of(table) holds).
template <class E, class Table>
E value_in(const Table& table, const std::string& name) {
  for (const auto& e : table)
    if (name == entry_name(e)) return entry_value(e);
  return E{};
}

inline constexpr Named<Order> kOrders[] = {{Order::kRandom, "random"}, {Order::kAbba, "abba"}, {Order::kFixed, "fixed"}};
inline constexpr Named<Statistic> kStatistics[] = {
    {Statistic::kMedian, "median"}, {Statistic::kP99, "p99"}, {Statistic::kThroughput, "throughput"}};
inline constexpr Named<Direction> kDirections[] = {
    {Direction::kH2D, "h2d"}, {Direction::kD2H, "d2h"}, {Direction::kBidir, "bidir"}};
inline constexpr Named<HostMemory> kHostMemories[] = {{HostMemory::kPinned, "pinned"},
                                                      {HostMemory::kPageable, "pageable"},
                                                      {HostMemory::kRegistered, "registered"},
                                                      {HostMemory::kHostAlloc, "hostalloc"}};
inline constexpr const char* kWorkloadTypes[] = {"staging", "pipeline", "collective"};
// Every placement arm, in all_arms() order.
const std::vector<Named<Arm>>& arm_table();
// The backends a workload type accepts: auto, cuda, host (staging, pipeline); auto, mpi, nccl (collective).
std::span<const char* const> backends_of(const std::string& type);

// ---- the fields ----

template <class V, class E>
void rounds_fields(V& v, E& e) {
  using namespace config_limits;
  v.integer("min", e.min_rounds, IntRange(kMinRounds, kMaxRounds));
  v.integer_not_below("max", e.max_rounds, IntRange(kMinRounds, kMaxRounds), "min", e.min_rounds);
  v.integer("looks", e.looks, IntRange(1, kMaxLooks));
}

// The experiment's keys (the `experiment:` map of a config; the top of run.json's copy).
template <class V, class E>
void experiment_fields(V& v, E& e) {
  using namespace config_limits;
  v.text("name", e.name, Need{nullptr, "empty: give the experiment a name, or leave the key out (the file's name)"});
  v.integer("seed", e.seed, IntRange(0, kMaxSeed, kUnbounded));
  v.map("rounds", [&](auto& r) { rounds_fields(r, e); });
  v.choice("order", e.order, kOrders);
  v.integer("warmup_steps", e.warmup_steps, IntRange(0, kMaxWarmupSteps));
  v.integer("steps", e.steps, IntRange(kMinSteps, kMaxSteps));
  v.number("confidence", e.confidence, NumberRange(kMinConfidence, kMaxConfidence));
  v.retired("target_half_width_pct",
            "no longer used: a class stops when every arm is decided at a planned look, or at rounds.max "
            "(docs/statistics.md); remove the key (rounds.looks sets the looks)");
  v.text("output", e.output_dir);
  v.contention("contention", e.contention);
}

// The keys of a staging workload (run.json's copy keeps them, with their defaults, for every type).
template <class V, class W>
void staging_fields(V& v, W& w) {
  v.choice("direction", w.direction, kDirections);
  v.choice("memory", w.memory, kHostMemories);
  v.size("bytes", w.bytes, "4K, 64M, 1G");
  v.integer("copies", w.copies, IntRange(1, config_limits::kMaxCopies));
}

template <class V, class K>
void class_fields(V& v, K& k) {
  using namespace config_limits;
  v.text("name", k.name, Need{"missing: every class needs a name", "empty: every class needs a name"});
  v.workload("workload", k.workload, Need{"missing; e.g. {type: staging, bytes: 4M}", nullptr});
  v.map("arms", [&](auto& a) {
    a.choice("baseline", k.baseline, arm_table());
    a.arm_list("compare", k.compare, k.baseline);
  });
  v.optional_integer("gpu", k.gpu, IntRange(0, kMaxDeviceIndex));
  v.optional_integer("device_numa", k.device_numa, IntRange(0, kMaxDeviceIndex));
  v.rule(!(k.gpu && k.device_numa), "device_numa", "give either gpu or device_numa, not both");
  v.optional_integer("remote_node", k.remote_node, IntRange(0, kMaxDeviceIndex));
  v.integer("cpus_per_worker", k.cpus_per_worker, IntRange(1, kMaxCpusPerWorker));
  v.boolean("allow_degenerate", k.allow_degenerate);
  v.number("margin_pct", k.margin_pct, NumberRange(0, kMaxMarginPct));
  v.choice("statistic", k.statistic, kStatistics);
  v.decision("decision", k.decision, k.decision_problem);
  v.interference("interference", k.conditions);
}

// ---- pipeline and collective parameters ----

// Kept as JSON (WorkloadSpec::params) and read by their drivers (pipeline_config, collective_trial).
// A config gives them beside `type`; run.json's copy under `params`, as parsed (sizes in bytes,
// durations in seconds, an image as image_width and image_height).
enum class ParamKind {
  kCount,     // a whole number in [lo, hi]
  kNumber,    // a number in [lo, hi]
  kChoice,    // one of `choices`
  kSize,      // bytes: "64M" in a config
  kDuration,  // seconds: "2ms" in a config
  kImage,     // WIDTHxHEIGHT in a config
};
struct ParamSpec {
  const char* key;
  ParamKind kind;
  NumberRange range{0, 0};
  std::span<const char* const> choices{};
  const char* forms = "";     // kSize, kDuration: the forms a bad value's message suggests
  nlohmann::json fallback{};  // the value a config that leaves the key out gets (null: left out)
};
// A workload type's parameters, in the order a config lists them (empty for staging).
const std::vector<ParamSpec>& params_of(const std::string& type);

}  // namespace placebench::harness::detail
