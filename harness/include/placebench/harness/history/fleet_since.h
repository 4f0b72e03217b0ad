// `fleet --history DB` ("changed since", docs/fleet.md): per node of the fleet, each series it has in the store
// (class x arm x metric) as `history changes` builds and judges it (changes.h, called, not copied), its latest
// figure against its own last stable segment before that run, and the series' last change point.
#pragma once
#include <string>
#include <vector>

#include "placebench/harness/fleet/fleet.h"
#include "placebench/harness/history/history.h"

namespace placebench::harness::history {

// The series of `hosts` in the store (each host's runs, queried by node) whose class and arm the fleet's
// --metrics selectors take (fleet::metric_selected; empty: every one), sorted by host, class, arm, metric.
// A host without runs in the store has no rows.
fleet::FleetHistory fleet_changed_since(const Store& store, const std::vector<std::string>& hosts,
                                        const std::vector<std::string>& metric_selectors);

}  // namespace placebench::harness::history
