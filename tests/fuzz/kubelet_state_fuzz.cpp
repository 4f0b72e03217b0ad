// Fuzz target: the kubelet's files `placebench audit` reads (--cpu-manager-state, --memory-manager-state,
// --kubelet-config): one input is each of them, through its parser and then the whole audit of the pod.
#include <cstdint>

#include "audit_fuzz.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace placebench;
  std::string text = fuzz::as_text(data, size);
  fuzz::expect_parsed_or_invalid_argument([&] { harness::parse_cpu_manager_state(text); });
  fuzz::expect_parsed_or_invalid_argument([&] { harness::parse_memory_manager_state(text); });
  harness::ManagersOptions options;
  options.cpu_manager_state = fuzz::write_scratch_file("cpu_manager_state", text);
  options.memory_manager_state = fuzz::write_scratch_file("memory_manager_state", text);
  options.kubelet_config = fuzz::write_scratch_file("config.yaml", text);
  options.annotations = fuzz::scratch_dir() + "/absent-annotations";
  options.labels = fuzz::scratch_dir() + "/absent-labels";
  options.given = {"--cpu-manager-state", "--memory-manager-state", "--kubelet-config"};
  fuzz::expect_accepted_or_input_error([&] { fuzz::audit_managers(options); });
  return 0;
}
