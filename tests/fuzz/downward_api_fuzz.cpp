// Fuzz target: the downward API's files `placebench audit` reads (--annotations, --labels: key="value"
// lines, Go-quoted values), through parse_downward_api_file and HAMi's annotations, then the whole audit of
// the pod with the input as both files.
#include <cstdint>

#include "audit_fuzz.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace placebench;
  std::string text = fuzz::as_text(data, size);
  fuzz::expect_parsed_or_invalid_argument([&] { harness::read_hami_annotations(harness::parse_downward_api_file(text)); });
  harness::ManagersOptions options;
  options.cpu_manager_state = fuzz::scratch_dir() + "/absent-cpu_manager_state";
  options.memory_manager_state = fuzz::scratch_dir() + "/absent-memory_manager_state";
  options.kubelet_config = fuzz::scratch_dir() + "/absent-config.yaml";
  options.annotations = fuzz::write_scratch_file("annotations", text);
  options.labels = fuzz::write_scratch_file("labels", text);
  options.given = {"--annotations", "--labels"};
  fuzz::expect_accepted_or_input_error([&] { fuzz::audit_managers(options); });
  return 0;
}
