// Experiment configs: every shipped config parses; bad ones fail with file, line, key and accepted values;
// pipeline classes are checked as the pipeline checks them (and against the machine before a run).
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "placebench/harness/errors.h"
#include "placebench/harness/runner/config.h"
#include "placebench/harness/runner/default_config.h"
#include "placebench/harness/runner/schedule.h"
#include "placebench/harness/topology/inventory.h"
#include "placebench/hostpipe/cpulist.h"
#include "placebench/kernels/device_runtime.h"
#include "yaml_fixtures.h"

using namespace placebench::harness;

namespace {
std::string error_of(const std::string& yaml) {
  try {
    parse_experiment_config(yaml, "bad.yaml");
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}
const char* kMinimal = "classes:\n  - name: a\n    workload: {type: staging}\n";
}  // namespace

TEST(RunnerConfig, ShippedConfigsParse) {
  for (const auto& e : std::filesystem::directory_iterator(std::string(PLACEBENCH_SOURCE_DIR) + "/configs")) {
    if (e.path().extension() != ".yaml") continue;
    ExperimentConfig c = load_experiment_config(e.path().string());
    EXPECT_FALSE(c.classes.empty()) << e.path();
  }
  ExperimentConfig d = parse_experiment_config(default_config_yaml(), "builtin");
  EXPECT_EQ(d.classes.at(0).name, "staging-4m");
  EXPECT_EQ(d.classes[0].arms().size(), 3u);
}

TEST(RunnerConfig, DefaultsAndRoundTripThroughJson) {
  ExperimentConfig c = parse_experiment_config(kMinimal, "min.yaml");
  EXPECT_EQ(c.classes[0].baseline, Arm::kLocal);
  EXPECT_EQ(c.classes[0].compare, std::vector<Arm>{Arm::kRemote});
  ExperimentConfig back = config_from_json(config_to_json(c));
  EXPECT_EQ(config_to_json(back), config_to_json(c));
}

TEST(RunnerConfig, ErrorsNameFileLineKeyAndAcceptedValues) {
  std::string e = error_of("experiment:\n  order: sideways\nclasses:\n  - name: a\n    workload: {type: staging}\n");
  EXPECT_EQ(e, "bad.yaml:2: experiment.order: 'sideways' is not accepted; accepted values: random, abba, fixed");
  e = error_of("experiment:\n  seeds: 3\n");
  EXPECT_NE(e.find("bad.yaml:2: experiment.seeds: unknown key; accepted keys: name, seed"), std::string::npos) << e;
  e = error_of("classes:\n  - name: a\n    workload: {type: staging, bytes: lots}\n");
  EXPECT_NE(e.find("bad.yaml:3: classes[0].workload.bytes: bad size"), std::string::npos) << e;
  e = error_of("classes:\n  - name: a\n    workload: {type: staging}\n    arms: {baseline: local, compare: [local]}\n");
  EXPECT_NE(e.find("repeats the baseline arm local"), std::string::npos) << e;
  e = error_of("classes: []\n");
  EXPECT_NE(e.find("classes: missing or empty"), std::string::npos) << e;
  e = error_of("experiment: {rounds: {min: 9, max: 3}}\nclasses:\n  - name: a\n    workload: {type: staging}\n");
  EXPECT_NE(e.find("max is below min"), std::string::npos) << e;
  e = error_of("classes:\n  - name: a\n    workload: {type: teleport}\n");
  EXPECT_NE(e.find("classes[0].workload.type: 'teleport' is not accepted"), std::string::npos) << e;
  e = error_of("classes:\n  - name: a\n    workload: {type: staging\n");
  EXPECT_NE(e.find("not valid YAML"), std::string::npos) << e;
  e = error_of(std::string(kMinimal) + "  - name: a\n    workload: {type: staging}\n");
  EXPECT_NE(e.find("duplicate class name a"), std::string::npos) << e;
  // A class's decision block: the line of the bad key itself, as for every other key.
  e = error_of("classes:\n  - name: a\n    workload: {type: staging}\n    decision:\n      job_length: 1h\n"
               "      gpus_per_job: 1\n      queue: {strict: 1m, prefer: 1m, any: 1m}\n      speed: 3\n");
  EXPECT_NE(e.find("bad.yaml:8: decision.speed: unknown key"), std::string::npos) << e;
  for (const std::string& msg : {e}) EXPECT_EQ(msg.find('\n'), std::string::npos);
}

// One description of the fields (config_fields.h) gives the keys a config accepts, in its order, and the
// checks of run.json's copy.
TEST(RunnerConfig, OneDescriptionForTheYamlAndTheJsonCopy) {
  EXPECT_EQ(error_of("experiment:\n  seeds: 3\n"),
            "bad.yaml:2: experiment.seeds: unknown key; accepted keys: name, seed, rounds, order, warmup_steps, steps, "
            "confidence, target_half_width_pct, output, contention");
  EXPECT_EQ(error_of("classes:\n  - name: a\n    workload: {type: staging}\n    speed: 3\n"),
            "bad.yaml:4: classes[0].speed: unknown key; accepted keys: name, workload, arms, gpu, device_numa, remote_node, "
            "cpus_per_worker, allow_degenerate, margin_pct, statistic, decision, interference");
  EXPECT_EQ(error_of("classes:\n  - name: a\n    workload: {type: collective, copies: 3}\n"),
            "bad.yaml:3: classes[0].workload.copies: unknown key; accepted keys: type, backend, op, dtype, redop, bytes");
  EXPECT_EQ(error_of("classes:\n  - name: a\n    workload: {type: staging}\n    gpu: 0\n    device_numa: 0\n"),
            "bad.yaml:5: classes[0].device_numa: give either gpu or device_numa, not both");
  EXPECT_EQ(error_of("experiment: {rounds: {min: 30}}\n" + std::string(kMinimal)),
            "bad.yaml:1: experiment.rounds: max is below min");
  const std::string retired = error_of("experiment: {target_half_width_pct: 2}\n" + std::string(kMinimal));
  EXPECT_EQ(retired.rfind("bad.yaml:1: experiment.target_half_width_pct: no longer used", 0), 0u) << retired;

  ExperimentConfig c = parse_experiment_config(
      "experiment: {seed: 7, rounds: {min: 3, max: 9, looks: 2}, order: abba}\n"
      "classes:\n  - name: s\n    workload: {type: staging, direction: bidir, memory: pageable, bytes: 64K, copies: 2}\n"
      "    arms: {baseline: local, compare: [remote, unpinned]}\n    gpu: 1\n    statistic: p99\n"
      "  - name: p\n    workload: {type: pipeline, workers: 2, image: 32x16, step_compute: 2ms}\n"
      "  - name: m\n    workload: {type: collective, backend: mpi, op: broadcast}\n",
      "all.yaml");
  EXPECT_TRUE(c.seed_given);
  nlohmann::json j = config_to_json(c);
  EXPECT_EQ(j["classes"][1]["workload"]["params"],
            (nlohmann::json{{"workers", 2}, {"image_width", 32}, {"image_height", 16}, {"step_compute", 0.002}}));
  EXPECT_EQ(j["classes"][2]["workload"]["params"],
            (nlohmann::json{{"op", "broadcast"}, {"dtype", "float32"}, {"redop", "sum"}, {"bytes", 1 << 20}}));
  EXPECT_EQ(config_to_json(config_from_json(j)), j);
  auto copy_error = [&](const char* pointer, nlohmann::json value) {
    nlohmann::json bad = j;
    bad[nlohmann::json::json_pointer(pointer)] = std::move(value);
    try {
      config_from_json(bad, "r/run.json");
    } catch (const InputError& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  EXPECT_EQ(copy_error("/classes/0/device_numa", 0),
            "r/run.json: config.classes[0].device_numa: give either gpu or device_numa, not both; the config copy is "
            "damaged: restore run.json, or start a new run");
  EXPECT_NE(copy_error("/classes/2/workload/backend", "cuda").find("config.classes[2].workload.backend: expected one of "
                                                                  "auto, mpi, nccl, got \"cuda\""),
            std::string::npos);
  EXPECT_NE(copy_error("/classes/2/workload/params/op", nullptr).find("config.classes[2].workload.params.op: expected one of"),
            std::string::npos);
  EXPECT_NE(copy_error("/classes/1/workload/params/image_width", 0).find("params.image_width: expected a whole number in "
                                                                        "[1, 1048576], got 0"),
            std::string::npos);
  EXPECT_EQ(copy_error("/classes/0/arms/compare/0", "local").find("config.classes[0].arms.compare[0]: expected an arm "
                                                                  "other than the baseline"),
            std::string("r/run.json: ").size());
}

// Pipeline classes and experiment.contention are checked as the pipeline will check them, at load time,
// with the line of the key at fault (not at the class's first trial, after others were recorded).
TEST(RunnerConfig, PipelineClassesAndContentionAreCheckedAtLoad) {
  auto pipeline = [](const std::string& workload_keys, const std::string& experiment = "") {
    return experiment + "classes:\n  - name: s\n    workload: {type: staging}\n  - name: p\n    workload:\n"
                        "      type: pipeline\n" + workload_keys;
  };
  struct Case {
    std::string yaml, expect;
  };
  std::vector<Case> cases = {
      {pipeline("", "experiment:\n  contention: foo\n"),
       "bad.yaml:2: experiment.contention: 'foo' is not a contention item; accepted: stream:NODE:THREADS[:SIZE][@CPUS]"},
      {pipeline("", "experiment:\n  contention: {stream: 0}\n"), "bad.yaml:2: experiment.contention: must be one string"},
      {pipeline("", "experiment:\n  contention: 5\n"), "bad.yaml:2: experiment.contention: '5' is not a contention item"},
      {pipeline("", "experiment:\n  contention: stream:5\n"), "bad.yaml:2: experiment.contention: 'stream:5' is not"},
      {pipeline("", "experiment:\n  contention: stream:0:1:lots\n"), "'lots' in 'stream:0:1:lots' is not a size"},
      {pipeline("", "experiment:\n  contention: stream:0:99999\n"), "asks for 99999 threads"},
      {pipeline("      prefetch: 2\n      ring: 1\n"),
       "bad.yaml:8: classes[1].workload.ring: 1 is smaller than prefetch 2 + 1: the queue holds 2 buffers and the training "
       "loop one more; use ring 3 or more"},
      {pipeline("      image: 0x64\n"), "bad.yaml:7: classes[1].workload.image: '0x64': width and height must be 1 to 65536"},
      {pipeline("      image: 64\n"), "bad.yaml:7: classes[1].workload.image: '64' is not WIDTHxHEIGHT"},
      {pipeline("      decode: jpeg\n      batch_bytes: 1M\n"),
       "bad.yaml:8: classes[1].workload.batch_bytes: the jpeg stage decodes images; give batch_samples N and image WxH instead"},
      {pipeline("      decode: jpeg\n      cpu_work_ns_per_kb: 5\n"), "bad.yaml:8: classes[1].workload.cpu_work_ns_per_kb: applies"},
      {pipeline("      batch_samples: 3\n      batch_bytes: 1M\n"), "bad.yaml:8: classes[1].workload.batch_bytes: 1048576 is not a multiple"},
      {pipeline("      step_compute: 100000h\n"), "bad.yaml:7: classes[1].workload.step_compute: 100000 h is more than the 60 s"},
      {pipeline("      step_compute: 1" + std::string(400, '0') + "s\n"), "classes[1].workload.step_compute: bad duration"},
      // 1e7 ns/KiB x 1536 KiB (32 64x64 samples) = 15.36 s, past the stall timeout of 10 s + 10 x 2 ms.
      {pipeline("      cpu_work_ns_per_kb: 1e7\n"),
       "bad.yaml:7: classes[1].workload.cpu_work_ns_per_kb: one batch's synthetic work is 15.36 s of CPU time (1e+07 ns/KiB x "
       "1536 KiB), more than the stall timeout 10.02 s (auto: 10 s + 10 x step_compute): a worker would still be in that batch "
       "when the stall is declared; lower cpu_work_ns_per_kb or the batch size"},
  };
  for (const auto& c : cases) {
    std::string e = error_of(c.yaml);
    EXPECT_NE(e.find(c.expect), std::string::npos) << c.yaml << "\n" << e;
    EXPECT_EQ(e.find('\n'), std::string::npos) << e;
  }
  // Within the limits: parses, and the contention spec is kept as the string it was.
  ExperimentConfig ok = parse_experiment_config(
      pipeline("      cpu_work_ns_per_kb: 1e6\n      ring: 3\n", "experiment:\n  contention: stream:0:1:4M+spin:0\n"), "ok.yaml");
  EXPECT_EQ(ok.contention, "stream:0:1:4M+spin:0");
  EXPECT_EQ(config_to_json(config_from_json(config_to_json(ok))), config_to_json(ok));
  EXPECT_EQ(parse_experiment_config(pipeline("", "experiment:\n  contention:\n"), "ok.yaml").contention, nullptr);
}

// A class kept in its own file is reported at its own file and line.
TEST(RunnerConfig, IncludedPipelineClassIsCheckedInItsFile) {
  std::string dir = ::testing::TempDir() + "/pb-config-include-" + std::to_string(::getpid());
  std::filesystem::create_directories(dir);
  std::ofstream(dir + "/p.yaml") << "name: p\nworkload:\n  type: pipeline\n  prefetch: 4\n  ring: 2\n";
  std::ofstream(dir + "/main.yaml") << "classes:\n  - include: p.yaml\n";
  try {
    load_experiment_config(dir + "/main.yaml");
    ADD_FAILURE() << "ring 2 < prefetch 4 + 1 was accepted";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find(dir + "/p.yaml:5: class.workload.ring: 2 is smaller than prefetch 4 + 1"),
              std::string::npos)
        << e.what();
  }
}

// What only the machine can tell (check_pipeline_class, run before anything is measured).
TEST(RunnerConfig, PipelineClassIsCheckedAgainstTheMachine) {
  Inventory inv = build_inventory(Topology::load_live());
  cross_check_live(inv, placebench::kernels::query_device_runtime());
  auto error = [&](const std::string& yaml) {
    ExperimentConfig c = parse_experiment_config(yaml, "m.yaml");
    try {
      for (const auto& cls : c.classes) check_pipeline_class(inv, c, cls);
    } catch (const InputError& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  const std::string cls = "classes:\n  - name: p\n    workload: {type: pipeline, backend: host}\n    arms: {baseline: local, "
                          "compare: [unpinned]}\n";
  EXPECT_EQ(error(cls), "");
  EXPECT_EQ(error("experiment: {contention: 'stream:99:1'}\n" + cls),
            "experiment.contention: NUMA node 99 does not exist on this machine; use one of its nodes (" +
                placebench::hostpipe::format_cpulist([&] {
                  std::vector<int> v;
                  for (const auto& n : inv.numa_nodes) v.push_back(static_cast<int>(n.os_index));
                  return v;
                }()) + ")");
  EXPECT_NE(error("experiment: {contention: 'spin:1023'}\n" + cls).find("experiment.contention: CPU 1023 does not exist"),
            std::string::npos);
  EXPECT_NE(error("experiment: {contention: 'stream:0:4096'}\n" + cls).find("per CPU this process may use"), std::string::npos);
  // Staging classes run without contention: a config of staging classes only refuses the key when it is read.
  EXPECT_NE(error_of("experiment: {contention: 'stream:99:1'}\n" + std::string(kMinimal)).find("only pipeline classes"),
            std::string::npos);
  if (!placebench::kernels::query_device_runtime().usable()) {
    std::string e = error("classes:\n  - name: p\n    workload: {type: pipeline, backend: cuda}\n");
    EXPECT_EQ(e.rfind("workload.backend: cuda: no usable CUDA device (", 0), 0u) << e;
    EXPECT_NE(e.find("); use backend host or auto"), std::string::npos) << e;
  }
}

TEST(Schedule, RandomOrdersAreSeededAndVary) {
  std::vector<Arm> arms = {Arm::kLocal, Arm::kRemote, Arm::kUnpinned};
  EXPECT_EQ(round_order(arms, Order::kRandom, 42, 0, 3), round_order(arms, Order::kRandom, 42, 0, 3));
  int differs = 0, local_first = 0;
  for (int r = 0; r < 60; ++r) {
    auto o = round_order(arms, Order::kRandom, 42, 0, r);
    differs += o != arms;
    local_first += o[0] == Arm::kLocal;
  }
  EXPECT_GT(differs, 30);
  EXPECT_GT(local_first, 8);   // about a third of 60
  EXPECT_LT(local_first, 35);
  EXPECT_NE(round_order(arms, Order::kRandom, 42, 0, 5), round_order(arms, Order::kRandom, 43, 0, 5));
}

TEST(Schedule, AbbaAndFixed) {
  std::vector<Arm> ab = {Arm::kLocal, Arm::kRemote}, ba = {Arm::kRemote, Arm::kLocal};
  EXPECT_EQ(round_order(ab, Order::kAbba, 1, 0, 0), ab);
  EXPECT_EQ(round_order(ab, Order::kAbba, 1, 0, 1), ba);
  EXPECT_EQ(round_order(ab, Order::kAbba, 1, 0, 2), ba);
  EXPECT_EQ(round_order(ab, Order::kAbba, 1, 0, 3), ab);
  EXPECT_EQ(round_order(ab, Order::kFixed, 1, 0, 7), ab);
}

// Keys a config would have ignored or repeated, and documents no config should be: each refused at its line.
TEST(RunnerConfig, IgnoredRepeatedOrUnboundedInputIsRefused) {
  const std::string staging = "classes:\n  - name: a\n    workload: {type: staging}\n";
  std::string e = error_of("classes:\n  - name: a\n    workload: {type: staging, backend: host, memory: hostalloc}\n");
  EXPECT_NE(e.find("bad.yaml:3: classes[0].workload.memory: hostalloc is cudaHostAlloc"), std::string::npos) << e;
  EXPECT_EQ(error_of("classes:\n  - name: a\n    workload: {type: staging, backend: cuda, memory: hostalloc}\n"), "");
  e = error_of("classes:\n  - name: a\n    workload: {type: pipeline, batch_bytes: 1M, image: 16x16}\n");
  EXPECT_NE(e.find("bad.yaml:3: classes[0].workload.batch_bytes: a batch is either raw bytes"), std::string::npos) << e;
  e = error_of(staging + "    arms: {baseline: local, compare: [remote, unpinned, remote]}\n");
  EXPECT_NE(e.find("bad.yaml:4: classes[0].arms.compare: lists remote twice"), std::string::npos) << e;
  e = error_of("classes:\n  - name: ''\n    workload: {type: staging}\n");
  EXPECT_NE(e.find("bad.yaml:2: classes[0].name: empty"), std::string::npos) << e;
  e = error_of("experiment: {name: ''}\n" + staging);
  EXPECT_NE(e.find("bad.yaml:1: experiment.name: empty"), std::string::npos) << e;
  e = error_of("experiment: {contention: 'spin:0'}\n" + staging);
  EXPECT_NE(e.find("bad.yaml:1: experiment.contention: only pipeline classes"), std::string::npos) << e;
  e = error_of(staging + "    decision:\n      ? {a: 1}\n      : 2\n");
  EXPECT_NE(e.find("bad.yaml:5: classes[0].decision: a key must be a plain name"), std::string::npos) << e;
  e = error_of(staging + "    decision:\n" + placebench::testing::alias_bomb("      ", 8));
  EXPECT_NE(e.find("expands to more than 100000 values"), std::string::npos) << e;
  e = error_of("classes:\n  - name: \xFF\n    workload: {type: staging}\n");
  EXPECT_NE(e.find("bad.yaml:2: classes[0].name: the value holds bytes that are not UTF-8"), std::string::npos) << e;
  // A map where a count is expected in a decision block: the line and key, not yaml-cpp's "bad conversion".
  e = error_of(staging + "    decision: {job_length: 1h, gpus_per_job: {a: 1}, queue: {strict: 1m, prefer: 1m, any: 1m}}\n");
  EXPECT_NE(e.find("bad.yaml:4: "), std::string::npos) << e;
}
