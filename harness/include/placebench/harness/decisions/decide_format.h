// Printers of `placebench decide` results: the console table and the JSON (docs/decisions.md lists the fields).
#pragma once
#include <nlohmann/json.hpp>
#include <string>

#include "placebench/harness/decisions/decide_input.h"

namespace placebench::harness::decisions {

inline constexpr int kDecideSchemaVersion = 1;

// One sentence for a class: the policy and why, or why there is none and what would settle it (the same
// words as the report's first screen, scripts/placebench_report/first_screen.py, from_decide).
std::string decision_sentence(const ClassDecision& d);
// First "In short:" with one decision_sentence per class, then each class's table.
// The default table fits 100 columns (estimates; the CI of the saving); `wide`: every column with its CI.
std::string render_decide_table(const DecideReport& report, bool wide = false);
nlohmann::json decide_to_json(const DecideReport& report);

}  // namespace placebench::harness::decisions
