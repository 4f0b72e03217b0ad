// Fuzz target: `placebench gang --json` output read back: by `cost --from FILE` (read_gang_incidents, the
// input as FILE.json and as FILE.jsonl, then the cost and both printers) and by `admission --gang FILE`
// (read_gang_timeline).
#include <cstdint>

#include "fuzz_support.h"
#include "placebench/harness/admission/admission.h"
#include "placebench/harness/decisions/cost.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace placebench;
  namespace decisions = harness::decisions;
  std::string text = fuzz::as_text(data, size);
  for (const char* name : {"gang.json", "gang.jsonl"}) {
    std::string path = fuzz::write_scratch_file(name, text);
    fuzz::expect_accepted_or_input_error([&] {
      decisions::CostInput input;
      input.rate_per_gpu_hour = 2.5;
      decisions::set_measured_incidents(input, decisions::read_gang_incidents(path));
      decisions::CostResult result = decisions::compute_cost(input);
      decisions::render_cost_text(result);
      decisions::cost_to_json(result).dump();
    });
  }
  std::string path = fuzz::write_scratch_file("gang-timeline.json", text);
  fuzz::expect_accepted_or_input_error([&] { harness::admission::read_gang_timeline(path); });
  return 0;
}
