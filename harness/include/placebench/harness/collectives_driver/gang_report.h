// Printers for `placebench gang`: the JSON object (also written to --out) and the console summary.
#pragma once
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "placebench/collectives/gang.h"

namespace placebench::harness {

inline constexpr int kGangSchemaVersion = 1;

struct GangReport {
  collectives::GangConfig config;
  collectives::GangResult result;
  std::string backend_reason;
  std::string arm;
  std::vector<nlohmann::json> placements;  // rank_to_json of every rank, by rank
};

nlohmann::json gang_to_json(const GangReport& report);
std::string render_gang_table(const GangReport& report);

}  // namespace placebench::harness
