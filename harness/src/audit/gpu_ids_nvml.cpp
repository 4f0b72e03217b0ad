// NVML's answer to "which UUID is at which PCI bus id", and which GPU each MIG device is part of, with
// libnvidia-ml loaded at run time as the sampler loads it (hostpipe/sysmetrics/nvml_compat.h): neither the
// build nor the binary needs the driver. The few signatures below are the NVML API reference's
// (https://docs.nvidia.com/deploy/nvml-api/), ABI-stable: nvmlPciInfo_t as nvmlDeviceGetPciInfo_v3 fills
// it, NVML_DEVICE_UUID_V2_BUFFER_SIZE 96.
#include <dlfcn.h>

#include <cstring>

#include "placebench/harness/audit/gpu_identity.h"
#include "placebench/hostpipe/sysmetrics/nvml_compat.h"
#include "placebench/kernels/device_runtime.h"

namespace placebench::harness {
namespace {

namespace nvml = hostpipe::sysmetrics::nvml;

struct PciInfo {                   // nvmlPciInfo_t
  char bus_id_legacy[16];          // NVML_DEVICE_PCI_BUS_ID_BUFFER_V2_SIZE
  unsigned int domain, bus, device, pci_device_id, pci_subsystem_id;
  char bus_id[32];                 // NVML_DEVICE_PCI_BUS_ID_BUFFER_SIZE
};
constexpr unsigned int kUuidBufferSize = 96;  // NVML_DEVICE_UUID_V2_BUFFER_SIZE

using GetCountFn = nvml::Return (*)(unsigned int*);                                   // nvmlDeviceGetCount_v2
using GetUuidFn = nvml::Return (*)(nvml::Device, char*, unsigned int);                // nvmlDeviceGetUUID
using GetPciInfoFn = nvml::Return (*)(nvml::Device, PciInfo*);                        // nvmlDeviceGetPciInfo_v3
using GetMaxMigFn = nvml::Return (*)(nvml::Device, unsigned int*);                    // nvmlDeviceGetMaxMigDeviceCount
using GetMigByIndexFn = nvml::Return (*)(nvml::Device, unsigned int, nvml::Device*);  // nvmlDeviceGetMigDeviceHandleByIndex

template <typename Fn>
Fn symbol(void* handle, const char* name) {
  return reinterpret_cast<Fn>(dlsym(handle, name));
}

struct Library {
  void* handle = nullptr;
  nvml::ShutdownFn shutdown = nullptr;
  ~Library() {
    if (shutdown) shutdown();
    if (handle) dlclose(handle);
  }
};

struct Calls {
  GetCountFn count;
  nvml::GetHandleByIndexFn by_index;
  GetUuidFn uuid;
  GetPciInfoFn pci;
  GetMaxMigFn max_mig;         // absent before MIG (R450): no MIG devices then
  GetMigByIndexFn mig_by_index;
};

std::string uuid_of(const Calls& c, nvml::Device d) {
  char buf[kUuidBufferSize] = {};
  return c.uuid(d, buf, sizeof buf) == nvml::kSuccess ? std::string(buf, ::strnlen(buf, sizeof buf)) : std::string();
}

void add_migs(NodeGpuIds& ids, const Calls& c, nvml::Device gpu, const std::string& parent) {
  unsigned int max = 0;
  if (!c.max_mig || !c.mig_by_index || c.max_mig(gpu, &max) != nvml::kSuccess) return;
  for (unsigned int m = 0; m < max; ++m) {
    nvml::Device mig = nullptr;
    if (c.mig_by_index(gpu, m, &mig) != nvml::kSuccess) continue;  // that slot holds no MIG device
    std::string uuid = uuid_of(c, mig);
    if (!uuid.empty()) ids.migs.push_back({uuid, parent});
  }
}

}  // namespace

void add_nvml_gpu_ids(NodeGpuIds& ids, const std::string& library) {
  Library lib;
  lib.handle = dlopen(library.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!lib.handle) {
    ids.sources.push_back("NVML: cannot load " + library + " (no NVIDIA driver on this node, or not in this container)");
    return;
  }
  auto init = symbol<nvml::InitFn>(lib.handle, "nvmlInit_v2");
  Calls c{symbol<GetCountFn>(lib.handle, "nvmlDeviceGetCount_v2"),
          symbol<nvml::GetHandleByIndexFn>(lib.handle, "nvmlDeviceGetHandleByIndex_v2"),
          symbol<GetUuidFn>(lib.handle, "nvmlDeviceGetUUID"), symbol<GetPciInfoFn>(lib.handle, "nvmlDeviceGetPciInfo_v3"),
          symbol<GetMaxMigFn>(lib.handle, "nvmlDeviceGetMaxMigDeviceCount"),
          symbol<GetMigByIndexFn>(lib.handle, "nvmlDeviceGetMigDeviceHandleByIndex")};
  auto shutdown = symbol<nvml::ShutdownFn>(lib.handle, "nvmlShutdown");
  if (!init || !shutdown || !c.count || !c.by_index || !c.uuid || !c.pci) {
    ids.sources.push_back("NVML: " + library + " lacks nvmlDeviceGetUUID or nvmlDeviceGetPciInfo_v3 (driver too old?)");
    return;
  }
  if (nvml::Return rc = init(); rc != nvml::kSuccess) {
    ids.sources.push_back("NVML: nvmlInit_v2 failed (error " + std::to_string(rc) + ")");
    return;
  }
  lib.shutdown = shutdown;
  unsigned int count = 0;
  if (c.count(&count) != nvml::kSuccess) count = 0;
  std::size_t found = 0;
  for (unsigned int i = 0; i < count; ++i) {
    nvml::Device d = nullptr;
    PciInfo pci{};
    if (c.by_index(i, &d) != nvml::kSuccess || c.pci(d, &pci) != nvml::kSuccess) continue;
    std::string uuid = uuid_of(c, d);
    if (uuid.empty()) continue;
    ids.gpus.push_back({uuid, kernels::normalize_pci_bus_id(std::string(pci.bus_id, ::strnlen(pci.bus_id, sizeof pci.bus_id))), "NVML"});
    add_migs(ids, c, d, uuid);
    ++found;
  }
  ids.sources.push_back("NVML: " + std::to_string(found) + " GPU UUID(s), " + std::to_string(ids.migs.size()) + " MIG device(s)");
}

}  // namespace placebench::harness
