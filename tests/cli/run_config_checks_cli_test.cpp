// `placebench run --config` refuses a pipeline class it could not run -- bad workload keys and
// experiment.contention at load time with file:line: key, what only the machine can tell (a NUMA node or
// CPU that is not there, backend cuda without a usable device) before the run directory is made -- in one
// line, exit 2, with nothing measured: a staging class ahead of it records no trial.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>

#include "placebench/hostpipe/process_limits.h"
#include "placebench/kernels/device_runtime.h"
#include "run_command.h"

using namespace placebench::testing;

namespace {

// A config whose first class (staging) would run fine and whose second is a pipeline class: the case's
// workload keys from line 12 on, then small defaults for the keys it does not give.
std::string write_config(const std::string& name, const std::string& experiment_keys, const std::string& workload_keys) {
  std::string dir = ::testing::TempDir() + "/pb-run-checks";
  std::filesystem::create_directories(dir);
  std::string path = dir + "/" + name + ".yaml";
  std::string defaults;
  for (const char* kv : {"backend: host", "batch_samples: 2", "image: 16x16", "step_compute: 100us"})
    if (workload_keys.find(std::string(kv).substr(0, std::string(kv).find(':') + 1)) == std::string::npos)
      if (std::string(kv) != "image: 16x16" || workload_keys.find("batch_bytes:") == std::string::npos)
        defaults += std::string("      ") + kv + "\n";  // a raw batch (batch_bytes) takes no image
  std::ofstream(path) << "experiment:\n  rounds: {min: 2, max: 2}\n  warmup_steps: 1\n  steps: 4\n" << experiment_keys
                      << "classes:\n  - name: first\n    workload: {type: staging, backend: host, bytes: 4K, copies: 1}\n"
                      << "    arms: {baseline: local, compare: [unpinned]}\n  - name: pipe\n    workload:\n"
                      << "      type: pipeline\n" << workload_keys << defaults
                      << "    arms: {baseline: local, compare: [unpinned]}\n";
  return path;
}

// A config given whole, for keys outside a pipeline workload.
std::string write_whole_config(const std::string& name, const std::string& text) {
  std::string dir = ::testing::TempDir() + "/pb-run-checks";
  std::filesystem::create_directories(dir);
  std::string path = dir + "/" + name + ".yaml";
  std::ofstream(path) << text;
  return path;
}

struct Refusal {
  std::string name, experiment_keys, workload_keys, expect;
};

void expect_refused_before_measuring(const Refusal& c) {
  std::string config = write_config(c.name, c.experiment_keys, c.workload_keys);
  std::string out = ::testing::TempDir() + "/pb-run-checks-out-" + c.name;
  std::filesystem::remove_all(out);
  auto r = run_command({placebench_binary(), "run", "--config", config, "--out", out}, 60);
  EXPECT_EQ(r.exit_code, 2) << c.name << ": " << r.err;
  EXPECT_NE(r.err.find(c.expect), std::string::npos) << c.name << ": " << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << c.name << ": " << r.err;
  EXPECT_FALSE(std::filesystem::exists(out + "/trials.jsonl")) << c.name << ": a trial was measured first";
}

}  // namespace

TEST(RunConfigChecks, BadPipelineKeysAndContentionFailAtLoadWithTheirLine) {
  std::vector<Refusal> cases = {
      {"contention-foo", "  contention: foo\n", "", "contention-foo.yaml:5: experiment.contention: 'foo' is not a contention item"},
      {"contention-bad-item", "  contention: stream:5\n", "", "contention-bad-item.yaml:5: experiment.contention: 'stream:5'"},
      // A map or a number: was a raw json type_error, exit 1.
      {"contention-map", "  contention: {stream: 0}\n", "", "contention-map.yaml:5: experiment.contention: must be one string"},
      {"contention-number", "  contention: 5\n", "", "contention-number.yaml:5: experiment.contention: '5' is not a contention item"},
      {"ring", "", "      ring: 1\n", "ring.yaml:12: classes[1].workload.ring: 1 is smaller than prefetch 2 + 1"},
      {"image", "", "      decode: synthetic\n      image: 0x64\n", "image.yaml:13: classes[1].workload.image: '0x64'"},
      {"jpeg-batch-bytes", "", "      decode: jpeg\n      batch_bytes: 1M\n",
       "jpeg-batch-bytes.yaml:13: classes[1].workload.batch_bytes: the jpeg stage decodes images"},
      {"step-compute", "", "      step_compute: 100000h\n", "step-compute.yaml:12: classes[1].workload.step_compute: 100000 h"},
      {"cpu-work", "", "      cpu_work_ns_per_kb: 1e9\n      image: 64x64\n", "cpu-work.yaml:12: classes[1].workload.cpu_work_ns_per_kb: one batch's"},
  };
  for (const auto& c : cases) expect_refused_before_measuring(c);
}

// These need the runner's up-front check (check_pipeline_class in the "plan every class" loop).
TEST(RunConfigChecks, WhatOnlyTheMachineCanTellFailsBeforeAnythingIsMeasured) {
  std::vector<int> allowed = placebench::hostpipe::current_thread_affinity();
  std::vector<Refusal> cases = {
      {"node", "  contention: stream:99:1\n", "", "class pipe: experiment.contention: NUMA node 99 does not exist on this machine"},
      {"memory", "  contention: stream:0:1:100T\n", "", "class pipe: experiment.contention: the stream threads' buffers"},
  };
  if (std::string cpu = std::to_string(allowed.back() + 1); allowed.back() < 1023)
    cases.push_back({"cpu", "  contention: spin:" + cpu + "\n", "", "class pipe: experiment.contention: CPU " + cpu + " does not exist"});
  if (4 * allowed.size() < 4000)
    cases.push_back({"threads", "  contention: stream:0:4000\n", "", "class pipe: experiment.contention: 4000 background threads"});
  if (!placebench::kernels::query_device_runtime().usable())
    cases.push_back({"cuda", "", "      backend: cuda\n", "class pipe: workload.backend: cuda: no usable CUDA device"});
  for (const auto& c : cases) expect_refused_before_measuring(c);
}

// Each was accepted and then ignored or run twice: now one line naming the key, before anything runs.
TEST(RunConfigChecks, KeysThatWouldBeIgnoredOrRepeatedAreRefused) {
  const std::string staging = "    workload: {type: staging, backend: host, bytes: 4K, copies: 1}\n";
  const std::string arms = "    arms: {baseline: local, compare: [unpinned]}\n";
  struct Whole {
    std::string name, text, expect;
  };
  std::vector<Whole> cases = {
      {"hostalloc-host", "classes:\n  - name: a\n    workload: {type: staging, backend: host, memory: hostalloc}\n" + arms,
       "hostalloc-host.yaml:3: classes[0].workload.memory: hostalloc is cudaHostAlloc and needs the cuda backend"},
      {"bytes-and-image", "classes:\n  - name: a\n    workload:\n      type: pipeline\n      backend: host\n"
                          "      batch_bytes: 1M\n      image: 16x16\n" + arms,
       "bytes-and-image.yaml:6: classes[0].workload.batch_bytes: a batch is either raw bytes (batch_bytes) or images"},
      {"compare-twice", "classes:\n  - name: a\n" + staging + "    arms: {baseline: local, compare: [unpinned, unpinned]}\n",
       "compare-twice.yaml:4: classes[0].arms.compare: lists unpinned twice (two identical rows); keep one"},
      {"class-name-empty", "classes:\n  - name: \"\"\n" + staging + arms,
       "class-name-empty.yaml:2: classes[0].name: empty: every class needs a name"},
      {"experiment-name-empty", "experiment:\n  name: ''\nclasses:\n  - name: a\n" + staging + arms,
       "experiment-name-empty.yaml:2: experiment.name: empty: give the experiment a name"},
      {"contention-no-pipeline", "experiment:\n  contention: spin:0\nclasses:\n  - name: a\n" + staging + arms,
       "contention-no-pipeline.yaml:2: experiment.contention: only pipeline classes run with background contention"},
  };
  for (const auto& c : cases) {
    std::string out = ::testing::TempDir() + "/pb-run-checks-out-" + c.name;
    std::filesystem::remove_all(out);
    auto r = run_command({placebench_binary(), "run", "--config", write_whole_config(c.name, c.text), "--out", out}, 60);
    EXPECT_EQ(r.exit_code, 2) << c.name << ": " << r.err;
    EXPECT_NE(r.err.find(c.expect), std::string::npos) << c.name << ": " << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << c.name << ": " << r.err;
    EXPECT_FALSE(std::filesystem::exists(out + "/trials.jsonl")) << c.name << ": a trial was measured";
  }
}

// memory: hostalloc is cudaHostAlloc: with backend auto on a node without a usable CUDA device the class
// would silently run the host backend and measure something else (issue 15): refused before anything runs.
TEST(RunConfigChecks, HostallocWithBackendAutoNeedsAUsableCudaDevice) {
  if (placebench::kernels::query_device_runtime().usable()) GTEST_SKIP() << "this node has a usable CUDA device";
  std::string config = write_whole_config(
      "hostalloc-auto",
      "experiment:\n  rounds: {min: 2, max: 2}\nclasses:\n  - name: h2d\n"
      "    workload: {type: staging, backend: auto, memory: hostalloc, bytes: 4K, copies: 1}\n"
      "    arms: {baseline: local, compare: [unpinned]}\n");
  std::string out = ::testing::TempDir() + "/pb-run-checks-out-hostalloc-auto";
  std::filesystem::remove_all(out);
  auto r = run_command({placebench_binary(), "run", "--config", config, "--out", out}, 60);
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("class h2d: workload.memory hostalloc: backend auto finds no usable CUDA device"), std::string::npos)
      << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  EXPECT_FALSE(std::filesystem::exists(out)) << "a run directory was made";
}
