// Printers for `placebench collective`: the console table and the JSON object (nccl-tests' field
// names: size, count, type, redop, root, time, algbw, busbw, wrong). They read the result; nothing is
// printed while measuring.
#pragma once
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "placebench/collectives/bench.h"

namespace placebench::harness {

struct CollectiveReport {
  collectives::CollectiveBenchConfig config;
  collectives::CollectiveBenchResult result;
  std::string backend_reason;
  std::string arm;
  std::vector<nlohmann::json> ranks;  // rank_to_json of every rank, by rank
};

inline constexpr int kCollectiveSchemaVersion = 1;

nlohmann::json collective_to_json(const CollectiveReport& report);
std::string render_collective_table(const CollectiveReport& report);

}  // namespace placebench::harness
