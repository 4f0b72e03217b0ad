// `placebench compare DIR`: the statistics and verdicts of a run directory, complete or not.
// summary.json is written when missing and rewritten with --write-summary, never from zero trials and
// never over one that records more trials than trials.jsonl now holds. A run directory it cannot write to
// (read-only) still gets its statistics printed.
#include <fmt/format.h>

#include <iostream>
#include <memory>
#include <optional>

#include "placebench/harness/atomic_file.h"
#include "placebench/harness/cli/cli.h"
#include "placebench/harness/cli/json_output.h"
#include "placebench/harness/errors.h"
#include "placebench/harness/runner/analysis.h"
#include "placebench/harness/runner/run_directory.h"
#include "placebench/harness/terminal_text.h"

namespace placebench::harness {
namespace {

struct CompareOptions {
  std::string dir;
  bool json = false;
  bool write_summary = false;
  bool wide = false;
};

// The summary.json on disk, checked; nullopt when there is none, or when it is damaged and about to be
// rebuilt (--write-summary). One that a newer placebench wrote is never rebuilt: it may hold what this
// one cannot compute.
std::optional<RunSummary> recorded_summary(const RunDirectory& rd, bool rebuilding) {
  if (!rd.has_summary()) return std::nullopt;
  try {
    return rd.read_summary();
  } catch (const InputError& e) {
    if (!rebuilding) throw;
    const auto* version = dynamic_cast<const SchemaVersionError*>(&e);
    if (version && version->newer)
      throw InputError(rd.path() + "/summary.json: a newer placebench wrote it (its schema_version is above " +
                       std::to_string(kResultsSchemaVersion) + "); --write-summary does not replace it: use that placebench");
    std::cerr << "placebench compare: warning: " << rd.path() << "/summary.json is damaged; rebuilding it from trials.jsonl\n";
    return std::nullopt;
  }
}

// summary.json rebuilt from trials.jsonl. When it was asked for (--write-summary), a failure is the
// command's (exit 2, nothing printed); when it is only the missing file written in passing, the statistics
// are still printed (a read-only run directory), after a warning that says it could not be written.
void write_summary(const RunDirectory& rd, const RunSummary& summary, bool asked) {
  try {
    rd.write_summary(summary);
  } catch (const WriteError& e) {
    if (asked) throw InputError(fmt::format("--write-summary: {}", e.what()));
    std::cerr << "placebench compare: warning: summary.json not written: " << e.what() << "\n";
  }
}

int run_compare(const CompareOptions& o) {
  RunDirectory rd = RunDirectory::open(o.dir);  // run.json and its config copy, checked
  std::vector<std::string> warnings;
  std::vector<TrialRecord> trials = rd.read_trial_records(warnings);  // every line checked
  for (const auto& w : warnings) std::cerr << "placebench compare: warning: " << escape_control(w) << "\n";
  if (trials.empty())
    throw InputError(fmt::format("{}/trials.jsonl: no trials yet (the run stopped before its first trial finished), "
                                 "so there is nothing to compare; resume it with `placebench run --resume {}`",
                                 o.dir, o.dir));
  std::optional<RunSummary> recorded = recorded_summary(rd, o.write_summary);
  const ExperimentConfig& config = *rd.config();
  auto classes = analyze_run(config, trials);
  // complete: as the runner recorded it; without a readable record, whether the trials finish the plan.
  bool complete = recorded ? recorded->complete : plan_finished(classes);
  RunSummary summary{classes, complete, trials.size()};
  std::size_t recorded_trials = recorded ? recorded->trials : 0;
  if (recorded_trials > trials.size()) {
    std::string what = fmt::format("{}/summary.json records {} trials and trials.jsonl holds {}", o.dir, recorded_trials,
                                   trials.size());
    if (o.write_summary)
      throw InputError(what + "; not replacing it with a summary of fewer trials: restore trials.jsonl, or delete "
                              "summary.json to rebuild it from the trials left");
    std::cerr << "placebench compare: warning: " << what << ": the statistics below are of the " << trials.size() << "\n";
  }
  if (o.write_summary || !rd.has_summary()) write_summary(rd, summary, o.write_summary);
  emit_report(ReportTargets::printing(o.json),  // summary.json's own form: no evidence stamp
              {[&] { return json_text(summary_to_json(summary), JsonForm::kUnstamped); },
               [&] { return render_analysis_table(classes, complete, o.wide); }});
  return kExitOk;
}

}  // namespace

void add_compare_command(CLI::App& app, CommandAction& action) {
  auto o = std::make_shared<CompareOptions>();
  CLI::App* cmd = app.add_subcommand("compare", "Statistics and verdicts of a run directory (complete or not)");
  cmd->add_option("dir", o->dir, "The run directory")->required()->type_name("DIR");
  cmd->add_flag("--json", o->json, "Print summary.json's form: classes, arms, ratios, CIs, verdicts, complete");
  cmd->add_flag("--write-summary", o->write_summary, "Rewrite DIR/summary.json from trials.jsonl (it is written when missing)");
  cmd->add_flag("--wide", o->wide, "Every column of the verdict table (role, CI over rounds, ratio rounds), wider than 100");
  cmd->callback([o, &action] { action = [o] { return run_compare(*o); }; });
}

}  // namespace placebench::harness
