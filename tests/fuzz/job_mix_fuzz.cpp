// Fuzz target: a job mix of `placebench queue` (parse_job_mix), then, for mixes of at most 2000 expected jobs,
// the replay on a two-host inventory and both printers.
#include <cstdint>

#include "fuzz_support.h"
#include "placebench/harness/decisions/queue_replay.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace placebench::harness::decisions;
  namespace fuzz = placebench::fuzz;
  std::string text = fuzz::as_text(data, size);
  fuzz::expect_accepted_or_input_error([&] {
    JobMix mix = parse_job_mix(text, "fuzz.yaml");
    double expected = 0;
    for (const auto& c : mix.classes) expected += c.arrivals_per_hour * mix.horizon_s / 3600;
    if (expected > 2000) return;
    ClusterInventory inv;
    for (int h = 0; h < 2; ++h)
      inv.nodes.push_back({"n" + std::to_string(h), {{0, 2, 2, 16, 16, std::nullopt, std::nullopt}, {1, 2, 1, 16, 16, std::nullopt, std::nullopt}}});
    QueueReplay r = replay_queue(inv, mix, all_combinations());
    render_queue_table(r);
    queue_replay_to_json(r).dump();
  });
  return 0;
}
