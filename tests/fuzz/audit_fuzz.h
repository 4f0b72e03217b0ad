// What the audit's fuzz targets (kubelet_state, downward_api) share: the audit of one pod from the
// managers' files (read_managers) through the disagreement rules to both printers, against a fixed
// observation that makes every rule compare (the pod UID, container and GPU of the fixtures in
// tests/fixtures/audit/), and the checks of what a malformed file leaves: one warning line naming the file
// and the place.
#pragma once
#include <stdexcept>
#include <string>

#include "fuzz_support.h"
#include "placebench/harness/audit/audit_format.h"
#include "placebench/harness/audit/managers.h"

namespace placebench::fuzz {

inline constexpr const char* kFuzzPodUid = "6f1c2d3e-aaaa-bbbb-cccc-0123456789ab";

// A parser's documented failure is std::invalid_argument whose message starts with the place ("line 3: ...",
// "entries.POD.CONTAINER: ..."); a library's own exception or message is a finding.
template <class Parse>
void expect_parsed_or_invalid_argument(Parse&& parse) {
  try {
    parse();
  } catch (const std::invalid_argument& e) {
    std::string message = e.what();
    if (message.find('\n') != std::string::npos) finding("parser message is not one line", message);
    if (message.find(": ") == std::string::npos || message.rfind("[json.exception", 0) == 0)
      finding("parser message names no place (a library's message)", message);
  } catch (const std::exception& e) {
    finding("parser threw another exception than std::invalid_argument", e.what());
  }
}

// The audit with `options` (their files written by the target), checked as the CLI prints it.
inline void audit_managers(harness::ManagersOptions options) {
  using namespace placebench::harness;
  options.pod_uid = kFuzzPodUid;
  options.container = "trainer";
  options.proc_root = scratch_dir() + "/no-proc";
  AuditReport report;
  AuditObservation& o = report.observation;
  o.process.allowed_cpus = {0, 1, 2, 3, 4, 5, 6, 7};
  o.process.allowed_mems = {0, 1};
  o.visibility.nvidia_visible_devices = "GPU-aaaaaaaa-1111-2222-3333-444444444444";
  GpuPlacement gpu;
  gpu.target = {"GPU 0", 0, "0000:17:00.0", "H100", 0, "visible"};
  gpu.placement = "split";
  gpu.cpu_nodes = {0, 1};
  gpu.mem_nodes = {0};
  report.placements = {gpu, gpu};
  report.placements[1].target.numa_node = 1;
  report.managers = read_managers(options, o);
  find_disagreements(report.managers, o, report.placements);
  for (const std::string& w : report.managers.warnings) {
    if (w.find('\n') != std::string::npos) finding("warning is not one line", w);
    if (w.rfind(scratch_dir(), 0) != 0) finding("warning does not start with the file", w);
  }
  audit_to_json(report).dump(2, ' ', false, nlohmann::json::error_handler_t::replace);
  render_audit_table(report);
}

}  // namespace placebench::fuzz
