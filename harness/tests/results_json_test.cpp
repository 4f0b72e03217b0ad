// The one rule for results JSON and JSON Lines (results_json.h), and gang JSON's writer and reader
// (gang_report.h) agreeing field by field.
#include <gtest/gtest.h>

#include <vector>

#include "placebench/harness/collectives_driver/gang_report.h"
#include "placebench/harness/errors.h"
#include "placebench/harness/results_json.h"

namespace placebench::harness {
namespace {

using nlohmann::json;

std::vector<std::size_t> numbers_of(const std::string& text, JsonLines* meta = nullptr) {
  std::vector<std::size_t> seen;
  JsonLines m = parse_json_lines(text, "f.jsonl", "valid JSON", [&](std::size_t n, json) { seen.push_back(n); });
  if (meta) *meta = m;
  return seen;
}

TEST(JsonLines, ACutShortLastLineIsLeftOutAndNamed) {
  JsonLines m;
  EXPECT_EQ(numbers_of("{\"a\":1}\n{\"a\":2}\n{\"a\"", &m), (std::vector<std::size_t>{1, 2}));
  ASSERT_TRUE(m.cut_line.has_value());
  EXPECT_EQ(*m.cut_line, 3u);
  EXPECT_EQ(m.good_end, 16u);
  EXPECT_FALSE(m.unterminated);
}

TEST(JsonLines, AWholeLastLineWithoutItsNewlineIsKept) {
  JsonLines m;
  EXPECT_EQ(numbers_of("{\"a\":1}\n{\"a\":2}", &m), (std::vector<std::size_t>{1, 2}));
  EXPECT_FALSE(m.cut_line.has_value());
  EXPECT_TRUE(m.unterminated);
}

TEST(JsonLines, ADamagedLineBeforeTheLastIsRefusedAfterTheLinesBeforeIt) {
  std::vector<std::size_t> seen;
  try {
    parse_json_lines("{}\n{\n{}\n", "f.jsonl", "valid JSON", [&](std::size_t n, json) { seen.push_back(n); });
    FAIL() << "a damaged second line was accepted";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("f.jsonl:2: not valid JSON (only the last line may be cut short)"), std::string::npos)
        << e.what();
  }
  EXPECT_EQ(seen, (std::vector<std::size_t>{1}));
}

TEST(ResultsJson, DamageNamesTheLineAndWhy) {
  try {
    parse_results_json("{\n\"a\": 1e400}\n", "x.json", "restore it");
    FAIL();
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("x.json:2: not valid JSON (number 1e400 is out of range"), std::string::npos) << e.what();
  }
}

GangReport sample_gang() {
  GangReport rep;
  rep.result.outcome = "complete";
  rep.result.completed_attempt = 1;
  rep.result.stranded_gpu_s = 12.5;
  rep.result.group_ready_s = 3.0;
  rep.result.cleanup_s = 0.25;
  rep.result.retries = 1;
  collectives::GangRank r;
  r.rank = 1;
  r.host = "node-b";
  r.late = true;
  r.process_start_s = 0.5;
  r.attempts.push_back({0, 1.0, std::nullopt, std::nullopt, 2.0});
  r.attempts.push_back({1, 2.5, 3.0, 3.5, std::nullopt});
  rep.result.ranks.push_back(r);
  return rep;
}

TEST(GangJson, WhatTheWriterWritesTheReaderReadsBack) {
  const GangReport rep = sample_gang();
  const json j = gang_to_json(rep);
  ASSERT_TRUE(looks_like_gang_json(j));
  const collectives::GangResult back = gang_result_from_json(j, "gang.json");
  EXPECT_EQ(back.outcome, "complete");
  EXPECT_EQ(back.completed_attempt, 1);
  EXPECT_DOUBLE_EQ(back.stranded_gpu_s, 12.5);
  EXPECT_EQ(back.group_ready_s, 3.0);
  EXPECT_FALSE(back.time_to_first_step_s.has_value());
  EXPECT_DOUBLE_EQ(back.cleanup_s, 0.25);
  EXPECT_EQ(back.retries, 1);
  ASSERT_EQ(back.ranks.size(), 1u);
  EXPECT_EQ(back.ranks[0].host, "node-b");
  EXPECT_TRUE(back.ranks[0].late);
  EXPECT_FALSE(back.ranks[0].missing);
  EXPECT_DOUBLE_EQ(back.ranks[0].process_start_s, 0.5);
  ASSERT_EQ(back.ranks[0].attempts.size(), 2u);
  EXPECT_EQ(back.ranks[0].attempts[0].released_s, 2.0);
  EXPECT_FALSE(back.ranks[0].attempts[0].joined_s.has_value());
  EXPECT_EQ(back.ranks[0].attempts[1].first_step_s, 3.5);
  // ... and writes the same JSON again.
  GangReport again;
  again.result = back;
  EXPECT_EQ(gang_to_json(again)["ranks"], j["ranks"]);
}

std::string reader_error(const json& j) {
  try {
    gang_result_from_json(j, "gang.json");
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

TEST(GangJson, DamageIsRefusedWithTheKey) {
  json j = gang_to_json(sample_gang());
  json bad = j;
  bad["stranded_gpu_s"] = -1;
  EXPECT_NE(reader_error(bad).find("gang.json: stranded_gpu_s: expected a number from 0"), std::string::npos);
  bad = j;
  bad.erase("stranded_gpu_s");
  EXPECT_NE(reader_error(bad).find("gang.json: stranded_gpu_s: missing"), std::string::npos);
  bad = j;
  bad["schema_version"] = 2;
  EXPECT_NE(reader_error(bad).find("gang.json: schema_version: 2 is not 1"), std::string::npos);
  bad = j;
  bad["ranks"][0].erase("host");
  EXPECT_NE(reader_error(bad).find("gang.json: ranks[0]: needs rank, host and attempts[]"), std::string::npos);
  EXPECT_EQ(reader_error(j), "");
}

}  // namespace
}  // namespace placebench::harness
