// The integer options of the real command line, found from the parser itself (for the table-driven test
// tests/cli/integer_options_cli_test.cpp and the fuzz target tests/fuzz/cli_integer_fuzz.cpp), so that a
// new option cannot miss the integer rule (options.h): an option is an integer one when CLI11 accepts a
// small whole number N for it and refuses "x" and "N.0" (which a float option takes).
#pragma once
#include <CLI/CLI.hpp>
#include <string>
#include <vector>

#include "placebench/harness/cli/cli.h"

namespace placebench::testing {

struct OptionProbe {
  bool refused = false;              // a ValidationError or ConversionError for this option
  std::string message;               // the one line the CLI prints for the error, when there was one
  std::vector<std::string> results;  // what CLI11 converts
};

// `placebench SUB OPTION VALUE`, parsed in-process. Other errors (a required option missing, an option that
// needs another) come after the option's value was validated: only the message is kept.
inline OptionProbe probe_option(const std::string& sub, const std::string& option, const std::string& value) {
  CLI::App app{"placebench", "placebench"};
  harness::CommandAction action;
  harness::add_all_commands(app, action, "placebench");
  std::vector<std::string> args = {value, option, sub};  // CLI11 takes them last first
  OptionProbe p;
  try {
    app.parse(args);
  } catch (const CLI::ValidationError& e) {
    p.refused = std::string(e.what()).find(option) != std::string::npos;
    p.message = harness::parse_error_message(app, e);
  } catch (const CLI::ConversionError& e) {
    p.refused = std::string(e.what()).find(option) != std::string::npos;
    p.message = harness::parse_error_message(app, e);
  } catch (const CLI::ParseError& e) {
    p.message = harness::parse_error_message(app, e);
  }
  p.results = app.get_subcommand(sub)->get_option(option)->results();
  return p;
}

struct IntegerOption {
  std::string sub, option, value;  // value: a whole number it accepts
};

// Every subcommand's named, value-taking options that behave as integers.
inline std::vector<IntegerOption> find_integer_options() {
  CLI::App app{"placebench", "placebench"};
  harness::CommandAction action;
  harness::add_all_commands(app, action, "placebench");
  std::vector<IntegerOption> found;
  for (const CLI::App* sub : app.get_subcommands([](const CLI::App*) { return true; }))
    for (const CLI::Option* opt : sub->get_options()) {
      if (opt->get_type_size() == 0 || opt->get_lnames().empty()) continue;  // a flag, a positional, --help
      const std::string name = "--" + opt->get_lnames().front();
      if (!probe_option(sub->get_name(), name, "x").refused) continue;  // text
      for (const std::string v : {"8", "1", "2", "0", "64", "1000", "100000"}) {
        if (probe_option(sub->get_name(), name, v).refused) continue;
        if (probe_option(sub->get_name(), name, v + ".0").refused) found.push_back({sub->get_name(), name, v});  // not a float
        break;
      }
    }
  return found;
}

}  // namespace placebench::testing
