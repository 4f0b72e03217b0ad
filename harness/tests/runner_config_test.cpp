// Experiment configs: every shipped config parses; bad ones fail with file, line, key and accepted values.
#include <gtest/gtest.h>

#include <filesystem>

#include "placebench/harness/errors.h"
#include "placebench/harness/runner/config.h"
#include "placebench/harness/runner/default_config.h"
#include "placebench/harness/runner/schedule.h"

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
