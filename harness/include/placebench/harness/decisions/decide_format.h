// Printers of `placebench decide` results: the console table and the JSON (docs/decisions.md lists the fields).
#pragma once
#include <nlohmann/json.hpp>
#include <string>

#include "placebench/harness/decisions/decide_input.h"

namespace placebench::harness::decisions {

inline constexpr int kDecideSchemaVersion = 1;

std::string render_decide_table(const DecideReport& report);
nlohmann::json decide_to_json(const DecideReport& report);

}  // namespace placebench::harness::decisions
