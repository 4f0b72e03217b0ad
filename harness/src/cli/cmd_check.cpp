// `placebench check DIR --reference FILE`: a run against reference values and verdict expectations, for
// cluster CI. Exit 0 when every check passes, 3 when one fails, 2 for a bad reference file or run directory.
#include <iostream>
#include <memory>

#include "placebench/harness/atomic_file.h"
#include "placebench/harness/check/evaluate.h"
#include "placebench/harness/check/printers.h"
#include "placebench/harness/check/reference.h"
#include "placebench/harness/cli/cli.h"
#include "placebench/harness/errors.h"

namespace placebench::harness {
namespace {

struct CheckOptions {
  std::string dir, reference, junit, markdown;
};

// --junit and --markdown: replaced atomically (a CI step never reads half a report); an unwritable path is
// the option's fault (exit 2).
void write_file(const std::string& path, const std::string& text, const char* option) {
  try {
    write_file_atomically(path, text, "check that its directory exists and is writable");
  } catch (const WriteError& e) {
    throw InputError(std::string(option) + " " + e.what());
  }
}

int run_check(const CheckOptions& o) {
  check::ReferenceFile ref = check::load_reference_file(o.reference);  // bad references fail before the run is read
  check::RunEvidence run = check::load_run_evidence(o.dir);
  for (const auto& w : run.warnings) std::cerr << "placebench check: warning: " << w << "\n";
  check::CheckReport report = check::evaluate_checks(ref, run);
  if (!o.junit.empty()) write_file(o.junit, check::render_junit_xml(report), "--junit");
  if (!o.markdown.empty()) write_file(o.markdown, check::render_markdown(report), "--markdown");
  std::cout << check::render_check_table(report);
  return report.passed() ? kExitOk : kExitCheckFailed;
}

}  // namespace

void add_check_command(CLI::App& app, CommandAction& action) {
  auto o = std::make_shared<CheckOptions>();
  CLI::App* cmd = app.add_subcommand("check", "Check a run against reference values and verdict expectations (exit 3 on failure)");
  cmd->add_option("dir", o->dir, "The run directory, or a GPU node check's output directory (with a node_checks: reference)")->required()->type_name("DIR");
  cmd->add_option("--reference", o->reference, "Reference YAML: per class and arm metric targets with tolerances, verdict expectations")
      ->required()
      ->type_name("FILE");
  cmd->add_option("--junit", o->junit, "Also write JUnit XML here: one test case per check")->type_name("OUT.xml");
  cmd->add_option("--markdown", o->markdown, "Also write a Markdown summary here (e.g. $GITHUB_STEP_SUMMARY)")->type_name("OUT.md");
  cmd->callback([o, &action] { action = [o] { return run_check(*o); }; });
}

}  // namespace placebench::harness
