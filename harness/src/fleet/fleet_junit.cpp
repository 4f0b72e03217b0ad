// The fleet report as JUnit XML: one test case per node (hostname, timestamp: the run's start, time: its
// trials' seconds), failed with its reasons when it is a suspect; unreadable runs are test cases with an
// error. Escaping is check::xml_escape's (junit.cpp), so the two JUnit outputs escape alike.
#include <fmt/format.h>

#include "placebench/harness/check/printers.h"
#include "placebench/harness/evidence.h"
#include "placebench/harness/fleet/fleet.h"

namespace placebench::harness::fleet {
namespace {

using check::xml_escape;

std::string joined(const std::vector<std::string>& lines) {
  std::string out;
  for (const std::string& l : lines) out += (out.empty() ? "" : "\n") + l;
  return out;
}

}  // namespace

std::string render_fleet_junit(const FleetReport& r, const std::string& generated_at) {
  int failures = 0, errors = 0;
  for (const NodeVerdict& v : r.verdicts) failures += v.suspect ? 1 : 0;
  errors = static_cast<int>(r.unreadable.size());
  int tests = static_cast<int>(r.verdicts.size()) + errors;
  std::string out = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
  out += fmt::format("<testsuites name=\"placebench fleet\" tests=\"{}\" failures=\"{}\" errors=\"{}\">\n", tests, failures,
                     errors);
  out += fmt::format("  <testsuite name=\"placebench fleet\" tests=\"{}\" failures=\"{}\" errors=\"{}\" skipped=\"0\" "
                     "timestamp=\"{}\" hostname=\"{}\">\n",
                     tests, failures, errors, xml_escape(generated_at), xml_escape(local_host_name()));
  out += fmt::format("    <properties>\n      <property name=\"tolerance_pct\" value=\"{:g}\"/>\n    </properties>\n",
                     r.options.tolerance_pct);
  for (std::size_t i = 0; i < r.verdicts.size(); ++i) {
    const NodeVerdict& v = r.verdicts[i];
    const NodeRun& n = r.input.nodes[i];
    out += fmt::format("    <testcase classname=\"placebench.fleet\" name=\"{}\" hostname=\"{}\" timestamp=\"{}\" time=\"{:.3f}\">\n",
                       xml_escape(v.host), xml_escape(v.host), xml_escape(n.start_time), n.duration_s);
    if (v.suspect)
      out += fmt::format("      <failure message=\"{}\" type=\"suspect\">{}</failure>\n",
                         xml_escape(fmt::format("{}: {} reason(s)", v.host, v.reasons.size())), xml_escape(joined(v.reasons)));
    out += fmt::format("      <system-out>{}</system-out>\n    </testcase>\n",
                       xml_escape(fmt::format("run: {}{}", n.dir, n.notes.empty() ? "" : "\n" + joined(n.notes))));
  }
  for (const SkippedRun& s : r.unreadable) {
    const std::string name = s.host.empty() ? s.dir : s.host;
    out += fmt::format("    <testcase classname=\"placebench.fleet\" name=\"{}\" hostname=\"{}\" time=\"0\">\n"
                       "      <error message=\"results unreadable\" type=\"unreadable\">{}</error>\n    </testcase>\n",
                       xml_escape(name), xml_escape(s.host), xml_escape(s.dir + ": " + s.reason));
  }
  out += "  </testsuite>\n</testsuites>\n";
  return out;
}

}  // namespace placebench::harness::fleet
