// Printing or recording a command's JSON (json_output.h).
#include "placebench/harness/cli/json_output.h"

#include <CLI/CLI.hpp>
#include <iostream>

#include "placebench/harness/cli/out_file.h"
#include "placebench/harness/errors.h"
#include "placebench/harness/evidence.h"
#include "placebench/harness/terminal_text.h"

namespace placebench::harness {

void refuse_existing_out(const ReportOutput& output) { check_output("--out", output.out, output.force); }

void add_report_output(CLI::App& cmd, ReportOutput& output, const std::string& out_help, const std::string& json_help) {
  cmd.add_option("--out", output.out, out_help)->type_name("FILE");
  cmd.add_flag("--json", output.json, json_help);
  add_force_flag(cmd, output.force);
}

int emit_report(nlohmann::json j, const std::string& table, const ReportOutput& output) {
  stamp_evidence(j);
  // A name read from an input may hold bytes that are not UTF-8: they print as U+FFFD.
  const std::string text = j.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
  OutputTarget out = check_output("--out", output.out, output.force);
  write_output(out, text);
  if (!out.to_stdout) std::cout << (output.json ? text : terminal_lines(table));
  return kExitOk;
}

}  // namespace placebench::harness
