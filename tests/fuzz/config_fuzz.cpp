// Fuzz target: the run config (configs/*.yaml) through parse_experiment_config. A config it accepts must
// also survive its copy in run.json: config_from_json(config_to_json(c)) may not reject it (a run whose
// run.json cannot be read back would lose its results).
#include <cstdint>

#include "fuzz_support.h"
#include "placebench/harness/runner/config.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace placebench;
  std::string text = fuzz::as_text(data, size);
  fuzz::expect_accepted_or_input_error([&] {
    harness::ExperimentConfig config = harness::parse_experiment_config(text, "fuzz.yaml");
    nlohmann::json copy = harness::config_to_json(config);
    try {
      harness::config_from_json(copy, "run.json");
    } catch (const std::exception& e) {
      fuzz::finding("an accepted config whose run.json copy is rejected", e.what());
    }
  });
  return 0;
}
