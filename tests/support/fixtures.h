// Where test fixtures live: tests/fixtures/ in the checkout, always present (the real machines' hwloc
// topologies are copied there too, see tests/fixtures/topologies/README.md), so no test skips for lack
// of a fixture.
#pragma once
#include <string>

namespace placebench::testing {

inline std::string own_topology(const std::string& name) {
  return std::string(PLACEBENCH_SOURCE_DIR) + "/tests/fixtures/topologies/" + name;
}

}  // namespace placebench::testing
