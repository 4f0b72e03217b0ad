// Fuzz target: a cluster inventory of `placebench feasible` (parse_feasibility_text, with and without its
// `job:`, and as a job file alone), then the search and both printers on what it accepts: a search that
// does not end is a hang (a finding).
#include <cstdint>

#include "fuzz_support.h"
#include "placebench/harness/decisions/feasible.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace placebench::harness::decisions;
  namespace fuzz = placebench::fuzz;
  std::string text = fuzz::as_text(data, size);
  fuzz::expect_accepted_or_input_error([&] {
    FeasibilityInput input = parse_feasibility_text(text, "fuzz.yaml");
    FeasibilityReport report = assess_feasibility(input.inventory, input.job.value_or(JobContract{}));
    render_feasibility_text(report);
    feasibility_json_text(report);
  });
  fuzz::expect_accepted_or_input_error([&] { parse_feasibility_text(text, "job.yaml", true); });
  return 0;
}
