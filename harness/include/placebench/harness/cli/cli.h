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

int run_cli(int argc, char** argv);

}  // namespace placebench::harness
