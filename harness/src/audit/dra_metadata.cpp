// The DRA drivers' device metadata files inside the container (see dra.h): a stream of DeviceMetadata
// objects, one per API version, of which the first this reads is taken (the same data in each).
#include <filesystem>
#include <fmt/format.h>
#include <nlohmann/json.hpp>
#include <sstream>
#include <system_error>

#include "dra_attributes.h"
#include "placebench/harness/audit/dra.h"
#include "placebench/harness/errors.h"
#include "placebench/harness/input_limits.h"
#include "placebench/harness/text_clip.h"

namespace placebench::harness {
namespace {

using nlohmann::json;
namespace fs = std::filesystem;

constexpr std::uint64_t kMaxMetadataBytes = 1u << 20;  // a file of a few devices is a few KiB
constexpr std::size_t kMaxMetadataFiles = 1024;
const char* const kFix = "the DRA driver writes it (KEP-5304); compare with `kubectl get resourceclaims -o json`";

std::vector<DraGpu> devices_of(const json& doc, const std::string& path) {
  std::vector<DraGpu> out;
  const json meta = doc.value("metadata", json::object());
  const std::string ns = dra_string(meta, "namespace"), name = dra_string(meta, "name");
  const json requests = doc.value("requests", json::array());
  if (!requests.is_array()) throw InputError(path + ": requests: expected a list; " + kFix);
  for (const json& r : requests) {
    const json devices = r.is_object() ? r.value("devices", json::array()) : json::array();
    if (!devices.is_array()) throw InputError(path + ": requests[].devices: expected a list; " + kFix);
    for (const json& d : devices) {
      DraGpu g;
      g.claim = ns + "/" + name;
      g.request = dra_string(r, "name");
      g.driver = dra_string(d, "driver");
      g.pool = dra_string(d, "pool");
      g.device = dra_string(d, "name");
      DraAttributes a = read_dra_attributes(d.is_object() ? d.value("attributes", json::object()) : json::object());
      g.uuid = a.uuid;
      g.pci_bus_id = a.pci_bus_id;
      g.numa_node = a.numa_node;
      g.pcie_root = a.pcie_root;
      if (g.uuid.empty() && g.pci_bus_id.empty() && !g.numa_node)
        g.problem = "its metadata has no uuid, pcieBusID/pciBusID or numaNode attribute";
      g.source = path;
      g.container_own = true;
      out.push_back(std::move(g));
    }
  }
  return out;
}

}  // namespace

std::vector<DraGpu> parse_dra_metadata(const std::string& text, const std::string& path, std::vector<std::string>& notes) {
  std::istringstream in(text);
  std::vector<std::string> versions;
  while (true) {
    in >> std::ws;
    if (in.peek() == std::char_traits<char>::eof()) break;
    json doc;
    try {
      in >> doc;
    } catch (const json::exception& e) {
      throw InputError(fmt::format("{}: not a stream of DeviceMetadata JSON objects ({}); {}", path, utf8_prefix(e.what(), 200), kFix));
    }
    const std::string version = dra_string(doc, "apiVersion");
    if (dra_string(doc, "kind") == "DeviceMetadata" && version == kDeviceMetadataVersion) return devices_of(doc, path);
    versions.push_back(version.empty() ? "(no apiVersion)" : version);
  }
  if (versions.empty()) {
    notes.push_back(path + " is empty: its driver writes the metadata later, or did not write it");
    return {};
  }
  std::string list;
  for (const std::string& v : versions) list += (list.empty() ? "" : ", ") + v;
  notes.push_back(fmt::format("{}: no DeviceMetadata of {} (found {}): its devices are not read", path, kDeviceMetadataVersion, list));
  return {};
}

std::vector<DraGpu> read_dra_metadata_dir(const std::string& dir, std::vector<std::string>& warnings, std::vector<std::string>& notes) {
  std::vector<DraGpu> out;
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) return out;
  std::size_t files = 0;
  // Three fixed levels (kind, claim, request): no walk that a link could make endless.
  for (const char* kind : {"resourceclaims", "resourceclaimtemplates"}) {
    const fs::path base = fs::path(dir) / kind;
    if (!fs::is_directory(base, ec)) continue;
    for (const fs::directory_entry& claim : fs::directory_iterator(base, ec)) {
      if (!claim.is_directory(ec)) continue;
      for (const fs::directory_entry& request : fs::directory_iterator(claim.path(), ec)) {
        if (!request.is_directory(ec)) continue;
        for (const fs::directory_entry& file : fs::directory_iterator(request.path(), ec)) {
          const std::string name = file.path().filename().string();
          if (name.size() < 14 || name.compare(name.size() - 14, 14, "-metadata.json") != 0) continue;
          if (++files > kMaxMetadataFiles) {
            warnings.push_back(fmt::format("{}: more than {} metadata files; the rest are not read", dir, kMaxMetadataFiles));
            return out;
          }
          try {
            std::vector<DraGpu> got = parse_dra_metadata(read_input_file(file.path().string(), kFix, kMaxMetadataBytes),
                                                         file.path().string(), notes);
            out.insert(out.end(), got.begin(), got.end());
          } catch (const InputError& e) {  // one damaged file: a warning, the rest still read
            warnings.push_back(e.what());
          }
        }
      }
    }
  }
  return out;
}

}  // namespace placebench::harness
