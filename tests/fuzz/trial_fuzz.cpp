// Fuzz target: trial lines. The input is a trials.jsonl read by its one reader (read_trial_records, against
// results/example-run's config), and each of its lines that is JSON goes through trial_record_from_json
// without a config, as hand-made lines are read.
#include <cstdint>
#include <sstream>

#include "fuzz_support.h"
#include "placebench/harness/runner/run_directory.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace placebench;
  static const harness::RunDirectory run = harness::RunDirectory::open(fuzz::example_run_dir());
  std::string text = fuzz::as_text(data, size);
  fuzz::write_scratch_file("run/trials.jsonl", text);
  fuzz::expect_accepted_or_input_error([&] {
    std::vector<std::string> warnings;
    run.read_trial_records(warnings);
  });
  std::istringstream lines(text);
  for (std::string line; std::getline(lines, line);) {
    nlohmann::json j = nlohmann::json::parse(line, nullptr, false);
    if (j.is_discarded()) continue;
    fuzz::expect_accepted_or_input_error([&] { harness::trial_record_from_json(j); });
  }
  return 0;
}
