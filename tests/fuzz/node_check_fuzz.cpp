// Fuzz target: a GPU node check's summary.json (scripts/gpu-node-check.sh) as `placebench check --reference
// R DIR` reads it (load_node_check_evidence), evaluated against the H100 and H200 references' node_checks,
// then the table, JUnit and Markdown printers.
#include <cstdint>

#include "fuzz_support.h"
#include "placebench/harness/check/evaluate.h"
#include "placebench/harness/check/printers.h"
#include "placebench/harness/check/reference.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace placebench::harness::check;
  namespace fuzz = placebench::fuzz;
  static const ReferenceFile kReferences[] = {load_reference_file(PLACEBENCH_SOURCE_DIR "/configs/references/h100.yaml"),
                                              load_reference_file(PLACEBENCH_SOURCE_DIR "/configs/references/h200.yaml")};
  std::string path = fuzz::write_scratch_file("summary.json", fuzz::as_text(data, size));
  fuzz::expect_accepted_or_input_error([&] {
    std::optional<RunEvidence> run = load_node_check_evidence(path);
    if (!run) return;  // not a node check's summary: `check` reads it as a run (the summary target's)
    for (const ReferenceFile& reference : kReferences) {
      CheckReport report = evaluate_checks(reference, *run);
      render_check_table(report);
      render_junit_xml(report, JunitStamp{"fuzz-host", "2026-12-01T00:00:00Z", 0.5});
      render_markdown(report);
    }
  });
  return 0;
}
