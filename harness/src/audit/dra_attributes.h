// A DRA device's attributes as the ResourceSlice and the device metadata file carry them: a one-key object
// by type ({"int": 1}, {"string": "..."}, {"version": "..."}, {"bool": true}) under the driver's own name
// ("numaNode") or one qualified by a domain ("gpu.nvidia.com/numaNode", "resource.kubernetes.io/pcieRoot").
// Private to the audit's DRA readers (dra_records.cpp, dra_metadata.cpp).
#pragma once
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

namespace placebench::harness {

struct DraAttributes {
  std::string uuid;        // uuid
  std::string pci_bus_id;  // pcieBusID (the NVIDIA driver's) or resource.kubernetes.io/pciBusID, normalised
  std::string pcie_root;   // pcieRoot
  std::optional<int> numa_node;  // numaNode, 0-4095
};

DraAttributes read_dra_attributes(const nlohmann::json& attributes);

// j[key] when j is an object holding a string there, else "".
std::string dra_string(const nlohmann::json& j, const char* key);

}  // namespace placebench::harness
