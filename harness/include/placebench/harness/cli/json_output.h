// The JSON object a command prints, with its evidence (host, UTC time, placebench version: evidence.h)
// stamped beside its schema_version, so files gathered from many nodes can be told apart; and a command's
// result as JSON or a table, optionally written whole to a new --out file (never over a recorded one).
#pragma once
#include <nlohmann/json.hpp>
#include <string>

#include "placebench/harness/evidence.h"

namespace CLI {
class App;
}

namespace placebench::harness {

inline nlohmann::json with_evidence(nlohmann::json object) {
  stamp_evidence(object);
  return object;
}

// Where a report command's result goes: printed as a table or as JSON (--json), and also written whole to
// a file (--out FILE, under the output rule of out_file.h; `--out -` prints the JSON instead of the table).
struct ReportOutput {
  std::string out;
  bool json = false;
  bool force = false;
};

// check_output (out_file.h) for --out: call it before any work.
void refuse_existing_out(const ReportOutput& output);

// Adds --out FILE, --json and --force to `cmd`, with the command's own help texts.
void add_report_output(CLI::App& cmd, ReportOutput& output, const std::string& out_help, const std::string& json_help);

// Stamps `j`, writes it to `output.out` (if given), then prints the JSON (`output.json`) or `table`.
int emit_report(nlohmann::json j, const std::string& table, const ReportOutput& output);

}  // namespace placebench::harness
