// Printers for `placebench collective`: the console table and the native JSON object (nccl-tests' text
// column names: size, count, type, redop, root, time, algbw, busbw, wrong, plus the block spread and the
// per-iteration figures), and nccl-tests' own `-J` JSON layout (collective_nccl_tests.h). They read the
// result; nothing is printed while measuring.
#pragma once
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "placebench/collectives/bench.h"
#include "placebench/harness/evidence.h"

namespace placebench::harness {

struct CollectiveReport {
  collectives::CollectiveBenchConfig config;
  collectives::CollectiveBenchResult result;
  std::string backend_reason;
  std::string arm;
  std::vector<nlohmann::json> ranks;  // rank_to_json of every rank, by rank
  Evidence evidence;                  // host, UTC time, placebench version of the reporting rank
};

inline constexpr int kCollectiveSchemaVersion = 1;

nlohmann::json collective_to_json(const CollectiveReport& report);
// nccl-tests' "Avg bus bandwidth": the mean busbw over every measured row (each size, type and mode).
double average_bus_bandwidth(const collectives::CollectiveBenchResult& result);
// The table fits 100 columns; `wide` gives nccl-tests' every column (166 columns).
std::string render_collective_table(const CollectiveReport& report, bool wide = false);

}  // namespace placebench::harness
