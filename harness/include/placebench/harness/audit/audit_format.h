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
  // 0: every target local and no disagreement; 1: otherwise.
  int exit_status() const;
};

nlohmann::json audit_to_json(const AuditReport& report);  // without the evidence stamp (the CLI adds it)
std::string render_audit_table(const AuditReport& report);

}  // namespace placebench::harness
