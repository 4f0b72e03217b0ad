// Cost of parsing and formatting cpulists (done per trial when placement records are written).
#include <benchmark/benchmark.h>

#include "placebench/hostpipe/cpulist.h"

static void BM_ParseCpulist(benchmark::State& state) {
  for (auto _ : state) benchmark::DoNotOptimize(placebench::hostpipe::parse_cpulist("0-15,32-47,64,66-127"));
}
BENCHMARK(BM_ParseCpulist);
