// What summary.json's field table (runner/summary_table.h) gives beyond its reader and writer
// (analysis.h): the value of one arm field by its key, and the table itself as data.
#pragma once
#include <nlohmann/json.hpp>
#include <optional>
#include <string_view>

#include "placebench/harness/runner/analysis.h"

namespace placebench::harness {

// The number summary.json holds for the arm's field `key` ("median", "p99", "ratio_pct", "n_rounds" ...);
// nullopt when it is null there (no trials, no comparison), or when `key` is no numeric field of an arm.
std::optional<double> arm_number(const ArmAnalysis& arm, std::string_view key);

// The fields of summary.json, as {"summary": [...], "class": [...], "arm": [...]}, each field
// {"key", "kind", "nullable", "may_be_absent"} and, for a choice, "accepted": what the report's own check
// of summary.json (scripts/placebench_report/validate.py) is compared with (tests/report).
nlohmann::json summary_field_list();

}  // namespace placebench::harness
