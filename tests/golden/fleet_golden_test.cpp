// Golden outputs of `placebench fleet` (render_fleet_table, fleet_to_json, render_fleet_junit,
// render_fleet_html, render_fleet_prometheus): five synthetic nodes, one of them 30% slower
// (tests/support/fleet_fixtures.h, the fleet tests' own generator: a fixed seed, the runner's writers), and
// three copies of the committed tiny-run under three host names. SOURCE_DATE_EPOCH fixes the report's
// time, so only the evidence stamp's host and version are placeholders; the nodes' directories, written
// into a fresh temporary directory, read {{TMP}}.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "cli_golden.h"
#include "fleet_fixtures.h"

using namespace placebench::testing;
using namespace placebench::golden;

namespace {

const std::vector<std::string> kReproducible = {"SOURCE_DATE_EPOCH=1764547200"};

}  // namespace

// Every format of one report: the table on stdout (exit 1, node-3 a suspect) and the four files.
TEST(GoldenFleet, OneSlowNodeEveryFormat) {
  std::string root = temp_dir("fleet-slow");
  std::vector<SyntheticNode> nodes;
  for (int i = 1; i <= 5; ++i) nodes.push_back({"node-" + std::to_string(i)});
  nodes[2].slowdown = 1.3;
  std::string dir = write_fleet_dir(root + "/nodes", nodes), out = root + "/fleet.";
  Substitutions tmp{{root, "{{TMP}}"}};
  expect_cli_golden({"fleet", dir, "--json", out + "json", "--junit", out + "xml", "--html", out + "html", "--prometheus",
                     out + "prom"},
                    1, "fleet-one-slow.txt", tmp, kReproducible);
  for (const char* ext : {"json", "xml", "html", "prom"})
    EXPECT_TRUE(matches_golden(read_text(out + ext), std::string("cli/fleet-one-slow.") + ext, tmp)) << ext;
  // --wide: each reason on one line (by default they wrap at 100 columns).
  expect_cli_golden({"fleet", dir, "--wide"}, 1, "fleet-one-slow-wide.txt", tmp, kReproducible);
}

// The committed tiny-run as three hosts (the same measurements under three names): no suspect, exit 0;
// the table, and the JSON on stdout (`--json -`).
TEST(GoldenFleet, CommittedRunAsThreeHosts) {
  std::string root = temp_dir("fleet-tiny");
  for (const char* host : {"host-a", "host-b", "host-c"})
    copy_synthetic_node(fixture("results/tiny-run"), root + "/" + host + "/tiny-run", host);
  Substitutions tmp{{root, "{{TMP}}"}};
  expect_cli_golden({"fleet", root}, 0, "fleet-tiny-three-hosts.txt", tmp, kReproducible);
  expect_cli_golden({"fleet", root, "--json", "-"}, 0, "fleet-tiny-three-hosts.json", tmp, kReproducible);
}
