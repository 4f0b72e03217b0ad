// `placebench check DIR --reference FILE`: a run against reference values and verdict expectations, for
// cluster CI. Exit 0 when every check passes, 3 when one fails, 2 for a bad reference file or run directory.
// `placebench check --init-reference RUN... --out FILE`: a reference file made from known-good runs.
#include <fmt/format.h>

#include <iostream>
#include <memory>

#include "placebench/harness/check/evaluate.h"
#include "placebench/harness/check/init_reference.h"
#include "placebench/harness/check/printers.h"
#include "placebench/harness/check/reference.h"
#include "placebench/harness/cli/cli.h"
#include "placebench/harness/cli/options.h"
#include "placebench/harness/cli/json_output.h"
#include "placebench/harness/errors.h"
#include "placebench/harness/history/against.h"
#include "placebench/harness/terminal_text.h"

namespace placebench::harness {
namespace {

struct CheckOptions {
  std::string dir, reference, junit, markdown, history;
  std::vector<std::string> init_runs;
  std::string out;
  double min_tolerance_pct = 5;
  int min_peers = 3;
  bool min_peers_given = false;
  bool force = false;
  bool wide = false;
};

// --init-reference: the YAML is read back through the reference parser before it is written, so what is
// written is what `check --reference` accepts; an existing file is never replaced.
int init_reference(const CheckOptions& o) {
  if (o.out.empty()) throw InputError("--init-reference: give --out FILE, where the reference YAML goes");
  if (!o.dir.empty() || !o.reference.empty() || !o.junit.empty() || !o.markdown.empty())
    throw InputError("--init-reference: makes a reference; DIR, --reference, --junit and --markdown check one: give one or the other");
  const OutputTarget out = check_output("--out", o.out, o.force);
  check::InitReferenceOptions options;
  options.min_tolerance_pct = o.min_tolerance_pct;
  std::string yaml = check::make_reference_yaml(o.init_runs, options);
  check::ReferenceFile ref = check::parse_reference_text(yaml, o.out);
  ReportTargets to = ReportTargets::printing(false);
  to.files = {{out, [&] { return yaml; }}};
  emit_report(to, {nullptr, [&] {
                     return fmt::format("wrote {}: {} references, {} expectations from {} run(s)\n", o.out, ref.references.size(),
                                        ref.expectations.size(), o.init_runs.size());
                   }});
  return kExitOk;
}

check::CheckReport check_reference(const CheckOptions& o) {
  check::ReferenceFile ref = check::load_reference_file(o.reference);  // bad references fail before the run is read
  check::RunEvidence run = check::load_run_evidence(o.dir);
  for (const auto& w : run.warnings) std::cerr << "placebench check: warning: " << escape_control(w) << "\n";
  return check::evaluate_checks(ref, run);
}

// --against-history DB: the store opened read-only (a refused one is exit 2, unchanged), then the run read.
check::CheckReport check_history(const CheckOptions& o) {
  const history::Store store = history::Store::open_for_reading(o.history);
  history::AgainstHistoryOptions options;
  options.min_peers = static_cast<std::size_t>(o.min_peers);
  return history::check_against_history(store, o.dir, options);
}

int run_check(const CheckOptions& o) {
  if (!o.init_runs.empty()) return init_reference(o);
  if (!o.out.empty()) throw InputError("--out: only with --init-reference (use --junit or --markdown for a check's report)");
  if (o.dir.empty())
    throw InputError("check: give the run directory DIR to check (with --reference FILE), or make a reference with "
                     "--init-reference RUN... --out FILE");
  if (o.min_peers_given && o.history.empty())
    throw InputError("check " + o.dir + ": --min-peers: only with --against-history DB (the peers are in the store)");
  if (!o.history.empty() && !o.reference.empty())
    throw InputError("check " + o.dir + ": --reference and --against-history: give one of them");
  if (o.reference.empty() && o.history.empty())
    throw InputError("check " + o.dir + ": --reference is required: the reference YAML to check against (make one with "
                     "--init-reference RUN... --out FILE)");
  const OutputTarget junit = check_output("--junit", o.junit, o.force), markdown = check_output("--markdown", o.markdown, o.force);
  refuse_two_on_stdout({&junit, &markdown});
  check::CheckReport report = o.history.empty() ? check_reference(o) : check_history(o);
  ReportTargets to = ReportTargets::printing(false);
  to.files = {{junit, [&] { return check::render_junit_xml(report); }}, {markdown, [&] { return check::render_markdown(report); }}};
  emit_report(to, {nullptr, [&] { return check::render_check_table(report, o.wide); }});
  return report.passed() ? kExitOk : kExitCheckFailed;
}

}  // namespace

void add_check_command(CLI::App& app, CommandAction& action) {
  auto o = std::make_shared<CheckOptions>();
  CLI::App* cmd = app.add_subcommand("check", "Check a run against reference values and verdict expectations (exit 3 on failure)");
  cmd->add_option("dir", o->dir, "The run directory, or a GPU node check's output directory (with a node_checks: reference)")->type_name("DIR");
  cmd->add_option("--reference", o->reference, "Reference YAML: per class and arm metric targets with tolerances, verdict expectations")
      ->type_name("FILE");
  cmd->add_option("--against-history", o->history,
                  "Instead of --reference: against the node's own last stable segment in this history store, and its peers there")
      ->type_name("DB");
  cmd->add_option("--min-peers", o->min_peers,
                  "With --against-history: fewer other nodes with a figure make its peer check unknown; 0: no peer check")
      ->transform(whole_number(0, kMaxCount, "NONNEGATIVE"))
      ->default_val(3)
      ->type_name("N");
  cmd->add_option("--junit", o->junit, "Also write JUnit XML here: one test case per check")->type_name("OUT.xml");
  cmd->add_option("--markdown", o->markdown, "Also write a Markdown summary here (e.g. $GITHUB_STEP_SUMMARY)")->type_name("OUT.md");
  cmd->add_option("--init-reference", o->init_runs, "Instead: make a reference YAML from these known-good, complete runs")
      ->expected(1, -1)
      ->type_name("RUN");
  cmd->add_option("--out", o->out, "With --init-reference: the reference file to write (an existing one only with --force)")->type_name("FILE");
  cmd->add_option("--min-tolerance", o->min_tolerance_pct, "With --init-reference: the narrowest band, percent each side")
      ->check(number_in(0, 100, "PERCENT in [0, 100]"))
      ->default_val(5);
  cmd->add_flag("--wide", o->wide, "Each check's expected value on its row, however long (default: on a line below a row wider than 100)");
  add_force_flag(*cmd, o->force);
  cmd->callback([o, cmd, &action] {
    o->min_peers_given = cmd->count("--min-peers") > 0;
    action = [o] { return run_check(*o); };
  });
}

}  // namespace placebench::harness
