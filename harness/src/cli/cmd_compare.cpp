// `placebench compare DIR`: the statistics and verdicts of a run directory, complete or not.
#include <iostream>
#include <memory>

#include "placebench/harness/cli/cli.h"
#include "placebench/harness/errors.h"
#include "placebench/harness/runner/run_directory.h"
#include "placebench/harness/runner/runner.h"

namespace placebench::harness {
namespace {

struct CompareOptions {
  std::string dir;
  bool json = false;
  bool write_summary = false;
};

int run_compare(const CompareOptions& o) {
  LoadedRun run = load_run(o.dir);
  for (const auto& w : run.warnings) std::cerr << "placebench compare: warning: " << w << "\n";
  auto classes = analyze_run(run.config, run.trials);
  nlohmann::json summary = analysis_to_json(classes, run.complete, run.trials.size());
  RunDirectory rd = RunDirectory::open(o.dir);
  if (!rd.has_summary() || o.write_summary) rd.write_summary(summary);  // rebuilt from trials.jsonl
  if (o.json)
    std::cout << summary.dump(2) << "\n";
  else
    std::cout << render_analysis_table(classes, run.complete);
  return kExitOk;
}

}  // namespace

void add_compare_command(CLI::App& app, CommandAction& action) {
  auto o = std::make_shared<CompareOptions>();
  CLI::App* cmd = app.add_subcommand("compare", "Statistics and verdicts of a run directory (complete or not)");
  cmd->add_option("dir", o->dir, "The run directory")->required()->type_name("DIR");
  cmd->add_flag("--json", o->json, "Print summary.json's form: classes, arms, ratios, CIs, verdicts, complete");
  cmd->add_flag("--write-summary", o->write_summary, "Rewrite DIR/summary.json from trials.jsonl (it is written when missing)");
  cmd->callback([o, &action] { action = [o] { return run_compare(*o); }; });
}

}  // namespace placebench::harness
