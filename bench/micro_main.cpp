// placebench-micro entry point: Google Benchmark's own flags and output formats, so its compare
// tooling works on the JSON. Extra flags (or env variables), taken out before Google Benchmark sees them:
//   --arm=A (PLACEBENCH_MICRO_ARM): bind the benchmark thread's CPUs and memory policy to arm A
//   --device-numa=N (PLACEBENCH_MICRO_DEVICE_NUMA): the host device node the arm is relative to
//   --smoke (PLACEBENCH_MICRO_SMOKE=1): heavy benchmarks at a smaller size (micro_scale.h; ctest's micro_smoke)
// Benchmarks that place buffers themselves (staging) read the same variables.
#include <benchmark/benchmark.h>

#include <cstdlib>
#include <cstring>
#include <iostream>
#include <string>

#include "micro_arm.h"
#include "placebench/hostpipe/binding.h"
#include "placebench/hostpipe/cpulist.h"

namespace {

// Removes --arm= / --device-numa= / --smoke from argv into the environment.
void take_placement_flags(int& argc, char** argv) {
  int out = 1;
  for (int i = 1; i < argc; ++i) {
    if (std::strncmp(argv[i], "--arm=", 6) == 0)
      setenv("PLACEBENCH_MICRO_ARM", argv[i] + 6, 1);
    else if (std::strncmp(argv[i], "--device-numa=", 14) == 0)
      setenv("PLACEBENCH_MICRO_DEVICE_NUMA", argv[i] + 14, 1);
    else if (std::strcmp(argv[i], "--smoke") == 0)
      setenv("PLACEBENCH_MICRO_SMOKE", "1", 1);
    else
      argv[out++] = argv[i];
  }
  argc = out;
}

int apply_arm() {
  try {
    const auto& plan = placebench::micro::micro_arm_plan();
    if (!plan) return 0;
    const auto& w = plan->workers.front();
    std::string err;
    if (!w.cpus.empty()) err = placebench::hostpipe::bind_current_thread(w.cpus);
    if (err.empty() && !w.mem_nodes.empty()) err = placebench::hostpipe::bind_current_thread_memory(w.mem_nodes);
    std::string arm = placebench::micro::micro_arm_name();
    if (!err.empty()) {
      std::cerr << "placebench-micro: --arm " << arm << ": " << err << "\n";
      return 2;
    }
    std::cerr << "placebench-micro: arm " << arm << ": CPUs "
              << (w.cpus.empty() ? "unbound" : placebench::hostpipe::format_cpulist(w.cpus)) << ", memory node(s) "
              << (w.mem_nodes.empty() ? "default" : placebench::hostpipe::format_cpulist(w.mem_nodes))
              << (plan->degenerate ? " (degenerate)" : "") << "\n";
    benchmark::AddCustomContext("placebench_arm", arm);
  } catch (const std::exception& e) {
    std::cerr << "placebench-micro: --arm: " << e.what() << "\n";
    return 2;
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  take_placement_flags(argc, argv);
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 2;
  if (int rc = apply_arm()) return rc;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
