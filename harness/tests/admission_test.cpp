// admission: Kubernetes timestamps, and the derived figures on records built in the test.
#include <gtest/gtest.h>

#include "placebench/harness/admission/admission.h"
#include "placebench/harness/errors.h"

using namespace placebench::harness::admission;

TEST(AdmissionTime, Rfc3339RoundTrip) {
  EXPECT_EQ(parse_rfc3339("1970-01-01T00:00:00Z"), 0.0);
  EXPECT_EQ(parse_rfc3339("2026-12-01T10:00:00Z"), 1796119200.0);
  EXPECT_DOUBLE_EQ(*parse_rfc3339("2026-12-01T10:00:00.250000Z"), 1796119200.25);  // MicroTime (eventTime)
  EXPECT_EQ(parse_rfc3339("2026-12-01T12:00:00+02:00"), 1796119200.0);
  EXPECT_EQ(format_rfc3339(1796119200.0), "2026-12-01T10:00:00Z");
  EXPECT_EQ(format_rfc3339(1796119200.5), "2026-12-01T10:00:00.500Z");
  EXPECT_EQ(format_rfc3339(951782400.0), "2000-02-29T00:00:00Z");
  for (const char* bad : {"", "2026-12-01 10:00:00Z", "2026-13-01T10:00:00Z", "2026-12-01T10:00:00", "2026-12-01T10:00:00Zx", "yesterday"})
    EXPECT_FALSE(parse_rfc3339(bad)) << bad;
}

TEST(AdmissionTimeline, ARecreatedPodCountsAsARetry) {
  ClusterRecords records;
  const std::string pod = R"({"kind":"Pod","metadata":{"name":"w-%N","uid":"%U","namespace":"b","creationTimestamp":"2026-12-01T10:00:00Z",
    "labels":{"scheduling.x-k8s.io/pod-group":"g"}},
    "spec":{"nodeName":"n%N","containers":[{"name":"c","resources":{"requests":{"nvidia.com/gpu":"1"}}}]},
    "status":{"phase":"Running","conditions":[{"type":"PodScheduled","status":"True","lastTransitionTime":"%S"}]}})";
  auto make = [&](const std::string& n, const std::string& uid, const std::string& sched) {
    std::string s = pod;
    for (auto [k, v] : {std::pair<std::string, std::string>{"%N", n}, {"%U", uid}, {"%S", sched}})
      for (auto at = s.find(k); at != std::string::npos; at = s.find(k)) s.replace(at, k.size(), v);
    return s;
  };
  add_snapshot_text(records, "{\"kind\":\"List\",\"items\":[" + make("0", "a", "2026-12-01T10:00:10Z") + "," +
                                 make("1", "b", "2026-12-01T10:00:10Z") + "]}", "s1.json", *parse_rfc3339("2026-12-01T10:01:00Z"));
  // w-1 recreated (new uid), bound two minutes later; w-1's first incarnation is gone.
  records.pods[1].gone = parse_rfc3339("2026-12-01T10:01:00Z");
  add_snapshot_text(records, "{\"kind\":\"List\",\"items\":[" + make("0", "a", "2026-12-01T10:00:10Z") + "," +
                                 make("1", "c", "2026-12-01T10:03:00Z") + "]}", "s2.json", *parse_rfc3339("2026-12-01T10:04:00Z"));
  finish_records(records);
  AdmissionReport r = analyze_admission(records, nullptr, {});
  ASSERT_EQ(r.jobs.size(), 1u);
  const JobTimeline& job = r.jobs[0];
  EXPECT_EQ(job.min_member, 2);  // no PodGroup: the distinct pod names
  EXPECT_EQ(job.recreated, 1);
  EXPECT_EQ(job.full_gang_at, parse_rfc3339("2026-12-01T10:00:10Z"));  // both incarnations bound at 10:00:10 at first
  EXPECT_EQ(job.stranded_gpu_s, 0.0);
}

TEST(AdmissionTimeline, AQuantityWithASuffixIsReadAsAKubernetesQuantity) {
  ClusterRecords records;
  add_snapshot_text(records, R"({"kind":"List","items":[{"kind":"Pod","metadata":{"name":"w","creationTimestamp":"2026-12-01T10:00:00Z"},
    "spec":{"containers":[{"name":"c","resources":{"limits":{"nvidia.com/gpu":2,"nvidia.com/gpumem":"40k","nvidia.com/gpucores":"50"}}},
                          {"name":"d","resources":{"requests":{"nvidia.com/gpu":"1"}}}]}}]})", "s.json", 0);
  EXPECT_EQ(records.pods[0].gpus, 3.0);
  EXPECT_EQ(records.pods[0].gpumem_mib, 40000.0);
  EXPECT_EQ(records.pods[0].gpucores_pct, 50.0);
}

TEST(AdmissionTime, Rfc3339IsValidatedInFull) {
  EXPECT_TRUE(parse_rfc3339("2028-02-29T00:00:00Z"));  // a leap year
  EXPECT_TRUE(parse_rfc3339("2026-12-01T10:00:00-23:59"));
  for (const char* bad : {"2026-02-31T10:00:00Z", "2026-02-29T10:00:00Z", "2100-02-29T10:00:00Z", "2026-04-31T10:00:00Z",
                          "2026-12-01T10:00:00+99:99", "2026-12-01T10:00:00+24:00", "2026-12-01T10:00:00+02:60", "0000-01-01T00:00:00Z",
                          "1969-12-31T23:59:59Z", "2026-12-01T24:00:00Z", "2026-12-01T23:59:60Z", "2026-12-00T10:00:00Z",
                          "2026-12-01T10:00:00.Z"})
    EXPECT_FALSE(parse_rfc3339(bad)) << bad;
}

namespace {

// Records of one snapshot written in the test, at `at`.
ClusterRecords one_snapshot(const std::string& items, const char* at = "2026-12-01T10:10:00Z") {
  ClusterRecords records;
  add_snapshot_text(records, "{\"kind\":\"List\",\"items\":[" + items + "]}", "s.json", *parse_rfc3339(at));
  finish_records(records);
  return records;
}

std::string worker(const std::string& name, const std::string& labels, const std::string& owner, const std::string& conditions = "",
                   const std::string& statuses = "") {
  return R"({"apiVersion":"v1","kind":"Pod","metadata":{"name":")" + name + R"(","uid":"u-)" + name +
         R"(","namespace":"b","creationTimestamp":"2026-12-01T10:00:00Z","labels":{)" + labels +
         R"(},"ownerReferences":[{"apiVersion":"x","kind":"K","name":")" + owner +
         R"(","uid":"o"}]},"spec":{"containers":[{"name":"c","resources":{"limits":{"nvidia.com/gpu":"1"}}}]},
         "status":{"phase":"Running","conditions":[{"type":"PodScheduled","status":"True","lastTransitionTime":"2026-12-01T10:00:10Z"})" +
         conditions + "]" + statuses + "}}";
}

}  // namespace

TEST(AdmissionGang, ThePodCountComesFromTheControllersObject) {
  struct Case {
    std::string object, source;
    int pods;
  } cases[] = {
      {R"({"apiVersion":"kubeflow.org/v2beta1","kind":"MPIJob","metadata":{"name":"j","namespace":"b"},
           "spec":{"mpiReplicaSpecs":{"Launcher":{"replicas":1},"Worker":{"replicas":4}}}})", "MPIJob j", 5},
      {R"({"apiVersion":"kubeflow.org/v1","kind":"PyTorchJob","metadata":{"name":"j","namespace":"b"},
           "spec":{"pytorchReplicaSpecs":{"Master":{"replicas":1},"Worker":{"replicas":3}}}})", "PyTorchJob j", 4},
      {R"({"apiVersion":"jobset.x-k8s.io/v1alpha2","kind":"JobSet","metadata":{"name":"j","namespace":"b"},
           "spec":{"replicatedJobs":[{"name":"w","replicas":2,"template":{"spec":{"parallelism":3}}},{"name":"d"}]}})", "JobSet j", 7},
      {R"({"apiVersion":"batch.volcano.sh/v1alpha1","kind":"Job","metadata":{"name":"j","namespace":"b"},
           "spec":{"minAvailable":2,"tasks":[{"name":"w","replicas":4},{"name":"ps","replicas":2}]}})", "Job j", 6},
  };
  for (const auto& c : cases) {
    AdmissionReport r = analyze_admission(one_snapshot(worker("w-0", R"("job-name":"j")", "j") + "," + c.object), nullptr, {});
    ASSERT_EQ(r.jobs.size(), 1u) << c.source;
    EXPECT_EQ(r.jobs[0].pod_count, c.pods) << c.source;
    EXPECT_EQ(r.jobs[0].pod_count_source, c.source);
    EXPECT_FALSE(r.jobs[0].full_gang_at) << c.source;  // 1 of N bound: not whole
    EXPECT_EQ(r.jobs[0].stranded_gpu_s, 590.0) << c.source;  // 1 GPU from 10:00:10 to 10:10:00
  }
  // A Volcano Job's minAvailable is the minimum when there is no PodGroup; a batch/v1 Job is not an owner read.
  AdmissionReport v = analyze_admission(one_snapshot(worker("w-0", R"("job-name":"j")", "j") + "," + cases[3].object), nullptr, {});
  EXPECT_EQ(v.jobs[0].min_member, 2);
  EXPECT_EQ(v.jobs[0].min_member_source, "job minAvailable");
  EXPECT_NE(v.jobs[0].warnings.at(0).find("below the job's 6 pods"), std::string::npos) << v.jobs[0].warnings.at(0);
}

TEST(AdmissionGang, ALeaderWorkerSetGroupIsOneGang) {
  auto lws_pod = [](const std::string& name, const char* index) {
    return worker(name, std::string(R"("leaderworkerset.sigs.k8s.io/name":"lws","leaderworkerset.sigs.k8s.io/group-index":")") + index + "\"",
                  "lws-" + std::string(index));
  };
  const std::string lws = R"({"apiVersion":"leaderworkerset.x-k8s.io/v1","kind":"LeaderWorkerSet","metadata":{"name":"lws","namespace":"b"},
                              "spec":{"replicas":2,"leaderWorkerTemplate":{"size":2}}})";
  AdmissionReport r = analyze_admission(one_snapshot(lws_pod("lws-0", "0") + "," + lws_pod("lws-0-1", "0") + "," + lws_pod("lws-1", "1") + "," + lws),
                                        nullptr, {});
  ASSERT_EQ(r.jobs.size(), 2u);
  EXPECT_EQ(r.jobs[0].group, "lws-0");
  EXPECT_EQ(r.jobs[0].pod_count, 2);
  EXPECT_TRUE(r.jobs[0].full_gang_at);
  EXPECT_FALSE(r.jobs[1].full_gang_at);  // lws-1 has 1 of its 2 pods
}

TEST(AdmissionAttempts, AWorkerRestartedInPlaceRecoversWithoutANewAttempt) {
  // restartPolicy OnFailure: w-1 OOMKilled at 10:05:00 (lastState), Ready again at 10:06:00; nothing released.
  const std::string oom = R"(,"containerStatuses":[{"name":"c","restartCount":1,"lastState":{"terminated":{"exitCode":137,
      "reason":"OOMKilled","startedAt":"2026-12-01T10:00:20Z","finishedAt":"2026-12-01T10:05:00Z"}},
      "state":{"running":{"startedAt":"2026-12-01T10:05:30Z"}}}])";
  const std::string w1 = worker("w-1", R"("job-name":"j")", "j", R"(,{"type":"Ready","status":"True","lastTransitionTime":"2026-12-01T10:06:00Z"})", oom);
  const std::string w0 = worker("w-0", R"("job-name":"j")", "j");
  ClusterRecords records = one_snapshot(w0 + "," + w1);
  ASSERT_EQ(records.pods.size(), 2u);
  ASSERT_TRUE(records.pods[1].failed);
  AdmissionReport r = analyze_admission(records, nullptr, {});
  const JobTimeline& job = r.jobs.at(0);
  ASSERT_EQ(job.attempts.size(), 1u);
  EXPECT_EQ(job.failure_at, parse_rfc3339("2026-12-01T10:05:00Z"));
  EXPECT_NE(job.failure_reason.find("OOMKilled exit code 137"), std::string::npos) << job.failure_reason;
  EXPECT_EQ(job.attempts[0].recovered_at, parse_rfc3339("2026-12-01T10:06:00Z"));
  EXPECT_EQ(job.stranded_gpu_s, 2 * 60.0);  // both GPUs held, not working, from the OOM to w-1 Ready again
}

TEST(AdmissionAttempts, AReplacedWorkerMakesANewGangWithTheSurvivors) {
  // Volcano RestartTask: w-1 Failed at 10:05:00 (exit 1); its replacement (a new uid) created 10:06:00 and bound
  // 10:07:00; w-0 runs throughout. Attempt 2 is w-0 and the new w-1; w-0's GPU waits from the failure to 10:07.
  const std::string failed = R"(,"containerStatuses":[{"name":"c","restartCount":0,"state":{"terminated":{"exitCode":1,
      "reason":"Error","startedAt":"2026-12-01T10:00:20Z","finishedAt":"2026-12-01T10:05:00Z"}}}])";
  std::string old_w1 = worker("w-1", R"("job-name":"j")", "j", "", failed);
  old_w1.replace(old_w1.find(R"("phase":"Running")"), 17, R"("phase":"Failed")");
  std::string new_w1 = worker("w-1", R"("job-name":"j")", "j");
  new_w1.replace(new_w1.find("u-w-1"), 5, "u-w-1b");
  new_w1.replace(new_w1.find("2026-12-01T10:00:00Z"), 20, "2026-12-01T10:06:00Z");
  new_w1.replace(new_w1.find("2026-12-01T10:00:10Z"), 20, "2026-12-01T10:07:00Z");
  AdmissionReport r = analyze_admission(one_snapshot(worker("w-0", R"("job-name":"j")", "j") + "," + old_w1 + "," + new_w1), nullptr, {});
  const JobTimeline& job = r.jobs.at(0);
  ASSERT_EQ(job.attempts.size(), 2u);
  EXPECT_EQ(job.attempts[0].failure_at, parse_rfc3339("2026-12-01T10:05:00Z"));
  EXPECT_EQ(job.attempts[0].cleanup_done_at, parse_rfc3339("2026-12-01T10:05:00Z"));  // the failed pod released its GPU
  EXPECT_TRUE(job.attempts[0].held_after_failure.empty());  // w-0 carries on: its wait is the next attempt's
  const Attempt& second = job.attempts[1];
  ASSERT_EQ(second.carried_in.size(), 1u);
  EXPECT_EQ(job.pods[second.carried_in[0]].pod.name, "w-0");
  EXPECT_EQ(second.pods.size(), 2u);
  EXPECT_EQ(second.full_gang_at, parse_rfc3339("2026-12-01T10:07:00Z"));
  EXPECT_FALSE(second.pending);
  EXPECT_EQ(job.stranded_gpu_s, 120.0);  // w-0: 1 GPU from 10:05 to 10:07
}
