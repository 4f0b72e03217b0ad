// The JSON object a command prints, with its evidence (host, UTC time, placebench version: evidence.h)
// stamped beside its schema_version, so files gathered from many nodes can be told apart; and a command's
// result as JSON or a table, optionally written whole to a new --out file (never over a recorded one).
#pragma once
#include <nlohmann/json.hpp>
#include <string>

#include "placebench/harness/evidence.h"

namespace placebench::harness {

inline nlohmann::json with_evidence(nlohmann::json object) {
  stamp_evidence(object);
  return object;
}

// check_out_file (out_file.h) when --out is given: checked before any work.
void refuse_existing_out(const std::string& out);

// Stamps `j`, writes it to `out` (if given), then prints the JSON (`as_json`) or `table`.
int emit_report(nlohmann::json j, const std::string& table, bool as_json, const std::string& out);

}  // namespace placebench::harness
