// `placebench gang`'s record: the JSON object (also written to --out) and the console summary, and that
// JSON read back as its typed record (`cost --from`, `admission --gang`): one writer, one reader, each key
// spelled once (gang_report.cpp).
#pragma once
#include <nlohmann/json.hpp>
#include <optional>
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

// Whether `j` is shaped as gang JSON (an object with schema_version and ranks), to be read by
// gang_result_from_json; other objects with a stranded_gpu_s (trial lines, hand-made) are not.
bool looks_like_gang_json(const nlohmann::json& j);
// The gang JSON at `where` read back: schema version 1; outcome a string; stranded_gpu_s present and checked as
// stranded_gpu_s_from_json does; ranks[], each with rank (integer), host (string) and attempts[] (objects);
// the times a number or null. Other fields are taken when of their type. InputError "WHERE: KEY: problem;
// FIX" for damage.
collectives::GangResult gang_result_from_json(const nlohmann::json& j, const std::string& where);
// A stranded_gpu_s value (gang, admission or trial-line JSON): a number from 0 to a year of a million GPUs,
// else InputError "WHERE: stranded_gpu_s: expected ...".
double stranded_gpu_s_from_json(const nlohmann::json& v, const std::string& where);

}  // namespace placebench::harness
