// Formatting helpers shared by the CUDA and no-CUDA builds of the device runtime query.
#include "placebench/kernels/device_runtime.h"

#include <cctype>
#include <cstdio>

namespace placebench::kernels {

std::string format_cuda_version(int version) {
  if (version <= 0) return "none";
  char buf[32];
  std::snprintf(buf, sizeof buf, "%d.%d", version / 1000, (version % 1000) / 10);
  return buf;
}

std::string normalize_pci_bus_id(const std::string& bus_id) {
  std::string s;
  for (char c : bus_id) s.push_back(static_cast<char>(std::tolower(static_cast<unsigned char>(c))));
  // domain:bus:dev.fn; CUDA prints an 8-digit domain, hwloc and sysfs a 4-digit one.
  auto colon = s.find(':');
  if (colon == std::string::npos || s.find(':', colon + 1) == std::string::npos) return s;
  std::string domain = s.substr(0, colon);
  while (domain.size() > 4 && domain.front() == '0') domain.erase(domain.begin());
  while (domain.size() < 4) domain.insert(domain.begin(), '0');
  return domain + s.substr(colon);
}

}  // namespace placebench::kernels
