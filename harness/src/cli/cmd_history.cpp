// `placebench history add|list|show`: the results store (docs/history.md). add: exit 0 when every run was
// added or already there, 2 when one could not be read (the others are added) or the store is refused, 1
// when the store could not be written (another writer past --wait, a full disk). list, show: 0, or 2.
#include <fmt/format.h>

#include <iostream>
#include <memory>

#include "placebench/harness/cli/cli.h"
#include "placebench/harness/cli/json_output.h"
#include "placebench/harness/cli/options.h"
#include "placebench/harness/errors.h"
#include "placebench/harness/history/changes.h"
#include "placebench/harness/history/history.h"
#include "placebench/harness/terminal_text.h"

namespace placebench::harness {
namespace {

struct HistoryCliOptions {
  std::string db;
  std::vector<std::string> dirs;
  std::string since, until;
  history::HistoryFilter filter;
  double wait_s = 60;
  bool wide = false;
  ReportOutput output;
};

void add_wait_option(CLI::App& cmd, HistoryCliOptions& o) {
  cmd.add_option("--wait", o.wait_s, "Seconds to wait for another process writing the store before giving up")
      ->check(number_in(0, 3600, "SECONDS in [0, 3600]"))
      ->default_val(60);
}

void add_filters(CLI::App& cmd, HistoryCliOptions& o, bool run_filter = true) {
  cmd.add_option("--node", o.filter.node, "Only this node's runs (run.json's host)")->type_name("NODE");
  cmd.add_option("--class", o.filter.class_name, "Only runs with this class (show: only its rows)")->type_name("CLASS");
  cmd.add_option("--arm", o.filter.arm, "Only runs with this arm (show: only its rows)")->type_name("ARM");
  cmd.add_option("--metric", o.filter.metric, "Only runs with this metric: median, p99, throughput, ratio_pct")
      ->type_name("METRIC");
  cmd.add_option("--since", o.since, "Only runs that started at or after DATE (YYYY-MM-DD, UTC, or RFC 3339)")
      ->type_name("DATE");
  cmd.add_option("--until", o.until, "Only runs that started before DATE")->type_name("DATE");
  if (run_filter) cmd.add_option("--run", o.filter.run, "Only this run (its key, or the first digits of it)")->type_name("KEY");
}

int run_add(const HistoryCliOptions& o) {
  const OutputTarget out = check_report_out(o.output);
  std::vector<std::string> dirs = history::find_run_dirs(o.dirs);  // every DIR walked before anything is added
  history::Store store = history::Store::open_for_writing(o.db, {o.wait_s});
  history::AddReport report = history::add_run_dirs(store, dirs);
  emit_report(ReportTargets::with_out(out, o.output.json),
              {[&] { return json_text(history::add_to_json(o.db, report), JsonForm::kStampedReplacingBadUtf8); },
               [&] { return history::render_add_table(report); }});
  for (const auto& [dir, reason] : report.not_added)
    std::cerr << "placebench history add: not added: " << escape_control(reason) << "\n";
  return report.not_added.empty() ? kExitOk : kExitBadInput;
}

void parse_dates(HistoryCliOptions& o) {
  if (!o.since.empty()) o.filter.since_epoch_s = history::parse_history_date("--since", o.since);
  if (!o.until.empty()) o.filter.until_epoch_s = history::parse_history_date("--until", o.until);
}

int run_query(HistoryCliOptions o, bool with_results) {
  const OutputTarget out = check_report_out(o.output);
  parse_dates(o);
  history::Store store = history::Store::open_for_reading(o.db, {o.wait_s});
  std::vector<history::StoredRun> runs = with_results ? store.show(o.filter) : store.list(o.filter);
  emit_report(ReportTargets::with_out(out, o.output.json),
              {[&] { return json_text(history::runs_to_json(o.db, runs, with_results), JsonForm::kStampedReplacingBadUtf8); },
               [&] { return with_results ? history::render_show_table(runs) : history::render_list_table(runs); }});
  return kExitOk;
}

// `history changes`: exit 0 whenever it ran (a change is a finding, not a failure); 2 for a refused store.
int run_changes(HistoryCliOptions o) {
  const OutputTarget out = check_report_out(o.output);
  parse_dates(o);
  history::Store store = history::Store::open_for_reading(o.db, {o.wait_s});
  const history::ChangesReport report = history::find_changes(store, o.filter);
  emit_report(ReportTargets::with_out(out, o.output.json),
              {[&] { return json_text(history::changes_to_json(o.db, report), JsonForm::kStampedReplacingBadUtf8); },
               [&] { return history::render_changes_table(report, o.wide); }});
  return kExitOk;
}

void add_changes_command(CLI::App& history, CommandAction& action) {
  auto o = std::make_shared<HistoryCliOptions>();
  CLI::App* cmd = history.add_subcommand("changes", "Change points per node x class x arm x metric, attributed to the "
                                                    "evidence that changed, fleet or node");
  cmd->add_option("db", o->db, "The history store (SQLite)")->required()->type_name("DB");
  add_filters(*cmd, *o, false);
  add_wait_option(*cmd, *o);
  cmd->add_flag("--wide", o->wide, "Print every name and level in full (lines may exceed 100 columns)");
  add_report_output(*cmd, o->output, "Write the JSON here", "Print JSON instead of the table");
  cmd->callback([o, &action] { action = [o] { return run_changes(*o); }; });
}

CLI::App* add_query_command(CLI::App& history, CommandAction& action, const char* name, const char* what, bool with_results) {
  auto o = std::make_shared<HistoryCliOptions>();
  CLI::App* cmd = history.add_subcommand(name, what);
  cmd->add_option("db", o->db, "The history store (SQLite)")->required()->type_name("DB");
  add_filters(*cmd, *o);
  add_wait_option(*cmd, *o);
  add_report_output(*cmd, o->output, "Write the JSON here", "Print JSON instead of the table");
  cmd->callback([o, &action, with_results] { action = [o, with_results] { return run_query(*o, with_results); }; });
  return cmd;
}

}  // namespace

void add_history_command(CLI::App& app, CommandAction& action) {
  CLI::App* history = app.add_subcommand("history", "Results store (SQLite): add run directories, list and show them over time");
  history->require_subcommand(1);
  auto o = std::make_shared<HistoryCliOptions>();
  CLI::App* add = history->add_subcommand("add", "Add run directories to the store, each run once whatever its path");
  add->add_option("db", o->db, "The history store (SQLite; created when missing)")->required()->type_name("DB");
  add->add_option("dirs", o->dirs, "Run directories, or folders of them (<node>/<run>)")->required()->type_name("DIR");
  add_wait_option(*add, *o);
  add_report_output(*add, o->output, "Write what was added as JSON here", "Print JSON instead of the lines");
  add->callback([o, &action] { action = [o] { return run_add(*o); }; });
  add_query_command(*history, action, "list", "One line per run: node, start, versions (filters select runs)", false);
  add_query_command(*history, action, "show", "Each run's evidence and figures: statistic, CI over rounds, verdict", true);
  add_changes_command(*history, action);
}

}  // namespace placebench::harness
