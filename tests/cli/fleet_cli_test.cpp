// `placebench fleet` end to end on synthetic node run directories (tests/support/fleet_fixtures.h): the
// slowed node and only it is flagged, identical nodes pass, a topology mismatch is named, the outputs are
// byte-identical run to run, and bad inputs give exit 2 (a DIR) or a warning and a skip (a damaged run).
#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>

#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <regex>
#include <set>

#include "fleet_fixtures.h"
#include "run_command.h"
#include "text_file.h"

using namespace placebench::testing;
using nlohmann::json;
namespace fs = std::filesystem;

namespace {

const std::vector<std::string> kReproducible = {"SOURCE_DATE_EPOCH=1764547200"};

// A fresh folder of this process's own, holding <host>/<run> for each node.
std::string fleet_dir(const std::string& name, const std::vector<SyntheticNode>& nodes) {
  return write_fleet_dir(::testing::TempDir() + "/pb-fleet-" + name + "-" + std::to_string(::getpid()), nodes);
}

std::vector<SyntheticNode> five_nodes() {
  std::vector<SyntheticNode> nodes;
  for (int i = 1; i <= 5; ++i) nodes.push_back({"node-" + std::to_string(i)});
  return nodes;
}

CommandResult fleet(const std::vector<std::string>& args) {
  std::vector<std::string> argv = {placebench_binary(), "fleet"};
  argv.insert(argv.end(), args.begin(), args.end());
  return run_command(argv, 60, kReproducible);
}

// Five nodes, node-<slowed + 1> 30% slower; runs `fleet DIR OPTION DIR/fleet.EXT` (exit 1) and returns the file.
std::string slowed_fleet_output(const std::string& name, int slowed, const std::string& option, const std::string& ext) {
  auto nodes = five_nodes();
  nodes[static_cast<std::size_t>(slowed)].slowdown = 1.3;
  std::string dir = fleet_dir(name, nodes), out = dir + "/fleet." + ext;
  auto r = fleet({dir, option, out});
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_FALSE(fs::exists(out + ".tmp"));
  return read_text_file(out);
}

std::vector<std::string> suspect_hosts(const json& j) {
  std::vector<std::string> out;
  for (const auto& s : j.at("suspects")) out.push_back(s.at("host"));
  return out;
}

}  // namespace

TEST(FleetCli, FlagsExactlyTheNodeSlowedByThirtyPercent) {
  auto nodes = five_nodes();
  nodes[2].slowdown = 1.3;
  std::string dir = fleet_dir("slow", nodes), out = dir + "/fleet.json";
  auto r = fleet({dir, "--json", out});
  ASSERT_EQ(r.exit_code, 1) << r.out << r.err;
  json j = json::parse(read_text_file(out));
  EXPECT_EQ(suspect_hosts(j), std::vector<std::string>{"node-3"}) << j.dump(2);
  EXPECT_NEAR(j["suspects"][0]["severity_pct"].get<double>(), 30, 2);
  EXPECT_NE(j["suspects"][0]["reasons"][0].get<std::string>().find("slower than the fleet median"), std::string::npos);
  EXPECT_EQ(j["schema_version"], 1);
  for (const char* key : {"host", "generated_at", "placebench_version"}) EXPECT_TRUE(j.contains(key)) << key;
  // Per class, arm and GPU: 2 classes (one per GPU) x 2 arms, every node with its ratio and CI.
  ASSERT_EQ(j["metrics"].size(), 4u);
  for (const auto& row : j["metrics"]) {
    ASSERT_EQ(row["nodes"].size(), 5u);
    for (const auto& m : row["nodes"]) {
      EXPECT_EQ(m["status"], m["host"] == "node-3" ? "slower" : "ok") << row.dump();
      EXPECT_TRUE(m["ratio_ci"].is_array());
    }
  }
  EXPECT_NE(r.out.find("node-3  SUSPECT"), std::string::npos) << r.out;
  // The tolerance is the operator's: at 35% the same node passes.
  EXPECT_EQ(fleet({dir, "--tolerance", "35"}).exit_code, 0);
}

TEST(FleetCli, OnlyTheSlowedGpuIsNamed) {
  auto nodes = five_nodes();
  nodes[4].slowdown = 1.3;
  nodes[4].slow_gpu = 1;
  std::string dir = fleet_dir("slowgpu", nodes), out = dir + "/fleet.json";
  ASSERT_EQ(fleet({dir, "--json", out}).exit_code, 1);
  json j = json::parse(read_text_file(out));
  ASSERT_EQ(suspect_hosts(j), std::vector<std::string>{"node-5"});
  for (const auto& reason : j["suspects"][0]["reasons"]) EXPECT_NE(reason.get<std::string>().find("gpu 1"), std::string::npos);
}

TEST(FleetCli, IdenticalNodesPass) {
  std::string dir = fleet_dir("same", five_nodes()), out = dir + "/fleet.json";
  auto r = fleet({dir, "--json", out});
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  json j = json::parse(read_text_file(out));
  EXPECT_TRUE(j["suspects"].empty()) << j["suspects"].dump();
  for (const auto& t : j["topology"]) EXPECT_TRUE(t["mismatches"].empty()) << t.dump();
}

TEST(FleetCli, ATopologyMismatchIsNamed) {
  auto nodes = five_nodes();
  nodes[1].swap_gpu1_numa = true;
  std::string dir = fleet_dir("topo", nodes), out = dir + "/fleet.json";
  auto r = fleet({dir, "--json", out});
  ASSERT_EQ(r.exit_code, 1) << r.out << r.err;
  json j = json::parse(read_text_file(out));
  ASSERT_EQ(suspect_hosts(j), std::vector<std::string>{"node-2"});
  EXPECT_EQ(j["suspects"][0]["reasons"][0], "topology: gpu_numa is '0:0,1:0', the fleet's is '0:0,1:1' (4 of 5 nodes)");
}

TEST(FleetCli, SameInputsGiveTheSameBytes) {
  auto nodes = five_nodes();
  nodes[0].slowdown = 1.2;
  std::string dir = fleet_dir("determinism", nodes);
  std::map<std::string, std::string> first;
  for (int run = 0; run < 2; ++run) {
    std::string o = dir + "/out" + std::to_string(run);
    auto r = fleet({dir, "--json", o + ".json", "--junit", o + ".xml", "--html", o + ".html", "--prometheus", o + ".prom"});
    ASSERT_EQ(r.exit_code, 1) << r.err;
    for (const char* ext : {".json", ".xml", ".html", ".prom"}) {
      std::string text = read_text_file(o + ext);
      if (run == 0) first[ext] = text;
      else EXPECT_EQ(text, first[ext]) << ext;
    }
    if (run == 0) first["stdout"] = r.out;
    else EXPECT_EQ(r.out, first["stdout"]);
  }
}

TEST(FleetCli, NewestCompleteRunOfAHostIsTakenAndSaid) {
  std::string dir = fleet_dir("newest", five_nodes());
  SyntheticNode old{"node-1"};
  old.slowdown = 2;  // would be a suspect if it were taken
  old.start_time = "2026-11-30T09:00:00Z";
  write_synthetic_node(dir + "/node-1/run-09", old);
  std::string out = dir + "/fleet.json";
  ASSERT_EQ(fleet({dir, "--json", out}).exit_code, 0);
  json j = json::parse(read_text_file(out));
  EXPECT_EQ(j["nodes"][0]["dir"], dir + "/node-1/run-10");
  EXPECT_NE(j["nodes"][0]["notes"][0].get<std::string>().find("2 runs of this host: took the newest complete one"),
            std::string::npos) << j["nodes"][0].dump();
}

TEST(FleetCli, JUnitHasOneTestCasePerNodeWithHostTimeAndDuration) {
  std::string xml = slowed_fleet_output("junit", 3, "--junit", "xml");
  std::regex testcase(R"re(<testcase classname="placebench.fleet" name="(node-\d)" hostname="\1" timestamp="2026-12-01T10:00:00Z" time="\d+\.\d{3}">)re");
  EXPECT_EQ(std::distance(std::sregex_iterator(xml.begin(), xml.end(), testcase), std::sregex_iterator()), 5) << xml;
  EXPECT_NE(xml.find("tests=\"5\" failures=\"1\""), std::string::npos) << xml;
  EXPECT_NE(xml.find("<failure message=\"node-4: "), std::string::npos) << xml;
}

TEST(FleetCli, HtmlIsASelfContainedHeatMap) {
  std::string html = slowed_fleet_output("html", 0, "--html", "html");
  EXPECT_EQ(html.find("<script"), std::string::npos);
  EXPECT_EQ(html.find("http"), std::string::npos) << "no external resources";
  EXPECT_NE(html.find("<th class=\"suspect\">node-1</th>"), std::string::npos);
  EXPECT_EQ(std::count(html.begin(), html.end(), '\n') > 5, true);
  EXPECT_NE(html.find("class=\"slower\""), std::string::npos);
}

// WCAG AA: the heat map's black text stays readable on every cell, however far a node is from its peers
// (a saturated blue "faster" cell was 2.4:1).
TEST(FleetCli, HeatMapCellsKeepTheirTextReadable) {
  auto nodes = five_nodes();
  nodes[0].slowdown = 0.4;  // far faster: the deepest blue
  nodes[1].slowdown = 3.0;  // far slower: the deepest red
  std::string dir = fleet_dir("contrast", nodes), out = dir + "/fleet.html";
  ASSERT_EQ(fleet({dir, "--html", out}).exit_code, 1);
  const std::string html = read_text_file(out);
  auto lin = [](int c) { double v = c / 255.0; return v <= 0.04045 ? v / 12.92 : std::pow((v + 0.055) / 1.055, 2.4); };
  std::regex cell(R"(background:#([0-9a-f]{2})([0-9a-f]{2})([0-9a-f]{2}))");
  int cells = 0;
  bool blue = false;
  for (auto it = std::sregex_iterator(html.begin(), html.end(), cell); it != std::sregex_iterator(); ++it, ++cells) {
    int r = std::stoi((*it)[1], nullptr, 16), g = std::stoi((*it)[2], nullptr, 16), b = std::stoi((*it)[3], nullptr, 16);
    double l = 0.2126 * lin(r) + 0.7152 * lin(g) + 0.0722 * lin(b);
    EXPECT_GE((l + 0.05) / 0.05, 4.5) << it->str();
    blue = blue || (b == 255 && r < 255);
  }
  EXPECT_GE(cells, 5);
  EXPECT_TRUE(blue) << "a faster node's cell is blue";
}

// The text exposition format as Prometheus reads it: HELP and TYPE before a family's samples, every
// family's samples together, names placebench_*, label values quoted, a number at the end.
TEST(FleetCli, PrometheusOutputParses) {
  std::string text = slowed_fleet_output("prom", 2, "--prometheus", "prom");
  // Where Debian's prometheus package is installed, its own linter reads the file too.
  if (fs::exists("/usr/bin/promtool")) {
    std::string path = ::testing::TempDir() + "/pb-fleet-promtool-" + std::to_string(::getpid()) + ".prom";
    write_text_file(path, text);
    auto lint = run_command({"/bin/sh", "-c", "/usr/bin/promtool check metrics < '" + path + "'"}, 60);
    EXPECT_EQ(lint.exit_code, 0) << lint.out << lint.err;
    EXPECT_EQ(lint.out + lint.err, "");
  }
  std::regex help(R"(# HELP (placebench_[a-z_]+) .+)"), type(R"(# TYPE (placebench_[a-z_]+) gauge)");
  std::regex sample_re(R"re((placebench_[a-z_]+)(\{([a-z_]+="([^"\\]|\\.)*")(,[a-z_]+="([^"\\]|\\.)*")*\})? (-?[0-9.e+-]+|NaN|[+-]Inf))re");
  std::set<std::string> done;
  std::string family, typed;
  std::map<std::string, std::string> suspect;
  std::istringstream in(text);
  int samples = 0;
  for (std::string line; std::getline(in, line);) {
    std::smatch m;
    if (std::regex_match(line, m, help)) {
      ASSERT_FALSE(done.count(m[1])) << "family split: " << line;
      if (!family.empty()) done.insert(family);
      family = m[1];
    } else if (std::regex_match(line, m, type)) {
      ASSERT_EQ(m[1], family) << line;
      typed = family;
    } else {
      ASSERT_TRUE(std::regex_match(line, m, sample_re)) << "not a sample: " << line;
      ASSERT_EQ(m[1], typed) << line;
      ++samples;
      if (m[1] == "placebench_fleet_node_suspect") suspect[m[2]] = line.substr(line.rfind(' ') + 1);
    }
  }
  EXPECT_GT(samples, 50);
  EXPECT_EQ(suspect["{host=\"node-3\"}"], "1");
  EXPECT_EQ(suspect["{host=\"node-1\"}"], "0");
  EXPECT_NE(text.find("placebench_fleet_ratio{host=\"node-3\",class=\"staging-gpu0\",arm=\"local\",gpu=\"0\",statistic=\"median\"} 1.3"),
            std::string::npos) << text;
}

TEST(FleetCli, AMissingDirectoryIsExitTwoInOneLine) {
  auto r = fleet({"/nonexistent/fleet"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err, "placebench: /nonexistent/fleet: no such directory; give a node's run directory or a folder of them "
                   "(<host>/<run>, docs/fleet.md)\n");
  r = fleet({placebench_binary()});  // a file, not a directory
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find(": not a directory; give a node's run directory"), std::string::npos) << r.err;
  r = run_command({placebench_binary(), "fleet", "/nonexistent"}, 60, {"SOURCE_DATE_EPOCH=soon"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err, "placebench: SOURCE_DATE_EPOCH=soon: not a Unix time in seconds; give one (e.g. 1764547200) or unset it\n");
  std::string empty = fleet_dir("empty", {});
  r = fleet({empty});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("holds no run directory"), std::string::npos) << r.err;
}

TEST(FleetCli, ADamagedSummaryIsSkippedWithAWarningAndTheNodeIsSuspect) {
  std::string dir = fleet_dir("damaged", five_nodes()), out = dir + "/fleet.json";
  write_text_file(dir + "/node-2/run-10/summary.json", "{\"schema_version\": 2, \"classes\": 7}");
  auto r = fleet({dir, "--json", out});
  ASSERT_EQ(r.exit_code, 1) << r.err;
  EXPECT_NE(r.err.find("placebench fleet: warning: skipped " + dir + "/node-2/run-10: "), std::string::npos) << r.err;
  json j = json::parse(read_text_file(out));
  EXPECT_EQ(j["nodes"].size(), 4u);
  ASSERT_EQ(suspect_hosts(j), std::vector<std::string>{"node-2"});
  EXPECT_NE(j["suspects"][0]["reasons"][0].get<std::string>().find("results unreadable, skipped: "), std::string::npos);
  std::string xml = dir + "/fleet.xml";
  ASSERT_EQ(fleet({dir, "--junit", xml}).exit_code, 1);
  EXPECT_NE(read_text_file(xml).find("name=\"node-2\" hostname=\"node-2\" time=\"0\">\n      <error message=\"results unreadable\""),
            std::string::npos) << read_text_file(xml);
}

TEST(FleetCli, AnotherSchemaVersionIsSkippedWithAWarning) {
  std::string dir = fleet_dir("schema", five_nodes()), out = dir + "/fleet.json";
  std::string run = dir + "/node-5/run-10/run.json";
  json old = json::parse(read_text_file(run));
  old["schema_version"] = 1;
  write_text_file(run, old.dump());
  auto r = fleet({dir, "--json", out});
  ASSERT_EQ(r.exit_code, 1) << r.err;
  EXPECT_NE(r.err.find("schema_version 1 is not the 2 this placebench reads"), std::string::npos) << r.err;
  json j = json::parse(read_text_file(out));
  EXPECT_EQ(suspect_hosts(j), std::vector<std::string>{"node-5"});
}

TEST(FleetCli, AnUnwritableOutputIsExitTwo) {
  std::string dir = fleet_dir("unwritable", five_nodes());
  auto r = fleet({dir, "--json", "/nonexistent/dir/fleet.json"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err.rfind("placebench: --json /nonexistent/dir/fleet.json", 0), 0u) << r.err;
}
