// The queue replay: the fragmentation measure against Weng et al.'s definition on the example worked by hand in
// docs/queue-replay.md, the job-mix reader's checks, determinism, and the locality trade-off on the article's
// cluster with fragmented free capacity.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <cmath>

#include "placebench/harness/decisions/queue_replay.h"
#include "placebench/harness/errors.h"

using namespace placebench::harness;
using namespace placebench::harness::decisions;

namespace {

const ClassOutcome& cls(const ReplayOutcome& o, const std::string& name) {
  for (const auto& c : o.classes)
    if (c.name == name) return c;
  throw std::runtime_error("no class " + name);
}

const ReplayOutcome& combo(const QueueReplay& r, Policy p, bool gang, GpuChoice choice) {
  for (const auto& o : r.outcomes)
    if (o.combination.locality == p && o.combination.gang == gang && o.combination.choice == choice) return o;
  throw std::runtime_error("no combination");
}

ClusterInventory article_cluster(bool fragmented) {
  ClusterInventory inv;
  for (int s = 1; s <= 4; ++s) {
    ClusterNode n{"server-" + std::to_string(s), {}};
    for (int k = 0; k < 2; ++k) n.numa.push_back({k, 2, fragmented && s >= 3 ? 1 : 2, 32, 32, std::nullopt, std::nullopt});
    inv.nodes.push_back(n);
  }
  inv.file = "article";
  return inv;
}

const char* kPairs = R"(seed: 7
horizon: 72h
drain: 24h
classes:
  - {name: pair-training, arrivals_per_hour: 3.5, gpus_per_worker: 2, cpus_per_worker: 16, duration: 1h, duration_remote: 72m}
)";

}  // namespace

// docs/queue-replay.md, "Fragmentation, worked by hand": tasks m1 (1 GPU, 50%), m2 (0.5 GPU, 30%), m3 (2 GPUs, 20%).
TEST(QueueFragmentation, MatchesTheWorkedExample) {
  std::vector<TaskShape> tasks{{1.0, 0.5}, {0.5, 0.3}, {2.0, 0.2}};
  // Node A: free shares [1, 1, 0.5, 0]; every task fits.
  std::vector<double> a{1, 1, 0.5, 0};
  EXPECT_DOUBLE_EQ(task_fragment(a, tasks[0], true), 0.5);  // case 2: the half-free GPU cannot take a whole-GPU task
  EXPECT_DOUBLE_EQ(task_fragment(a, tasks[1], true), 0.0);  // the 0.5 GPU can take m2
  EXPECT_DOUBLE_EQ(task_fragment(a, tasks[2], true), 0.5);
  EXPECT_DOUBLE_EQ(expected_fragment(a, tasks, {true, true, true}), 0.35);
  // Node B: free [1, 0.25], CPUs too short for m1; m3 needs two whole GPUs.
  std::vector<double> b{1, 0.25};
  EXPECT_DOUBLE_EQ(task_fragment(b, tasks[0], false), 1.25);  // case 1: all of it
  EXPECT_DOUBLE_EQ(task_fragment(b, tasks[1], true), 0.25);
  EXPECT_DOUBLE_EQ(task_fragment(b, tasks[2], true), 1.25);
  EXPECT_DOUBLE_EQ(expected_fragment(b, tasks, {false, true, true}), 0.95);
  // Popularity is normalised: the same shares given as counts give the same answer.
  std::vector<TaskShape> counts{{1.0, 5}, {0.5, 3}, {2.0, 2}};
  EXPECT_DOUBLE_EQ(expected_fragment(a, counts, {true, true, true}), 0.35);
}

TEST(QueueFragmentation, StrictLocalityMakesCrossNumaFreeGpusFragments) {
  // Whole GPUs, a 2-GPU worker: a host with one free GPU on each NUMA node fits it only across them, so under
  // strict locality both free GPUs are unusable (case 1), and usable under prefer/any.
  std::vector<double> split{1, 1};
  EXPECT_DOUBLE_EQ(task_fragment(split, {2.0, 1}, false), 2.0);
  EXPECT_DOUBLE_EQ(task_fragment(split, {2.0, 1}, true), 0.0);
  QueueReplay r = replay_queue(article_cluster(true), parse_job_mix(kPairs, "pairs.yaml"), all_combinations());
  EXPECT_GT(combo(r, Policy::kStrict, true, GpuChoice::kBinpack).fragmentation_share, 0.3);
  EXPECT_LT(combo(r, Policy::kAny, true, GpuChoice::kBinpack).fragmentation_share, 0.05);
}

TEST(QueueReplay, StrictLocalityQueuesLongerAndRunsShorter) {
  QueueReplay r = replay_queue(article_cluster(true), parse_job_mix(kPairs, "pairs.yaml"), all_combinations());
  EXPECT_EQ(r.total_gpus, 16);
  ASSERT_EQ(r.outcomes.size(), 12u);
  for (bool gang : {true, false})
    for (GpuChoice choice : {GpuChoice::kBinpack, GpuChoice::kSpread}) {
      const auto& strict = cls(combo(r, Policy::kStrict, gang, choice), "pair-training");
      for (Policy other : {Policy::kPrefer, Policy::kAny}) {
        const auto& o = cls(combo(r, other, gang, choice), "pair-training");
        EXPECT_GT(*strict.queue_mean_s, 2 * *o.queue_mean_s);
        EXPECT_GT(strict.queue_p90_s, o.queue_p90_s);
        EXPECT_LT(strict.exec_mean_s, o.exec_mean_s);
      }
      EXPECT_EQ(strict.exec_mean_s, 3600.0);
      EXPECT_EQ(strict.remote_share, 0.0);
    }
}

TEST(QueueReplay, DeterministicForItsSeed) {
  JobMix mix = parse_job_mix(kPairs, "pairs.yaml");
  auto a = queue_replay_to_json(replay_queue(article_cluster(false), mix, all_combinations()));
  auto b = queue_replay_to_json(replay_queue(article_cluster(false), mix, all_combinations()));
  EXPECT_EQ(a.dump(), b.dump());
  EXPECT_EQ(a["mix"]["seed"], 7);
  mix.seed = 8;
  auto c = queue_replay_to_json(replay_queue(article_cluster(false), mix, all_combinations()));
  EXPECT_NE(a["jobs"], c["jobs"]);
}

TEST(QueueReplay, WithoutGangAdmissionPartialGangsStrandGpus) {
  JobMix mix = parse_job_mix(R"(seed: 3
horizon: 24h
classes:
  - {name: single, arrivals_per_hour: 6, gpus_per_worker: 1, duration: 1h, duration_remote: 1h}
  - {name: gang, arrivals_per_hour: 0.5, workers: 4, gpus_per_worker: 2, duration: 2h, duration_remote: 2h}
)", "mix.yaml");
  QueueReplay r = replay_queue(article_cluster(false), mix, all_combinations());
  const auto& on = combo(r, Policy::kAny, true, GpuChoice::kBinpack);
  const auto& off = combo(r, Policy::kAny, false, GpuChoice::kBinpack);
  EXPECT_EQ(on.stranded_gpu_h, 0.0);
  EXPECT_GT(cls(off, "gang").stranded_gpu_h, 1.0);
  EXPECT_EQ(cls(off, "single").stranded_gpu_h, 0.0);  // one worker: never partial
  EXPECT_GT(on.completed_gpu_h, 0.0);
}

TEST(QueueReplay, RefusesAReplayTooLargeToFinish) {
  JobMix mix = parse_job_mix(kPairs, "pairs.yaml");
  mix.classes[0].arrivals_per_hour = 1000;
  mix.horizon_s = 100 * 3600.0;
  ClusterInventory big;
  for (int i = 0; i < 20000; ++i) big.nodes.push_back({"n" + std::to_string(i), {{0, 8, 8, 64, 64, std::nullopt, std::nullopt}}});
  EXPECT_THROW(replay_queue(big, mix, all_combinations()), InputError);
}

TEST(QueueMix, BadMixesNameTheLineAndKey) {
  struct Case {
    const char* text;
    const char* expect;
  } cases[] = {
      {"classes: []\n", "mix.yaml:1: classes: expected a non-empty list"},
      {"classes:\n  - {name: a, arrivals_per_hour: 1, gpus_per_worker: 1, duration: 1h}\n", "missing key 'duration_remote'"},
      {"classes:\n  - {name: a, arrivals_per_hour: 1, gpus_per_worker: 0, duration: 1h, duration_remote: 1h}\n", "classes[0].gpus_per_worker"},
      {"classes:\n  - {name: a, arrivals_per_hour: 1, gpus_per_worker: 1, duration: soon, duration_remote: 1h}\n", "'soon' is not a duration"},
      {"classes:\n  - {name: a, arrival: 1}\n", "mix.yaml:2: classes[0].arrival"},
      {"seeds: 1\nclasses: []\n", "seeds"},
      {"horizon: 8000h\nclasses:\n  - {name: a, arrivals_per_hour: 1000, gpus_per_worker: 1, duration: 1h, duration_remote: 1h}\n",
       "at most 1000000 are replayed"},
      {"classes:\n  - {name: a, arrivals_per_hour: 1, gpus_per_worker: 1, duration: 1h, duration_remote: 1h}\n"
       "  - {name: a, arrivals_per_hour: 1, gpus_per_worker: 1, duration: 1h, duration_remote: 1h}\n",
       "listed twice"},
  };
  for (const auto& c : cases) {
    try {
      parse_job_mix(c.text, "mix.yaml");
      ADD_FAILURE() << "accepted: " << c.text;
    } catch (const InputError& e) {
      EXPECT_NE(std::string(e.what()).find(c.expect), std::string::npos) << e.what();
    }
  }
}

TEST(QueueDecide, ReadsEachPolicysQueueTime) {
  QueueReplay r = replay_queue(article_cluster(true), parse_job_mix(kPairs, "pairs.yaml"), all_combinations());
  auto j = queue_replay_to_json(r);
  auto q = queue_times_from_replay(j, "replay.json", "", true, GpuChoice::kSpread, "p90");
  EXPECT_EQ(q[0], cls(combo(r, Policy::kStrict, true, GpuChoice::kSpread), "pair-training").queue_p90_s);
  EXPECT_EQ(q[2], cls(combo(r, Policy::kAny, true, GpuChoice::kSpread), "pair-training").queue_p90_s);
  EXPECT_THROW(queue_times_from_replay(j, "replay.json", "nope", true, GpuChoice::kSpread, "mean"), InputError);
  EXPECT_THROW(queue_times_from_replay(nlohmann::json::object(), "replay.json", "", true, GpuChoice::kSpread, "mean"), InputError);
  auto damaged = j;
  damaged["combinations"][0]["gang"] = "yes";  // a wrong type is bad input, not a crash
  EXPECT_THROW(queue_times_from_replay(damaged, "replay.json", "", true, GpuChoice::kBinpack, "mean"), InputError);
  damaged = j;
  damaged["combinations"][0]["classes"][0]["name"] = 5;
  EXPECT_THROW(queue_times_from_replay(damaged, "replay.json", "", true, GpuChoice::kBinpack, "mean"), InputError);
}

// The typed reader walks the writer's field tables: what it reads back is written again byte for byte.
TEST(QueueJson, ReadBackIsWrittenAgainUnchanged) {
  QueueReplay r = replay_queue(article_cluster(true), parse_job_mix(kPairs, "pairs.yaml"), all_combinations());
  const nlohmann::json j = queue_replay_to_json(r);
  EXPECT_EQ(queue_replay_to_json(queue_replay_from_json(j, "replay.json")).dump(), j.dump());
  nlohmann::json damaged = j;
  damaged["mix"]["seed"] = -1;
  try {
    queue_replay_from_json(damaged, "replay.json");
    ADD_FAILURE() << "accepted a negative seed";
  } catch (const InputError& e) {
    EXPECT_EQ(std::string(e.what()), "replay.json: mix.seed: expected an integer; write it again with `placebench queue --json`");
  }
}

namespace {

// Workers of 4 GPUs: no NUMA node of the article's cluster has 4, so strict never starts one; prefer and
// any place them across a host's two nodes.
const char* kWide = R"(seed: 5
horizon: 12h
classes:
  - {name: wide, arrivals_per_hour: 1, gpus_per_worker: 4, duration: 1h, duration_remote: 80m}
)";

}  // namespace

TEST(QueueReplay, AClassThatNeverStartsIsNeverStartedNotZero) {
  // Before: "0/13 started, queue p50 0.0m" and queue_mean_s 0.0, which decide read as an instant start.
  QueueReplay r = replay_queue(article_cluster(false), parse_job_mix(kWide, "wide.yaml"), all_combinations());
  const ClassOutcome& strict = cls(combo(r, Policy::kStrict, true, GpuChoice::kBinpack), "wide");
  ASSERT_GT(strict.arrived, 0);
  EXPECT_EQ(strict.started, 0);
  EXPECT_FALSE(strict.queue_mean_s.has_value());
  EXPECT_FALSE(strict.exec_mean_s.has_value());
  EXPECT_TRUE(cls(combo(r, Policy::kAny, true, GpuChoice::kBinpack), "wide").queue_mean_s.has_value());
  nlohmann::json j = queue_replay_to_json(r);
  EXPECT_TRUE(j["combinations"][0]["classes"][0]["queue_mean_s"].is_null()) << j["combinations"][0].dump();
  EXPECT_TRUE(j["combinations"][0]["classes"][0]["queue_p90_s"].is_null());
  const std::string table = render_queue_table(r);
  const std::string expected = fmt::format("never started ({} of {})", strict.arrived, strict.arrived);
  EXPECT_NE(table.find(expected), std::string::npos) << table;
  EXPECT_NE(render_queue_table(r, true).find(expected), std::string::npos);
  const std::string wide = render_queue_table(r, true);  // the cells with their unit
  const std::size_t line = wide.find("strict/gang/binpack");
  const std::string strict_line = wide.substr(line, wide.find('\n', line) - line);
  EXPECT_EQ(strict_line.find("0.0m"), std::string::npos) << strict_line;  // before: "0/13 ... 0.0m 0.0m 0.0m"
  // decide --queue-from: strict's queue time is infinite (it cannot place the class), the others finite.
  auto q = queue_times_from_replay(j, "wide.json", "", true, GpuChoice::kBinpack, "mean");
  EXPECT_TRUE(std::isinf(q[0]) && q[0] > 0);
  EXPECT_TRUE(std::isfinite(q[1]) && std::isfinite(q[2]));
}

TEST(QueueDecide, QueueTimesOutsideTheirRangeAndWrongTypesAreNamedInputErrors) {
  QueueReplay r = replay_queue(article_cluster(true), parse_job_mix(kPairs, "pairs.yaml"), all_combinations());
  const nlohmann::json j = queue_replay_to_json(r);
  auto refusal = [](const nlohmann::json& replay) {
    try {
      queue_times_from_replay(replay, "replay.json", "", true, GpuChoice::kBinpack, "mean");
    } catch (const InputError& e) {
      return std::string(e.what());
    }
    return std::string("accepted");
  };
  auto with_mean = [&](nlohmann::json v) {
    nlohmann::json d = j;
    d["combinations"][0]["classes"][0]["queue_mean_s"] = std::move(v);
    return d;
  };
  // Before: a negative time was exit 1 (the model's std::invalid_argument); 1e300 s and 8761 h passed.
  EXPECT_NE(refusal(with_mean(-5)).find("combinations[0].classes[pair-training].queue_mean_s: -5 s is not a queue time from 0 "
                                        "to 8760 h"),
            std::string::npos) << refusal(with_mean(-5));
  EXPECT_NE(refusal(with_mean(1e300)).find("1e+300 s is not a queue time from 0 to 8760 h"), std::string::npos);
  EXPECT_NE(refusal(with_mean(8761.0 * 3600)).find("3.15396e+07 s is not a queue time"), std::string::npos);
  EXPECT_NE(refusal(with_mean("soon")).find("queue_mean_s: expected a number of seconds, or null"), std::string::npos);
  EXPECT_EQ(refusal(with_mean(8760.0 * 3600)), "accepted");
  // Before: nlohmann's own "[json.exception.type_error.302] ..." text.
  nlohmann::json version = j;
  version["schema_version"] = "1";
  EXPECT_EQ(refusal(version), "--queue-from replay.json: schema_version \"1\" is not 1; re-run placebench queue");
  nlohmann::json gang = j;
  gang["combinations"][0]["gang"] = "yes";
  EXPECT_EQ(refusal(gang), "--queue-from replay.json: combinations[0].gang: expected true or false; write it again with "
                           "`placebench queue --json`");
  for (const auto& d : {version, gang, with_mean(-5)}) EXPECT_EQ(refusal(d).find("json.exception"), std::string::npos);
}
