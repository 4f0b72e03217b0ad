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
