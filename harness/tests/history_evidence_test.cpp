// The node evidence run.json's versions block gives the store (run_read.cpp): the kernel release and the
// NVIDIA driver's version read as recorded, null or absent (a run.json older than them) as unknown, never
// guessed; and a level change where they changed attributed to them by name.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <functional>

#include "placebench/harness/history/changes.h"
#include "placebench/harness/history/history.h"

using namespace placebench::harness::history;
namespace fs = std::filesystem;
using nlohmann::json;

namespace {

// A copy of the tiny fixture run whose run.json's versions block is `edit`ed.
std::string tiny_run_with(const std::string& name, const std::function<void(json&)>& edit) {
  const fs::path from = fs::path(PLACEBENCH_SOURCE_DIR) / "tests/fixtures/results/tiny-run";
  const fs::path dir = fs::path(::testing::TempDir()) / ("pb-history-evidence-" + name + "-" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  for (const char* file : {"trials.jsonl", "summary.json"}) fs::copy_file(from / file, dir / file);
  std::ifstream in(from / "run.json");
  json run = json::parse(in);
  edit(run["versions"]);
  std::ofstream(dir / "run.json") << run.dump(2) << "\n";
  return dir.string();
}

NodeEvidence evidence_with(const std::string& name, const json& kernel, const json& gpu_driver) {
  return read_stored_run(tiny_run_with(name, [&](json& v) {
           v["kernel"] = kernel;
           v["gpu_driver"] = gpu_driver;
         })).evidence;
}

}  // namespace

TEST(HistoryEvidence, KernelAndGpuDriverAreReadFromRunJson) {
  const NodeEvidence e = evidence_with("both", "6.1.0-18-amd64", "550.54.15");
  EXPECT_EQ(e.kernel, "6.1.0-18-amd64");
  EXPECT_EQ(e.gpu_driver, "550.54.15");
  EXPECT_NE(e.detail().find("kernel 6.1.0-18-amd64, GPU driver 550.54.15"), std::string::npos) << e.detail();
  EXPECT_NE(e.digest(), evidence_with("newer", "6.1.0-18-amd64", "560.28.03").digest());
}

TEST(HistoryEvidence, NoDriverOrAnOlderRunJsonIsUnknown) {
  const NodeEvidence none = evidence_with("no-driver", "6.1.0-18-amd64", nullptr);
  EXPECT_EQ(none.kernel, "6.1.0-18-amd64");
  EXPECT_FALSE(none.gpu_driver.has_value());
  EXPECT_NE(none.detail().find("GPU driver unknown"), std::string::npos) << none.detail();
  const NodeEvidence old = read_stored_run(tiny_run_with("old", [](json& v) {
                             v.erase("kernel");
                             v.erase("gpu_driver");
                           })).evidence;
  EXPECT_FALSE(old.kernel.has_value());
  EXPECT_FALSE(old.gpu_driver.has_value());
  EXPECT_EQ(old.cuda_driver, "no driver");  // the rest of the block as before
}

// 30 runs of one node, a 5% step at run 15 where the driver and the kernel changed (evidence as run.json's
// reader gives it): the change is attributed to both, by name and version.
TEST(HistoryEvidence, AChangeAtADriverAndKernelUpdateIsAttributedToThem) {
  const NodeEvidence before = evidence_with("before", "6.1.0-18-amd64", "550.54.15");
  const NodeEvidence after = evidence_with("after", "6.1.0-21-amd64", "560.28.03");
  std::vector<StoredRun> runs;
  for (int i = 0; i < 30; ++i) {
    StoredRun r;
    r.node = "n1";
    r.key = "n1-" + std::to_string(1000 + i);
    r.start_epoch_s = 1764547200.0 + i * 86400.0;
    r.evidence = i < 15 ? before : after;
    const double value = 1000.0 * (1 + 0.002 * std::sin(1.7 * i)) * (i < 15 ? 1.0 : 1.05);
    r.results.push_back({"c", "a", "median", "ns", "compared", value, value * 0.995, value * 1.005, 0.95, 10, "slower",
                         std::nullopt, std::nullopt, ""});
    runs.push_back(std::move(r));
  }
  const ChangesReport report = find_changes(runs);
  ASSERT_EQ(report.series.size(), 1u);
  ASSERT_EQ(report.series[0].changes.size(), 1u);
  const std::optional<std::string>& why = report.series[0].changes[0].attribution;
  ASSERT_TRUE(why);
  EXPECT_NE(why->find("gpu_driver 550.54.15 -> 560.28.03"), std::string::npos) << *why;
  EXPECT_NE(why->find("kernel 6.1.0-18-amd64 -> 6.1.0-21-amd64"), std::string::npos) << *why;
}
