// Fuzz target: run.json, as every command opens a run directory (RunDirectory::open: JSON syntax, schema
// version, the mpi block and the config copy, checked by config_from_json).
#include <cstdint>

#include "fuzz_support.h"
#include "placebench/harness/runner/run_directory.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace placebench;
  fuzz::write_scratch_file("run.json", fuzz::as_text(data, size));
  fuzz::expect_accepted_or_input_error([&] { harness::RunDirectory::open(fuzz::scratch_dir()); });
  return 0;
}
