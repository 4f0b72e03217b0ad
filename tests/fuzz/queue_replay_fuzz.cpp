// Fuzz target: `placebench queue --json` output read back by `decide --queue-from FILE` (load_queue_times),
// for the committed replay's class and another, each gang and GPU choice setting, and each statistic.
#include <cstdint>

#include "fuzz_support.h"
#include "placebench/harness/decisions/queue_replay.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace placebench::harness::decisions;
  namespace fuzz = placebench::fuzz;
  std::string path = fuzz::write_scratch_file("queue.json", fuzz::as_text(data, size));
  for (const char* class_name : {"pair-training", "training"})
    for (bool gang : {true, false})
      for (GpuChoice choice : {GpuChoice::kBinpack, GpuChoice::kSpread})
        for (const char* stat : {"mean", "p99"})
          fuzz::expect_accepted_or_input_error([&] { load_queue_times(path, class_name, gang, choice, stat); });
  return 0;
}
