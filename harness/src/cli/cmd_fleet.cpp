// `placebench fleet DIR...`: every node's run against its peers (docs/fleet.md), and with --history DB each
// node's figures against its own past in the store ("changed since"). Prints the table; writes
// JSON, JUnit, HTML and Prometheus text when asked (each under the output rule, out_file.h). Exit 0 when no node is a suspect, 1
// when one is, 2 for bad input (a DIR that is missing or holds no run, an unwritable output, a bad option).
#include <fmt/format.h>

#include <cstdlib>
#include <ctime>
#include <iostream>
#include <memory>

#include "placebench/harness/cli/cli.h"
#include "placebench/harness/cli/options.h"
#include "placebench/harness/cli/json_output.h"
#include "placebench/harness/errors.h"
#include "placebench/harness/evidence.h"
#include "placebench/harness/fleet/fleet.h"
#include "placebench/harness/history/fleet_since.h"
#include "placebench/harness/terminal_text.h"

namespace placebench::harness {
namespace {

struct FleetCliOptions {
  std::vector<std::string> dirs;
  std::string json, junit, html, prometheus, reference, history;
  std::string metrics;  // CLASS[/ARM],...
  double tolerance_pct = 10;
  bool force = false;
  bool wide = false;
};

// The report's time: SOURCE_DATE_EPOCH (reproducible builds' convention, Unix seconds) when set, so the
// same inputs give the same bytes; else now.
std::string report_time() {
  const char* epoch = std::getenv("SOURCE_DATE_EPOCH");
  if (!epoch || !*epoch) return utc_timestamp_now();
  bool out_of_range = false;
  std::optional<long long> s = parse_decimal(epoch, out_of_range);  // the CLI's integer rule: "+5", " 5" refused
  if (!s || *s < 0 || *s > 253402300799LL)
    throw InputError(fmt::format("SOURCE_DATE_EPOCH={}: not a Unix time in seconds; give one (e.g. 1764547200) or unset it",
                                 epoch));
  std::time_t t = static_cast<std::time_t>(*s);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

// --metrics "a,b/remote" -> {"a", "b/remote"}; an empty selector is refused.
std::vector<std::string> metric_selectors(const std::string& text) {
  std::vector<std::string> out;
  if (text.empty()) return out;
  for (std::size_t start = 0;;) {
    std::size_t comma = text.find(',', start);
    std::string item = text.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    if (item.empty() || item.front() == '/' || item.back() == '/')
      throw InputError(fmt::format("--metrics {}: an empty class or arm; give CLASS or CLASS/ARM, separated by commas",
                                   text));
    out.push_back(item);
    if (comma == std::string::npos) return out;
    start = comma + 1;
  }
}

int run_fleet(const FleetCliOptions& o) {
  fleet::FleetOptions options;
  options.tolerance_pct = o.tolerance_pct;
  const OutputTarget json = check_output("--json", o.json, o.force), junit = check_output("--junit", o.junit, o.force),
                     html = check_output("--html", o.html, o.force), prom = check_output("--prometheus", o.prometheus, o.force);
  refuse_two_on_stdout({&json, &junit, &html, &prom});
  options.metrics = metric_selectors(o.metrics);
  if (!o.reference.empty()) options.reference = check::load_reference_file(o.reference);
  const std::string generated_at = report_time();
  // --history: the store opened read-only before the runs are read (a refused one is exit 2, unchanged).
  std::optional<history::Store> store;
  if (!o.history.empty()) store.emplace(history::Store::open_for_reading(o.history));
  fleet::FleetReport report = fleet::analyze_fleet(fleet::load_fleet(o.dirs, options.reference.has_value()), options);
  if (store) {
    std::vector<std::string> hosts;
    for (const fleet::NodeRun& n : report.input.nodes) hosts.push_back(n.host);
    report.history = history::fleet_changed_since(*store, hosts, options.metrics);
  }
  for (const auto& s : report.input.skipped) std::cerr << "placebench fleet: warning: skipped " << escape_control(s.dir) << ": " << escape_control(s.reason) << "\n";
  ReportTargets to = ReportTargets::printing(false);
  to.files = {{json, [&] { return json_text(fleet::fleet_to_json(report, generated_at), JsonForm::kStampedReplacingBadUtf8); }},
              {junit, [&] { return fleet::render_fleet_junit(report, generated_at); }},
              {html, [&] { return fleet::render_fleet_html(report, generated_at); }},
              {prom, [&] { return fleet::render_fleet_prometheus(report); }}};
  emit_report(to, {nullptr, [&] { return fleet::render_fleet_table(report, o.wide); }});
  return report.suspects.empty() ? kExitOk : kExitFailed;
}

}  // namespace

void add_fleet_command(CLI::App& app, CommandAction& action) {
  auto o = std::make_shared<FleetCliOptions>();
  CLI::App* cmd = app.add_subcommand("fleet", "Compare every node's run with its peers; rank the suspect nodes (exit 1 when there is one)");
  cmd->add_option("dirs", o->dirs, "Run directories, or folders of them (<host>/<run>: the newest complete run of each host)")
      ->required()
      ->type_name("DIR");
  cmd->add_option("--tolerance", o->tolerance_pct, "Percent a node may be slower than its peers' median before it is a suspect")
      ->check(number_in(0.1, 1000, "PERCENT in [0.1, 1000]"))
      ->default_val(10);
  cmd->add_option("--metrics", o->metrics,
                  "Compare only these classes (CLASS) or arms (CLASS/ARM); needed for runs of different experiments or configs")
      ->type_name("CLASS[/ARM],...");
  cmd->add_option("--reference", o->reference, "Also check every node against this reference YAML (as `placebench check`)")->type_name("FILE");
  cmd->add_option("--history", o->history,
                  "Also each node's latest figures in this history store against its own last stable segment, "
                  "and its last change point (\"changed since\")")
      ->type_name("DB");
  cmd->add_option("--json", o->json, "Write the report as JSON here")->type_name("OUT.json");
  cmd->add_option("--junit", o->junit, "Write JUnit XML here: one test case per node")->type_name("OUT.xml");
  cmd->add_option("--html", o->html, "Write a self-contained HTML heat map (node x metric) here")->type_name("OUT.html");
  cmd->add_option("--prometheus", o->prometheus, "Write Prometheus text format here (node_exporter textfile collector: a .prom file)")
      ->type_name("OUT.prom");
  add_force_flag(*cmd, o->force);
  cmd->add_flag("--wide", o->wide, "Each reason of the table on one line, however long (default: wrapped to 100 columns)");
  cmd->callback([o, &action] { action = [o] { return run_fleet(*o); }; });
}

}  // namespace placebench::harness
