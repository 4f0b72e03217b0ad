// Fuzz target: summary.json, through its one reader (RunDirectory::read_summary -> summary_from_json), in a
// run directory holding results/example-run's run.json.
#include <cstdint>

#include "fuzz_support.h"
#include "placebench/harness/runner/run_directory.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace placebench;
  static const harness::RunDirectory run = harness::RunDirectory::open(fuzz::example_run_dir());
  fuzz::write_scratch_file("run/summary.json", fuzz::as_text(data, size));
  fuzz::expect_accepted_or_input_error([&] { run.read_summary(); });
  return 0;
}
