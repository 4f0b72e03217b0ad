// A PodGroup object (Volcano or scheduler-plugins) read into a PodGroupRecord with the phase it shows.
#include <fmt/format.h>

#include "k8s_object_reader.h"

namespace placebench::harness::admission::k8s {

PodGroupRecord read_podgroup(const ObjectReader& r, const std::string& api, double snapshot_time) {
  PodGroupRecord g;
  g.name = r.name();
  g.ns = r.text({"metadata", "namespace"});
  g.api = api;
  g.uid = r.text({"metadata", "uid"});
  g.last_seen = snapshot_time;
  g.created = r.time({"metadata", "creationTimestamp"}, "metadata.creationTimestamp");
  if (const json* m = r.at({"spec", "minMember"})) {
    if (!m->is_number_integer() || m->get<long long>() < 0 || m->get<long long>() > 1'000'000)
      r.fail("spec.minMember is not a whole number from 0 to 1000000");
    g.min_member = m->get<int>();
  }
  std::string phase = r.text({"status", "phase"});
  if (phase.empty()) return g;
  PhaseChange change{snapshot_time, phase, "snapshot"};
  // Volcano marks the gang's admission with a Scheduled condition; scheduler-plugins with scheduleStartTime.
  if (const json* conds = r.at({"status", "conditions"}); conds && conds->is_array()) {
    for (std::size_t i = 0; i < conds->size(); ++i) {
      const json& c = (*conds)[i];
      if (phase == "Running" && r.text({"type"}, &c) == "Scheduled" && r.text({"status"}, &c) == "True")
        if (Time t = r.time({"lastTransitionTime"}, fmt::format("status.conditions[{}].lastTransitionTime", i), &c))
          change = {*t, phase, "condition Scheduled"};
    }
  }
  if (phase == "Scheduling")
    if (Time t = r.time({"status", "scheduleStartTime"}, "status.scheduleStartTime")) change = {*t, phase, "scheduleStartTime"};
  g.phases.push_back(change);
  return g;
}

}  // namespace placebench::harness::admission::k8s
