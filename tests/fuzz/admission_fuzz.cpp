// Fuzz target: a kubectl snapshot of `placebench admission` (add_snapshot_text), then the timeline and both
// printers on what it accepts.
#include <cstdint>

#include "fuzz_support.h"
#include "placebench/harness/admission/admission.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace placebench::harness::admission;
  namespace fuzz = placebench::fuzz;
  std::string text = fuzz::as_text(data, size);
  fuzz::expect_accepted_or_input_error([&] {
    ClusterRecords records;
    add_snapshot_text(records, text, "fuzz.json", 1796119200.0);
    finish_records(records);
    AdmissionReport report = analyze_admission(records, nullptr, {});
    render_admission_table(report);
    admission_to_json(report).dump();
  });
  return 0;
}
