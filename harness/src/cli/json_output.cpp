// The one path of a command's result (json_output.h).
#include "placebench/harness/cli/json_output.h"

#include <CLI/CLI.hpp>
#include <iostream>

#include "placebench/harness/evidence.h"
#include "placebench/harness/terminal_text.h"

namespace placebench::harness {
namespace {

bool stdout_is_taken(const ReportTargets& to) {
  if (to.stdout_taken || to.out.to_stdout) return true;
  for (const ReportFile& f : to.files)
    if (f.target.to_stdout) return true;
  return false;
}

}  // namespace

std::string json_text(nlohmann::json record, JsonForm form) {
  if (form != JsonForm::kUnstamped) stamp_evidence(record);
  if (form == JsonForm::kStampedReplacingBadUtf8)
    return record.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
  return record.dump(2) + "\n";
}

ReportTargets ReportTargets::printing(bool json) {
  ReportTargets to;
  to.print_json = json;
  return to;
}

ReportTargets ReportTargets::with_out(const OutputTarget& out, bool json) {
  ReportTargets to = printing(json);
  to.out = out;
  return to;
}

void emit_report(const ReportTargets& to, const ReportPrinters& printers) {
  const bool taken = stdout_is_taken(to);
  const bool has_out = to.out.given();  // the JSON is built only when --out or --json asks for it
  std::string json;
  if (printers.json && (has_out || (to.print_json && !taken))) json = printers.json();
  write_output(to.out, json);  // nothing when --out was not given
  for (const ReportFile& f : to.files)
    if (f.target.given()) write_output(f.target, f.text());
  if (!taken) {
    if (to.print_json)
      std::cout << json;
    else
      print_table(printers.table());
  }
  std::cout.flush();
}

void print_table(const std::string& table) { std::cout << terminal_lines(table); }

OutputTarget check_report_out(const ReportOutput& output) { return check_output("--out", output.out, output.force); }

void add_report_output(CLI::App& cmd, ReportOutput& output, const std::string& out_help, const std::string& json_help) {
  cmd.add_option("--out", output.out, out_help)->type_name("FILE");
  cmd.add_flag("--json", output.json, json_help);
  add_force_flag(cmd, output.force);
}

}  // namespace placebench::harness
