// Printing or recording a command's JSON (json_output.h).
#include "placebench/harness/cli/json_output.h"

#include <CLI/CLI.hpp>
#include <iostream>

#include "placebench/harness/cli/out_file.h"
#include "placebench/harness/errors.h"
#include "placebench/harness/evidence.h"

namespace placebench::harness {

void refuse_existing_out(const std::string& out) {
  if (!out.empty()) check_out_file(out);
}

void add_report_output(CLI::App& cmd, ReportOutput& output, const std::string& out_help, const std::string& json_help) {
  cmd.add_option("--out", output.out, out_help)->type_name("FILE");
  cmd.add_flag("--json", output.json, json_help);
}

int emit_report(nlohmann::json j, const std::string& table, const ReportOutput& output) {
  stamp_evidence(j);
  if (!output.out.empty()) write_out_file(output.out, j.dump(2) + "\n");
  if (output.json)
    std::cout << j.dump(2) << "\n";
  else
    std::cout << table;
  return kExitOk;
}

}  // namespace placebench::harness
