// evidence.h: the fields every JSON output carries to identify itself.
#include "placebench/harness/evidence.h"

#include <gtest/gtest.h>

#include <regex>

namespace placebench::harness {
namespace {

TEST(Evidence, TimestampIsUtcIso8601) {
  EXPECT_TRUE(std::regex_match(utc_timestamp_now(), std::regex(R"(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ)")));
}

TEST(Evidence, StampAddsHostTimeVersionAndKeepsExistingKeys) {
  nlohmann::json j = {{"schema_version", 3}, {"host", "kept"}};
  stamp_evidence(j, Evidence{"node7", "2026-12-01T00:00:00Z", "9.9.9"});
  EXPECT_EQ(j["host"], "kept");
  EXPECT_EQ(j["generated_at"], "2026-12-01T00:00:00Z");
  EXPECT_EQ(j["placebench_version"], "9.9.9");
  EXPECT_EQ(j["schema_version"], 3);
}

TEST(Evidence, CurrentHostIsNotEmpty) {
  Evidence e = current_evidence();
  EXPECT_FALSE(e.host.empty());
  EXPECT_FALSE(e.placebench_version.empty());
}

}  // namespace
}  // namespace placebench::harness
