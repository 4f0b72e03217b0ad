// The values hwloc reads from attributes (every number and set), with what each accepts, and the object
// kinds; used by the Checker (topology_xml_checker.h).
#include "placebench/harness/text_clip.h"
#include <new>

#include "topology_xml_checker.h"
#include "topology_xml_values.h"

namespace placebench::harness::topology_xml {
namespace {

bool os_index_value(std::string_view s) { return read_decimal(s, UINT32_MAX - 1).has_value(); }
bool u64_value(std::string_view s) { return read_decimal(s).has_value(); }
bool u32_value(std::string_view s) { return read_decimal(s, UINT32_MAX).has_value(); }
bool object_id_value(std::string_view s) { return s.substr(0, 3) == "obj" && positive_u64_value(s.substr(3)); }
bool associativity_value(std::string_view s) { return read_signed(s, -1, INT32_MAX).has_value(); }
bool cache_type_value(std::string_view s) { return read_decimal(s, 2).has_value(); }
bool flag_value(std::string_view s) { return read_decimal(s, 1).has_value(); }
bool bitmap_value(std::string_view s) { return is_bitmap(s, kMaxBitmapWords); }

constexpr std::string_view kBitmapAccepted = "an hwloc bitmap: comma-separated 32-bit hex words such as 0x000000ff or 0x0000ffff,0xff000000";
constexpr std::string_view kSizeAccepted = "a size in bytes: decimal digits, no sign, at most 18446744073709551615";
constexpr ValueRule kValueRules[] = {
    {"os_index", os_index_value, "a decimal number from 0 to 4294967294"},
    {"gp_index", positive_u64_value, "a decimal number from 1 to 18446744073709551615"},
    {"id", object_id_value, "\"obj\" then a decimal number from 1"},
    {"cpuset", bitmap_value, kBitmapAccepted},
    {"complete_cpuset", bitmap_value, kBitmapAccepted},
    {"allowed_cpuset", bitmap_value, kBitmapAccepted},
    {"nodeset", bitmap_value, kBitmapAccepted},
    {"complete_nodeset", bitmap_value, kBitmapAccepted},
    {"allowed_nodeset", bitmap_value, kBitmapAccepted},
    {"local_memory", u64_value, kSizeAccepted},
    {"cache_size", u64_value, kSizeAccepted},
    {"cache_linesize", u32_value, "a decimal number of bytes from 0 to 4294967295"},
    {"cache_associativity", associativity_value, "-1 (fully associative) or a decimal number from 0"},
    {"cache_type", cache_type_value, "0 (unified), 1 (data) or 2 (instruction)"},
    {"depth", u32_value, "a decimal number from 0 to 4294967295"},
    {"kind", u32_value, "a decimal number from 0 to 4294967295"},
    {"subkind", u32_value, "a decimal number from 0 to 4294967295"},
    {"dont_merge", flag_value, "0 or 1"},
    {"osdev_type", u32_value, "a decimal number from 0 to 4294967295"},
    {"pci_busid", is_pci_busid, "domain:bus:device.function in hex, e.g. 0000:17:00.0"},
    {"pci_type", is_pci_type, "class [vendor:device] [subvendor:subdevice] revision in hex, e.g. 0302 [10de:2335] [10de:18be] a1"},
    {"pci_link_speed", is_decimal_fraction, "a decimal number such as 15.753846"},
    {"bridge_type", is_bridge_type, "upstream-downstream: 0-1 (host bridge) or 1-1 (PCI bridge)"},
    {"bridge_pci", is_bridge_pci, "domain:[first bus-last bus] in hex, e.g. 0000:[17-31]"},
    {"size", u64_value, kSizeAccepted},
    {"count", u64_value, "a decimal number, no sign, at most 18446744073709551615"},
};

}  // namespace

Bitmap read_bitmap(const std::string& s) {  // s is already known to be a bitmap
  Bitmap b(hwloc_bitmap_alloc(), hwloc_bitmap_free);
  if (!b) throw std::bad_alloc();
  hwloc_bitmap_sscanf(b.get(), s.c_str());
  return b;
}

std::string clipped_quote(const std::string& v) {
  return "\"" + (v.size() > 40 ? utf8_prefix(v, 40) + "..." : v) + "\"";
}

bool positive_u64_value(std::string_view s) {
  auto v = read_decimal(s);
  return v && *v > 0;
}

const ValueRule* broken_value_rule(std::string_view attr, std::string_view value) {
  for (const ValueRule& rule : kValueRules)
    if (rule.attr == attr && !rule.ok(value)) return &rule;
  return nullptr;
}

const char* kind_name(Kind k) {
  switch (k) {
    case Kind::kNormal: return "a normal (CPU-side) object";
    case Kind::kMemory: return "a memory object";
    case Kind::kIo: return "an I/O object";
    case Kind::kMisc: return "a Misc object";
  }
  return "";
}

// The cache type hwloc derives from depth and cache_type (hwloc_cache_type_by_depth_type).
hwloc_obj_type_t cache_type_for(std::uint64_t depth, std::uint64_t cache_type) {
  static constexpr hwloc_obj_type_t kData[] = {HWLOC_OBJ_L1CACHE, HWLOC_OBJ_L2CACHE, HWLOC_OBJ_L3CACHE,
                                               HWLOC_OBJ_L4CACHE, HWLOC_OBJ_L5CACHE};
  static constexpr hwloc_obj_type_t kInstruction[] = {HWLOC_OBJ_L1ICACHE, HWLOC_OBJ_L2ICACHE, HWLOC_OBJ_L3ICACHE};
  if (cache_type == HWLOC_OBJ_CACHE_INSTRUCTION) return depth >= 1 && depth <= 3 ? kInstruction[depth - 1] : HWLOC_OBJ_TYPE_MAX;
  return depth >= 1 && depth <= 5 ? kData[depth - 1] : HWLOC_OBJ_TYPE_MAX;
}

}  // namespace placebench::harness::topology_xml
