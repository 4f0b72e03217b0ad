// A command's result as JSON (stamped with the evidence) or a table, and optionally the JSON written whole
// to a new --out file (never over a recorded one): shared by `admission` and `queue`.
#pragma once
#include <nlohmann/json.hpp>
#include <string>

namespace placebench::harness {

// InputError when --out names an existing path; checked before any work.
void refuse_existing_out(const std::string& out);

// Stamps `j`, writes it to `out` (if given), then prints the JSON (`as_json`) or `table`.
int emit_report(nlohmann::json j, const std::string& table, bool as_json, const std::string& out);

}  // namespace placebench::harness
