// Fuzz target: `placebench queue --json` output read back by `decide --queue-from FILE` (load_queue_times),
// then the same document (queue_times_from_replay) for the committed replay's class and another, each gang
// and GPU choice setting, and each statistic.
#include <cstdint>

#include "fuzz_support.h"
#include "placebench/harness/decisions/queue_replay.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace placebench::harness::decisions;
  namespace fuzz = placebench::fuzz;
  std::string text = fuzz::as_text(data, size);
  std::string path = fuzz::write_scratch_file("queue.json", text);
  fuzz::expect_accepted_or_input_error([&] { load_queue_times(path, "pair-training", true, GpuChoice::kBinpack, "mean"); });
  nlohmann::json replay = nlohmann::json::parse(text, nullptr, false);
  if (replay.is_discarded()) return 0;  // load_queue_times refused it above
  for (const char* class_name : {"pair-training", "training"})
    for (bool gang : {true, false})
      for (GpuChoice choice : {GpuChoice::kBinpack, GpuChoice::kSpread})
        for (const char* stat : {"p50", "p90", "p99"})
          fuzz::expect_accepted_or_input_error([&] { queue_times_from_replay(replay, path, class_name, gang, choice, stat); });
  return 0;
}
