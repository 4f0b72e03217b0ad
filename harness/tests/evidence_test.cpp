// evidence.h: the fields every JSON output carries to identify itself.
#include "placebench/harness/evidence.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <regex>

#include "placebench/harness/errors.h"

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

// The node a pod runs on reaches every record: PLACEBENCH_HOST_NAME (the downward API's spec.nodeName), or,
// for ranks started over ssh that do not inherit the pod's environment, the file the entrypoint wrote.
TEST(Evidence, HostNameFromTheEnvironmentThenTheFileThenTheHost) {
  namespace fs = std::filesystem;
  char host[256] = {};
  ASSERT_EQ(gethostname(host, sizeof host - 1), 0);
  unsetenv("PLACEBENCH_HOST_NAME");
  unsetenv("PLACEBENCH_HOST_NAME_FILE");
  EXPECT_EQ(local_host_name(), host);

  fs::path file = fs::temp_directory_path() / ("pb-host-name-" + std::to_string(getpid()));
  std::ofstream(file) << "gpu-node-17\n";
  setenv("PLACEBENCH_HOST_NAME_FILE", file.c_str(), 1);
  EXPECT_EQ(local_host_name(), "gpu-node-17");
  EXPECT_EQ(current_evidence().host, "gpu-node-17");
  setenv("PLACEBENCH_HOST_NAME", "gpu-node-3", 1);  // the variable wins over the file
  EXPECT_EQ(local_host_name(), "gpu-node-3");
  unsetenv("PLACEBENCH_HOST_NAME");

  std::ofstream(file) << "a/b\n";
  EXPECT_THROW(local_host_name(), InputError);
  fs::remove(file);
  try {
    local_host_name();
    ADD_FAILURE() << "a named file that does not exist must not fall back to the host name";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("PLACEBENCH_HOST_NAME_FILE: cannot read a node name from " + file.string()),
              std::string::npos)
        << e.what();
  }
  unsetenv("PLACEBENCH_HOST_NAME_FILE");
  EXPECT_EQ(local_host_name(), host);
}

}  // namespace
}  // namespace placebench::harness
