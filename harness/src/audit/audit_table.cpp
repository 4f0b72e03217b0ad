// Text printer of an audit: what the process was given, one row per device, then the managers' findings.
#include <fmt/format.h>

#include "placebench/harness/audit/audit_format.h"
#include "placebench/harness/terminal_text.h"
#include "placebench/hostpipe/cpulist.h"

namespace placebench::harness {

std::string render_audit_table(const AuditReport& r) {
  const AuditObservation& o = r.observation;
  std::string out;
  out += fmt::format("audit of {} (topology: {})\n", o.pid == 0 ? std::string("this process") : "pid " + std::to_string(o.pid),
                     escape_control(o.inventory.source));
  out += fmt::format("  allowed CPUs {}  memory nodes {}  cgroup v{} cpuset {} mems {}\n",
                     hostpipe::format_cpulist(o.process.allowed_cpus), hostpipe::format_cpulist(o.process.allowed_mems),
                     o.cgroup.version, o.cgroup.cpus.empty() ? "-" : escape_control(o.cgroup.cpus), o.cgroup.mems.empty() ? "-" : escape_control(o.cgroup.mems));
  out += fmt::format("  memory policy {} {}  pages ({}):", o.mem_policy, hostpipe::format_cpulist(o.mem_policy_nodes), o.pages_source);
  for (const auto& [node, count] : o.pages) out += fmt::format(" {}={}", node < 0 ? (node == -1 ? "absent" : "unknown") : std::to_string(node), count);
  out += "\n";
  out += fmt::format("  {} thread(s):", o.process.threads.size());
  for (const auto& t : o.process.threads) out += fmt::format(" {}({})={}", t.tid, escape_control(t.name), hostpipe::format_cpulist(t.cpus));
  out += "\n\n";
  out += fmt::format("{:<20} {:<14} {:>4}  {:<9} {:>8} {:>8}\n", "device", "bus id", "node", "placement", "CPUs on", "pages on");
  for (const GpuPlacement& p : r.placements) {
    auto pct = [](const std::optional<double>& v) { return v ? fmt::format("{:.1f}%", *v) : std::string("-"); };
    out += fmt::format("{:<20} {:<14} {:>4}  {:<9} {:>8} {:>8}\n", escape_control(p.target.label), p.target.pci_bus_id.empty() ? "-" : escape_control(p.target.pci_bus_id),
                       p.target.numa_node < 0 ? std::string("?") : std::to_string(p.target.numa_node), p.placement,
                       pct(p.cpu_share_pct), pct(p.page_share_pct));
    for (const std::string& why : p.reasons) out += "    " + escape_control(why) + "\n";
  }
  auto section = [&](const char* title, const std::vector<std::string>& lines) {
    if (lines.empty()) return;
    out += fmt::format("\n{}:\n", title);
    for (const std::string& l : lines) out += "  " + escape_control(l) + "\n";
  };
  section("unknown (never a pass)", r.unknowns());
  section("disagreements with the node's managers", r.managers.disagreements);
  section("warnings", r.managers.warnings);
  std::vector<std::string> notes = o.notes;
  notes.insert(notes.end(), o.visibility.notes.begin(), o.visibility.notes.end());
  notes.insert(notes.end(), r.managers.notes.begin(), r.managers.notes.end());
  section("notes", notes);
  const char* verdict = r.exit_status() == 0        ? "every device's placement is local"
                        : !r.unknowns().empty() ? "the placement cannot be told for every device (exit 1)"
                                                : "not every device's placement is local (exit 1)";
  out += fmt::format("\n{}\n", verdict);
  return out;
}

}  // namespace placebench::harness
