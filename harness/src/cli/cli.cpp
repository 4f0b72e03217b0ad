// Top-level CLI: subcommands, --version, and the mapping of errors to exit statuses and one-line messages
// (an option given an empty value among them, for every subcommand).
#include "placebench/harness/cli/cli.h"

#include <fmt/format.h>

#include <iostream>
#include <memory>
#include <sstream>

#include "placebench/harness/build_info.h"
#include "placebench/harness/cli/options.h"
#include "placebench/harness/errors.h"
#include "placebench/harness/terminal_text.h"

namespace placebench::harness {
namespace {

// --help fits 80 columns: every description is wrapped at spaces to 78 (--help-all indents a command's
// options by 2 more), beside the option column where it has one; CLI11 indents a description's own line
// breaks under that column. A word longer than the width stays whole.
constexpr std::size_t kHelpColumns = 78;

std::string wrap_text(const std::string& text, std::size_t width) {
  std::string out;
  std::istringstream lines(text);
  for (std::string line; std::getline(lines, line);) {
    std::string current;
    std::istringstream words(line);
    for (std::string word; words >> word;) {
      if (!current.empty() && current.size() + 1 + word.size() > width) {
        out += current + "\n";
        current.clear();
      }
      current += (current.empty() ? "" : " ") + word;
    }
    out += current + "\n";
  }
  if (!text.empty() && text.back() != '\n') out.pop_back();
  return out;
}

class WrappingFormatter : public CLI::Formatter {
 public:
  std::string make_option_desc(const CLI::Option* opt) const override {
    return wrap_text(CLI::Formatter::make_option_desc(opt), kHelpColumns - get_column_width());
  }
  std::string make_subcommand(const CLI::App* sub) const override {
    std::stringstream out;
    CLI::detail::format_help(out, sub->get_display_name(true), wrap_text(sub->get_description(), kHelpColumns - get_column_width()),
                             get_column_width());
    return out.str();
  }
  std::string make_description(const CLI::App* app) const override {
    return wrap_text(CLI::Formatter::make_description(app), kHelpColumns);
  }
};

}  // namespace

void add_all_commands(CLI::App& app, CommandAction& action, const std::string& command_line) {
  add_topo_command(app, action);
  add_plan_command(app, action);
  add_verify_command(app, action);
  add_staging_command(app, action);
  add_run_command(app, action, command_line);
  add_compare_command(app, action);
  add_stats_command(app, action);
  add_check_command(app, action);
  add_report_command(app, action);
  add_pipeline_command(app, action);
  add_collective_command(app, action);
  add_gang_command(app, action);
  add_decide_command(app, action);
  add_cost_command(app, action);
  add_feasible_command(app, action);
  add_fleet_command(app, action);
  add_audit_command(app, action);
  add_admission_command(app, action);
  add_queue_command(app, action);
  add_history_command(app, action);
  enforce_integer_rule(app);
}

std::string parse_error_message(const CLI::App& app, const CLI::ParseError& e) {
  std::string where = app.get_subcommands().empty() ? "placebench" : "placebench " + app.get_subcommands().front()->get_name();
  return fmt::format("{}: {}; see `{} --help`", where, escape_control(e.what()), where);  // the value may hold any byte
}

int run_cli(int argc, char** argv) {
  CLI::App app{"placebench: measure whether GPU workers' CPUs and memory are local to their GPU, and what\n"
               "partial gangs cost, then decide placement policy per workload class.",
               "placebench"};
  app.formatter(std::make_shared<WrappingFormatter>());  // before the subcommands, which take it from here
  app.require_subcommand(0, 1);
  app.set_help_all_flag("--help-all", "Print help for every subcommand");
  bool show_version = false;
  app.add_flag("--version", show_version, "Print the versions of placebench, the kernel, the GPU driver, hwloc, MPI, CUDA and NCCL");

  CommandAction action;
  std::string command_line;
  for (int i = 0; i < argc; ++i) command_line += (i ? " " : "") + std::string(argv[i]);
  add_all_commands(app, action, command_line);

  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    std::cerr << parse_error_message(app, e) << "\n";
    return kExitBadInput;
  }
  if (std::string empty = empty_value_error(app); !empty.empty()) {
    std::cerr << empty << "\n";
    return kExitBadInput;
  }
  try {
    if (show_version) {
      std::cout << render_versions(collect_versions());
      return kExitOk;
    }
    if (!action) {
      std::cout << app.help();
      return kExitOk;
    }
    return action();
  } catch (const InputError& e) {
    std::cerr << "placebench: " << e.what() << "\n";
    return kExitBadInput;
  } catch (const std::exception& e) {
    std::cerr << "placebench: error: " << e.what() << "\n";
    return kExitFailed;
  }
}

}  // namespace placebench::harness
