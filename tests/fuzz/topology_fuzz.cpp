// Fuzz target: an hwloc XML topology file (Topology::load_file, as `--topology FILE`), then the inventory
// placebench builds from it.
#include <cstdint>

#include "fuzz_support.h"
#include "placebench/harness/topology/inventory.h"
#include "placebench/harness/topology/topology.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace placebench;
  std::string path = fuzz::write_scratch_file("topology.xml", fuzz::as_text(data, size));
  fuzz::expect_accepted_or_input_error([&] {
    harness::Topology topo = harness::Topology::load_file(path);
    harness::build_inventory(topo);
  });
  return 0;
}
