// Damaged run directories end to end (compare, check, decide, cost --from on copies of
// tests/fixtures/results/tiny-run): every damage is one line on stderr naming the file and the line or
// key, exit status 2, never a JSON library message; and nothing recorded is lost: summary.json is never
// replaced from zero trials, nor by a summary of fewer trials than it records.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <functional>
#include <nlohmann/json.hpp>
#include <sstream>

#include "run_command.h"
#include "text_file.h"

using namespace placebench::testing;
using nlohmann::json;
namespace fs = std::filesystem;

namespace {

std::string src(const std::string& rel) { return std::string(PLACEBENCH_SOURCE_DIR) + "/" + rel; }
std::string reference() { return src("tests/fixtures/references/tiny-pass.yaml"); }

// A fresh copy of the committed tiny run (8 trials, complete summary).
std::string copy_run(const std::string& name) {
  std::string dir = ::testing::TempDir() + "/pb-damage-" + name;
  fs::remove_all(dir);
  fs::copy(src("tests/fixtures/results/tiny-run"), dir, fs::copy_options::recursive);
  return dir;
}

std::vector<std::string> lines_of(const std::string& path) {
  std::vector<std::string> v;
  std::ifstream in(path);
  for (std::string line; std::getline(in, line);) v.push_back(line);
  return v;
}

void write_lines(const std::string& path, const std::vector<std::string>& lines) {
  std::string text;
  for (const auto& l : lines) text += l + "\n";
  write_text_file(path, text);
}

// Replaces trial line `index` (0-based) with what `edit` makes of it.
void edit_trial(const std::string& dir, std::size_t index, const std::function<void(json&)>& edit) {
  auto lines = lines_of(dir + "/trials.jsonl");
  json t = json::parse(lines.at(index));
  edit(t);
  lines[index] = t.dump();
  write_lines(dir + "/trials.jsonl", lines);
}

void edit_run(const std::string& dir, const std::function<void(json&)>& edit) {
  json run = json::parse(read_text_file(dir + "/run.json"));
  edit(run);
  write_text_file(dir + "/run.json", run.dump(2));
}

CommandResult pb(std::vector<std::string> args) {
  args.insert(args.begin(), placebench_binary());
  return run_command(args);
}

// Exit 2 and exactly one line on stderr holding `needle`, without a JSON library message.
void expect_one_line_error(const CommandResult& r, const std::string& needle, const std::string& what) {
  EXPECT_EQ(r.exit_code, 2) << what << ": " << r.out << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << what << ": " << r.err;
  EXPECT_NE(r.err.find(needle), std::string::npos) << what << ": " << r.err;
  for (const char* internal : {"json.exception", "cannot use", "bonferroni", "sequential plan", "what()"})
    EXPECT_EQ(r.err.find(internal), std::string::npos) << what << ": " << r.err;
}

}  // namespace

TEST(ResultsDamageCli, NoTrialsNeverReplaceARecordedSummary) {
  struct Case {
    const char* name;
    std::function<void(const std::string&)> damage;
    const char* message;
  };
  std::vector<Case> cases = {
      {"missing", [](const std::string& d) { fs::remove(d + "/trials.jsonl"); }, "trials.jsonl: missing"},
      {"directory",
       [](const std::string& d) {
         fs::remove(d + "/trials.jsonl");
         fs::create_directory(d + "/trials.jsonl");
       },
       "trials.jsonl: a directory, not a file"},
      {"empty", [](const std::string& d) { write_text_file(d + "/trials.jsonl", ""); }, "trials.jsonl: no trials yet"},
  };
  for (const auto& c : cases) {
    std::string dir = copy_run(std::string("notrials-") + c.name);
    c.damage(dir);
    std::string before = read_text_file(dir + "/summary.json");
    for (auto args : std::vector<std::vector<std::string>>{{"compare", dir, "--write-summary"}, {"compare", dir},
                                                           {"compare", dir, "--json"}}) {
      auto r = pb(args);
      expect_one_line_error(r, c.message, std::string(c.name) + " " + args.back());
      EXPECT_EQ(r.out.find("0.0 us"), std::string::npos) << r.out;
      EXPECT_EQ(read_text_file(dir + "/summary.json"), before) << c.name << ": summary.json was replaced";
    }
    expect_one_line_error(pb({"check", dir, "--reference", reference()}), "trials.jsonl", c.name);
  }
}

TEST(ResultsDamageCli, WriteSummaryRefusesASummaryOfFewerTrials) {
  std::string dir = copy_run("fewer");
  auto lines = lines_of(dir + "/trials.jsonl");
  ASSERT_EQ(lines.size(), 8u);
  lines.resize(3);
  write_lines(dir + "/trials.jsonl", lines);
  std::string before = read_text_file(dir + "/summary.json");
  expect_one_line_error(pb({"compare", dir, "--write-summary"}),
                        "summary.json records 8 trials and trials.jsonl holds 3; not replacing it", "--write-summary");
  EXPECT_EQ(read_text_file(dir + "/summary.json"), before);
  auto r = pb({"compare", dir});  // still readable, with a warning
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("warning"), std::string::npos) << r.err;
  EXPECT_EQ(read_text_file(dir + "/summary.json"), before);
}

TEST(ResultsDamageCli, DamagedSummaryIsAnErrorThatWriteSummaryRepairs) {
  for (const char* text : {"", "{\"schema_version\": 1, \"classes\": [", "{\"classes\": 5}"}) {
    std::string dir = copy_run("summary");
    write_text_file(dir + "/summary.json", text);
    for (auto args : std::vector<std::vector<std::string>>{{"compare", dir}, {"check", dir, "--reference", reference()},
                                                           {"decide", dir}})
      expect_one_line_error(pb(args), "summary.json", args[0] + " on summary '" + text + "'");
    auto r = pb({"compare", dir, "--write-summary"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    json summary = json::parse(read_text_file(dir + "/summary.json"));
    EXPECT_EQ(summary["trials"], 8);
    EXPECT_EQ(summary["complete"], true);  // the 8 trials finish the plan (rounds 3:4, each class stopped or at max)
    EXPECT_EQ(pb({"check", dir, "--reference", reference()}).exit_code, 0);
  }
}

TEST(ResultsDamageCli, DamagedTrialLinesAreOneLineErrors) {
  struct Case {
    const char* name;
    std::function<void(const std::string&)> damage;
    const char* message;
  };
  auto line2 = [](std::function<void(json&)> edit) {
    return [edit](const std::string& d) { edit_trial(d, 1, edit); };
  };
  std::vector<Case> cases = {
      {"step_ns string", line2([](json& t) { t["step_ns"] = "abc"; }), "trials.jsonl:2: step_ns: expected a list"},
      {"step_ns null", line2([](json& t) { t["step_ns"] = {nullptr, 1}; }), "trials.jsonl:2: step_ns[0]: expected a number"},
      {"round missing", line2([](json& t) { t.erase("round"); }), "trials.jsonl:2: round: missing"},
      {"round string", line2([](json& t) { t["round"] = "x"; }), "trials.jsonl:2: round: expected a whole number"},
      {"arm number", line2([](json& t) { t["arm"] = 5; }), "trials.jsonl:2: arm: expected a string, got 5"},
      {"summary null", line2([](json& t) { t["summary"] = nullptr; }), "trials.jsonl:2: summary: expected a map, got null"},
      {"array", [](const std::string& d) { write_text_file(d + "/trials.jsonl", "[1, 2]\n"); },
       "trials.jsonl:1: expected a trial record"},
  };
  for (const auto& c : cases) {
    std::string dir = copy_run("trial");
    c.damage(dir);
    std::string before = read_text_file(dir + "/summary.json");
    for (auto args : std::vector<std::vector<std::string>>{{"compare", dir},
                                                           {"compare", dir, "--write-summary"},
                                                           {"check", dir, "--reference", reference()}}) {
      auto r = pb(args);
      expect_one_line_error(r, c.message, std::string(c.name) + ": " + args[0]);
      EXPECT_NE(r.err.find("the line is damaged: restore trials.jsonl, or delete that line"), std::string::npos) << r.err;
    }
    EXPECT_EQ(read_text_file(dir + "/summary.json"), before);
  }
}

TEST(ResultsDamageCli, DamagedConfigCopyIsAOneLineError) {
  struct Case {
    const char* name;
    std::function<void(json&)> edit;
    const char* message;
  };
  std::vector<Case> cases = {
      {"confidence 5", [](json& r) { r["config"]["confidence"] = 5; }, "run.json: config.confidence: expected a number in"},
      {"rounds 9:2", [](json& r) { r["config"]["rounds"] = {{"min", 9}, {"max", 2}}; }, "run.json: config.rounds.max"},
      {"margin string", [](json& r) { r["config"]["classes"][0]["margin_pct"] = "x"; },
       "run.json: config.classes[0].margin_pct: expected a number"},
      {"baseline bogus", [](json& r) { r["config"]["classes"][0]["arms"]["baseline"] = "bogus"; },
       "run.json: config.classes[0].arms.baseline: expected one of"},
      {"no config", [](json& r) { r.erase("config"); }, "run.json: config: missing"},
  };
  for (const auto& c : cases) {
    std::string dir = copy_run("config");
    edit_run(dir, c.edit);
    for (auto args : std::vector<std::vector<std::string>>{{"compare", dir}, {"check", dir, "--reference", reference()},
                                                           {"run", "--resume", dir}}) {
      auto r = pb(args);
      expect_one_line_error(r, c.message, std::string(c.name) + ": " + args[0]);
      EXPECT_NE(r.err.find("restore run.json, or start a new run"), std::string::npos) << r.err;
    }
  }
}

TEST(ResultsDamageCli, AnArmWithoutTrialsHasNoMedianRatherThanZero) {
  std::string dir = copy_run("one-arm");
  std::vector<std::string> kept;
  for (const auto& line : lines_of(dir + "/trials.jsonl"))
    if (json::parse(line)["arm"] == "local") kept.push_back(line);
  write_lines(dir + "/trials.jsonl", kept);
  fs::remove(dir + "/summary.json");
  auto r = pb({"compare", dir});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out.find("0.0 us"), std::string::npos) << r.out;
  r = pb({"compare", dir, "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  json out = json::parse(r.out);
  const json& arms = out["classes"][0]["arms"];
  EXPECT_EQ(arms[1]["arm"], "unpinned");
  EXPECT_TRUE(arms[1]["median"].is_null()) << arms.dump();
  EXPECT_TRUE(arms[1]["within_run_median_ci"].is_null()) << arms.dump();
  EXPECT_TRUE(arms[1]["statistic_value"].is_null()) << arms.dump();
  EXPECT_TRUE(arms[0]["median"].is_number()) << arms.dump();
  EXPECT_EQ(json::parse(read_text_file(dir + "/summary.json"))["complete"], false);
}

TEST(ResultsDamageCli, DecideAndCostNameTheDamagedFile) {
  std::string dir = copy_run("decide");
  write_text_file(dir + "/run.json", read_text_file(dir + "/run.json").substr(0, 300));
  expect_one_line_error(pb({"decide", dir}), "run.json:", "decide on a truncated run.json");
  std::string gang = ::testing::TempDir() + "/pb-damage-gang.json";
  write_text_file(gang, "{\"ranks\": [], \"stranded_gpu_s\": 12.5, \"outc");
  expect_one_line_error(pb({"cost", "--from", gang}), "pb-damage-gang.json:1: not valid JSON (cut short",
                        "cost --from a truncated file");
  write_text_file(gang, R"({"ranks": [], "stranded_gpu_s": 12.5, "outcome": 7})");
  EXPECT_EQ(pb({"cost", "--from", gang}).exit_code, 0);  // outcome is informative only
  write_text_file(gang, R"({"ranks": [], "stranded_gpu_s": "x"})");
  expect_one_line_error(pb({"cost", "--from", gang}), "stranded_gpu_s: expected a number from 0 to 3.2e13", "cost");
  write_text_file(gang, R"({"ranks": [], "stranded_gpu_s": 1e308})");  // two of them would sum to inf
  expect_one_line_error(pb({"cost", "--from", gang}), "stranded_gpu_s: expected a number from 0 to 3.2e13", "cost 1e308");
  write_text_file(gang, R"({"ranks": [], "stranded_gpu_s": 1e400})");  // no double: nlohmann's out_of_range, not exit 1
  expect_one_line_error(pb({"cost", "--from", gang}), "pb-damage-gang.json:1: not valid JSON (number 1e400 is out of range",
                        "cost 1e400");
}

TEST(ResultsDamageCli, OutOfRangeNumbersAreOneLineErrorsNamingFileAndLine) {
  // 1e400 is valid JSON syntax but no double: a number out of range, not a library message (exit 1).
  std::string dir = copy_run("1e400-summary");
  std::string text = read_text_file(dir + "/summary.json");
  auto at = text.find("\"margin_pct\": ");
  ASSERT_NE(at, std::string::npos);
  std::size_t line = 1 + static_cast<std::size_t>(std::count(text.begin(), text.begin() + static_cast<long>(at), '\n'));
  text.replace(at, text.find_first_of(",\n", at) - at, "\"margin_pct\": 1e400");
  write_text_file(dir + "/summary.json", text);
  for (auto args : std::vector<std::vector<std::string>>{{"compare", dir}, {"check", dir, "--reference", reference()}})
    expect_one_line_error(pb(args), "summary.json:" + std::to_string(line) + ": not valid JSON (number 1e400 is out of range",
                          "1e400 in summary.json: " + args[0]);
  dir = copy_run("1e400-run");
  write_text_file(dir + "/run.json", "{\n  \"schema_version\": 2,\n  \"seed\": 1e400\n}\n");
  auto r = pb({"compare", dir});
  expect_one_line_error(r, "run.json:3: not valid JSON (number 1e400 is out of range", "1e400 in run.json");
  EXPECT_NE(r.err.find("restore run.json"), std::string::npos) << r.err;
}

TEST(ResultsDamageCli, ImpossibleValuesInSummaryAndTrialsAreRefused) {
  auto arm1 = [](std::function<void(json&)> edit) {
    return [edit](const std::string& d) {
      json s = json::parse(read_text_file(d + "/summary.json"));
      edit(s["classes"][0]["arms"][1]);
      write_text_file(d + "/summary.json", s.dump(2));
    };
  };
  struct Case {
    const char* name;
    std::function<void(const std::string&)> damage;
    const char* message;
  };
  std::vector<Case> cases = {
      {"reversed CI", arm1([](json& a) { a["within_run_median_ci"] = {9000.0, 1000.0}; }),
       "summary.json: classes[0].arms[1].within_run_median_ci: expected [low, high] with 0 <= low <= high"},
      {"negative CI", arm1([](json& a) { a["statistic_ci"] = {-5.0, 1000.0}; }),
       "summary.json: classes[0].arms[1].statistic_ci: expected [low, high] with 0 <= low <= high"},
      {"negative median", arm1([](json& a) { a["median"] = -3.5; }),
       "summary.json: classes[0].arms[1].median: expected a number >= 0, got -3.5"},
      {"step 0", [](const std::string& d) { edit_trial(d, 2, [](json& t) { t["step_ns"][0] = 0; }); },
       "trials.jsonl:3: step_ns[0]: expected a number of ns > 0 and <= 1e+15, got 0"},
      {"step 1.5e300", [](const std::string& d) { edit_trial(d, 2, [](json& t) { t["step_ns"][1] = 1.5e300; }); },
       "trials.jsonl:3: step_ns[1]: expected a number of ns > 0 and <= 1e+15, got 1.5e+300"},
      // A round of a two-arm class has positions 0 and 1 only.
      {"position 77", [](const std::string& d) { edit_trial(d, 2, [](json& t) { t["position"] = 77; }); },
       "trials.jsonl:3: position: expected a whole number in [0, 1], got 77"},
  };
  for (const auto& c : cases) {
    std::string dir = copy_run("impossible");
    c.damage(dir);
    for (auto args : std::vector<std::vector<std::string>>{{"compare", dir}, {"check", dir, "--reference", reference()}})
      expect_one_line_error(pb(args), c.message, std::string(c.name) + ": " + args[0]);
  }
}

TEST(ResultsDamageCli, AWholeLastTrialWithoutItsNewlineIsKept) {
  std::string dir = copy_run("no-newline");
  std::string text = read_text_file(dir + "/trials.jsonl");
  ASSERT_EQ(text.back(), '\n');
  text.pop_back();  // a crash between the last line and its newline
  write_text_file(dir + "/trials.jsonl", text);
  auto r = pb({"compare", dir, "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.err.find("truncated"), std::string::npos) << r.err;
  EXPECT_EQ(json::parse(r.out)["trials"], 8);  // not 7: the last trial counts
  EXPECT_EQ(read_text_file(dir + "/trials.jsonl"), text);  // compare changes nothing
}

TEST(ResultsDamageCli, WriteSummaryNeverReplacesOneOfANewerSchema) {
  std::string dir = copy_run("newer");
  json s = json::parse(read_text_file(dir + "/summary.json"));
  s["schema_version"] = 3;
  write_text_file(dir + "/summary.json", s.dump(2));
  std::string before = read_text_file(dir + "/summary.json");
  expect_one_line_error(pb({"compare", dir, "--write-summary"}), "summary.json: a newer placebench wrote it",
                        "--write-summary over version 3");
  EXPECT_EQ(read_text_file(dir + "/summary.json"), before);
}
