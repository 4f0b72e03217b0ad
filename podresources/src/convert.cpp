// Messages -> plain structs (see convert.h).
#include "convert.h"

namespace placebench::podresources {
namespace {

std::vector<std::int64_t> nodes_of(const v1::TopologyInfo& topology) {
  std::vector<std::int64_t> out;
  for (const v1::NUMANode& n : topology.nodes()) out.push_back(n.id());
  return out;
}

Devices devices_of(const v1::ContainerDevices& d) {
  return {d.resource_name(), {d.device_ids().begin(), d.device_ids().end()}, nodes_of(d.topology())};
}

Memory memory_of(const v1::ContainerMemory& m) { return {m.memory_type(), m.size(), nodes_of(m.topology())}; }

DynamicResource dynamic_of(const v1::DynamicResource& d) {
  DynamicResource out{d.claim_name(), d.claim_namespace(), {}};
  for (const v1::ClaimResource& c : d.claim_resources()) {
    ClaimDevice device{c.driver_name(), c.pool_name(), c.device_name(), {}};
    for (const v1::CDIDevice& cdi : c.cdi_devices()) device.cdi_devices.push_back(cdi.name());
    out.devices.push_back(std::move(device));
  }
  return out;
}

}  // namespace

Pod from_proto(const v1::PodResources& pod) {
  Pod out{pod.name(), pod.namespace_(), {}, {pod.cpu_ids().begin(), pod.cpu_ids().end()}};
  for (const v1::ContainerResources& c : pod.containers()) {
    Container container{c.name(), {}, {c.cpu_ids().begin(), c.cpu_ids().end()}, {}, {}};
    for (const auto& d : c.devices()) container.devices.push_back(devices_of(d));
    for (const auto& m : c.memory()) container.memory.push_back(memory_of(m));
    for (const auto& d : c.dynamic_resources()) container.dynamic_resources.push_back(dynamic_of(d));
    out.containers.push_back(std::move(container));
  }
  return out;
}

Allocatable from_proto(const v1::AllocatableResourcesResponse& response) {
  Allocatable out{{}, {response.cpu_ids().begin(), response.cpu_ids().end()}, {}};
  for (const auto& d : response.devices()) out.devices.push_back(devices_of(d));
  for (const auto& m : response.memory()) out.memory.push_back(memory_of(m));
  return out;
}

}  // namespace placebench::podresources
