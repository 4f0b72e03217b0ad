// Printers of an audit: the JSON document (docs/audit.md) and the text table. They read the audit's data
// and print; nothing is gathered here.
#pragma once
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "placebench/harness/audit/audit.h"
#include "placebench/harness/audit/managers.h"

namespace placebench::harness {

struct AuditReport {
  AuditObservation observation;
  std::vector<GpuPlacement> placements;
  ManagersReport managers;
  // What cannot be told: the process's own (a kernel thread, unreadable numa_maps) and every GPU of its
  // that could not be identified. Any makes the audit fail: what cannot be told is never a pass.
  std::vector<std::string> unknowns() const;
  // 0: every target local, nothing unknown and no disagreement; 1: otherwise.
  int exit_status() const;
};

nlohmann::json audit_to_json(const AuditReport& report);  // without the evidence stamp (the CLI adds it)
std::string render_audit_table(const AuditReport& report);

}  // namespace placebench::harness
