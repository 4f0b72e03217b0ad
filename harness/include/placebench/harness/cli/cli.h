// The placebench command line. Each subcommand lives in its own file (src/cli/cmd_*.cpp) and
// registers itself here; run_cli maps errors to exit statuses (errors.h).
#pragma once
#include <CLI/CLI.hpp>
#include <functional>
#include <string>

namespace placebench::harness {

// What a subcommand does once its options are parsed; returns the exit status.
using CommandAction = std::function<int()>;

// Each registers a subcommand on app and, when it is chosen, sets action.
void add_topo_command(CLI::App& app, CommandAction& action);
void add_plan_command(CLI::App& app, CommandAction& action);
void add_verify_command(CLI::App& app, CommandAction& action);
void add_staging_command(CLI::App& app, CommandAction& action);
void add_run_command(CLI::App& app, CommandAction& action, const std::string& command_line);
void add_compare_command(CLI::App& app, CommandAction& action);
void add_stats_command(CLI::App& app, CommandAction& action);
void add_check_command(CLI::App& app, CommandAction& action);
void add_report_command(CLI::App& app, CommandAction& action);
void add_pipeline_command(CLI::App& app, CommandAction& action);
void add_collective_command(CLI::App& app, CommandAction& action);
void add_gang_command(CLI::App& app, CommandAction& action);
void add_decide_command(CLI::App& app, CommandAction& action);
void add_cost_command(CLI::App& app, CommandAction& action);
void add_feasible_command(CLI::App& app, CommandAction& action);
void add_fleet_command(CLI::App& app, CommandAction& action);
void add_audit_command(CLI::App& app, CommandAction& action);
void add_admission_command(CLI::App& app, CommandAction& action);
void add_queue_command(CLI::App& app, CommandAction& action);
void add_history_command(CLI::App& app, CommandAction& action);

// Every subcommand above on `app`, then the integer rule (options.h) applied to all of them. Tests walk
// the result to find every option of a kind (tests/cli/integer_options_cli_test.cpp).
void add_all_commands(CLI::App& app, CommandAction& action, const std::string& command_line);

// The one line run_cli prints for a command-line error ("placebench SUB: MESSAGE; see `placebench SUB
// --help`"), the offending value's control characters escaped.
std::string parse_error_message(const CLI::App& app, const CLI::ParseError& e);

int run_cli(int argc, char** argv);

}  // namespace placebench::harness
