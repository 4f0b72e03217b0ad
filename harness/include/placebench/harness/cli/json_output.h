// The one path of every command's result: its JSON (printed with --json, written with --out FILE), its
// table, its other result files (check --junit/--markdown, fleet --json/--junit/--html/--prometheus,
// check --init-reference's YAML) and the evidence stamp (host, UTC time, placebench version: evidence.h)
// beside the JSON's schema_version, so files gathered from many nodes can be told apart. The command hands
// over its own record's printers (they live beside the record, in its module); cli only glues:
//
//   const OutputTarget out = check_report_out(opt.output);   // the output rule (out_file.h), before any work
//   Result r = ...;                                          // the work
//   emit_report(ReportTargets::with_out(out, opt.output.json),
//               {[&] { return json_text(result_to_json(r)); }, [&] { return render_result_table(r); }});
//   return status;  // the command's own exit status (0, 1, 3), after everything is written
//
// An MPI command calls it on the rank that reports (collective: rank 0; gang: the reporter) only.
#pragma once
#include <functional>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "placebench/harness/cli/out_file.h"

namespace CLI {
class App;
}

namespace placebench::harness {

// How a record becomes the JSON text a command prints and writes (2-space indent, a final newline).
enum class JsonForm {
  kStamped,                  // with the evidence stamp; bytes that are not UTF-8 are an error (exit 1)
  kStampedReplacingBadUtf8,  // with the stamp; names read from the system or inputs (audit, fleet, admission,
                             // queue) may hold bytes that are not UTF-8: they print as U+FFFD
  kUnstamped,                // the record as it is (compare prints summary.json's form; stats)
};

// The one place the evidence stamp is added to a command's JSON (keys the record already has are kept:
// a module that stamps its own record, as decide, cost, fleet and collective do, keeps its stamp).
std::string json_text(nlohmann::json record, JsonForm form = JsonForm::kStamped);

// A command's result, as its own module prints it. The hook calls only what it needs.
struct ReportPrinters {
  std::function<std::string()> json;   // the JSON text (json_text, or the module's own); empty: no JSON
  std::function<std::string()> table;  // what the terminal shows without --json (escaped: terminal_lines)
};

// One more result file in its own format, written after the JSON file and before the table is printed.
struct ReportFile {
  OutputTarget target;  // checked by check_output before any work
  std::function<std::string()> text;
};

// Where a command's result goes. Nothing is printed when one of its outputs is standard output (that
// output is then the command's). The JSON is made only when it goes somewhere: --out FILE given, or --json
// (a table alone never builds it: `history changes` over a fleet's store would build and drop 225 MB).
struct ReportTargets {
  OutputTarget out;                // --out FILE: the JSON, whole
  std::vector<ReportFile> files;   // its other formats, in this order
  bool print_json = false;         // --json: print the JSON instead of the table
  bool stdout_taken = false;       // another output, written by the command itself, is standard output

  static ReportTargets printing(bool json);                              // standard output only
  static ReportTargets with_out(const OutputTarget& out, bool json);     // --out and --json
};

// Writes `to.out` and `to.files`, then prints the JSON or the table (unless standard output is taken),
// and flushes standard output.
void emit_report(const ReportTargets& to, const ReportPrinters& printers);

// The table alone, as emit_report prints it (`run`'s verdict table, before its own lines on the run).
void print_table(const std::string& table);

// --out FILE, --json and --force of a report command.
struct ReportOutput {
  std::string out;
  bool json = false;
  bool force = false;
};

// check_output (out_file.h) for --out: call it before any work and pass the target to emit_report.
OutputTarget check_report_out(const ReportOutput& output);

// Adds --out FILE, --json and --force to `cmd`, with the command's own help texts.
void add_report_output(CLI::App& cmd, ReportOutput& output, const std::string& out_help, const std::string& json_help);

}  // namespace placebench::harness
