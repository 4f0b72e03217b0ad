// `placebench admission` over a snapshot of 100k events (target: < 10 s on the development VM,
// docs/performance.md; it took 134 s before the merges were indexed, issue 27): 1000 pods in 10 gangs of
// 100 (half bound) and 100,000 FailedScheduling events about them, each with its own uid and message, as a
// long-unschedulable namespace collects them (~64 MB of kubectl JSON, written once to a temporary file).
// Each iteration reads the file, derives every gang's timeline and renders the table and the JSON. Also at
// 25k and 50k events, so the counters show the growth (n log n: about 2x per doubling, not 4x).
#include <benchmark/benchmark.h>
#include <unistd.h>

#include <fmt/format.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "micro_scale.h"
#include "placebench/harness/admission/admission.h"

namespace {

namespace adm = placebench::harness::admission;

std::string at(int s) { return fmt::format("2026-12-01T{:02}:{:02}:{:02}Z", 10 + s / 3600, s / 60 % 60, s % 60); }

std::string snapshot_text(int events) {
  std::string out = R"({"apiVersion":"v1","kind":"List","metadata":{"resourceVersion":""},"items":[)";
  for (int g = 0; g < 10; ++g)
    for (int i = 0; i < 100; ++i)
      out += fmt::format(R"({{"apiVersion":"v1","kind":"Pod","metadata":{{"name":"g{0}-w{1}","namespace":"bench","uid":"u-g{0}-w{1}",)"
                         R"("creationTimestamp":"{2}","labels":{{"job-name":"g{0}"}}}},"spec":{{"containers":[{{"name":"c","resources":)"
                         R"({{"limits":{{"nvidia.com/gpu":"1"}}}}}}]}},"status":{{"phase":"Pending","conditions":[{{"type":"PodScheduled",)"
                         R"("status":"{3}","lastTransitionTime":"{4}"}}]}}}},)",
                         g, i, at(0), i % 2 ? "True" : "False", at(5));
  for (int e = 0; e < events; ++e)
    out += fmt::format(R"({{"apiVersion":"v1","kind":"Event","metadata":{{"name":"g{0}-w{1}.{2}","namespace":"bench","uid":"ev-{2}",)"
                       R"("creationTimestamp":"{3}"}},"involvedObject":{{"apiVersion":"v1","kind":"Pod","name":"g{0}-w{1}","namespace":"bench"}},)"
                       R"("reason":"FailedScheduling","type":"Warning","message":"0/{4} nodes are available: {5} Insufficient nvidia.com/gpu. )"
                       R"(preemption: 0/4 nodes are available: 4 No preemption victims found for incoming pod.","firstTimestamp":"{3}",)"
                       R"("lastTimestamp":"{6}","count":3,"source":{{"component":"default-scheduler"}},"reportingComponent":"default-scheduler",)"
                       R"("reportingInstance":"default-scheduler-control-plane-1"}}{7})",
                       e % 10, e / 10 % 100, e, at(e % 3000), e % 500, e % 97, at(e % 3000 + 10), e + 1 < events ? "," : "");
  return out + "]}";
}

// <tmp>/placebench-admission-bench-<pid>-<events>.json, made on first use, removed at exit.
std::string snapshot_file(int events) {
  const std::string path = fmt::format("{}/placebench-admission-bench-{}-{}.json", std::filesystem::temp_directory_path().string(), ::getpid(), events);
  if (!std::filesystem::exists(path)) {
    std::ofstream(path) << snapshot_text(events);
    static std::vector<std::string> made;
    made.push_back(path);
    if (made.size() == 1)
      std::atexit([] {
        for (const auto& p : made) std::filesystem::remove(p);
      });
  }
  return path;
}

void BM_AdmissionEvents(benchmark::State& state) {
  const int events = placebench::micro::scaled(static_cast<int>(state.range(0)), 2'000);
  const std::string path = snapshot_file(events);
  std::size_t jobs = 0, bytes = 0;
  for (auto _ : state) {
    adm::AdmissionReport r = adm::analyze_admission(adm::read_snapshots({path}), nullptr, {});
    std::string out = adm::render_admission_table(r) + adm::admission_to_json(r).dump();
    jobs = r.jobs.size();
    bytes = out.size();
    benchmark::DoNotOptimize(out);
  }
  state.counters["events"] = events;
  state.counters["input_mb"] = static_cast<double>(std::filesystem::file_size(path)) / 1e6;
  state.counters["jobs"] = static_cast<double>(jobs);
  state.counters["output_bytes"] = static_cast<double>(bytes);
}
BENCHMARK(BM_AdmissionEvents)->Arg(25'000)->Arg(50'000)->Arg(100'000)->Unit(benchmark::kMillisecond)->UseRealTime()->Iterations(1);

}  // namespace
