// Fuzz target: the expected inventory of `placebench topo --expect FILE` (load_expected_inventory: a
// topo --json file, or hwloc XML when it starts with '<'), then the comparison with itself and with a
// fixture machine's inventory both ways, and both printers of the report.
#include <cstdint>
#include <sstream>

#include "fuzz_support.h"
#include "placebench/harness/topology/inventory.h"
#include "placebench/harness/topology/inventory_diff.h"
#include "placebench/harness/topology/topology.h"

namespace {

// The inventory of a committed 2-node, 4-GPU machine with a distance matrix (made once).
const placebench::harness::Inventory& fixture_inventory() {
  static const placebench::harness::Inventory inv = placebench::harness::build_inventory(
      placebench::harness::Topology::load_file(PLACEBENCH_SOURCE_DIR "/tests/fixtures/topologies/2s2n-4gpu.xml"));
  return inv;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace placebench;
  const harness::Inventory& machine = fixture_inventory();
  std::string path = fuzz::write_scratch_file("expected.json", fuzz::as_text(data, size));
  fuzz::expect_accepted_or_input_error([&] {
    harness::Inventory expected = harness::load_expected_inventory(path);
    harness::diff_inventories(expected, expected);
    harness::diff_inventories(expected, machine);
    harness::diff_inventories(machine, expected);
    harness::devices_without_numa_node(expected, false);
    std::ostringstream out;
    harness::report_expected_inventory(machine, false, path, true, out);
    harness::report_expected_inventory(machine, false, path, false, out);
  });
  return 0;
}
