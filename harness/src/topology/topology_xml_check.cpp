// The topology XML check (see topology_xml_check.h). Rules follow hwloc 2.9's loader
// (hwloc/topology-xml.c, hwloc__xml_import_object): what it rejects with a message here gets a message
// naming the line, and what it trusts (sets on v2 objects, numbers, NUMA os_index) is checked.
#include "placebench/harness/topology/topology_xml_check.h"

#include <hwloc.h>

#include <map>
#include <memory>
#include <string>

#include "placebench/harness/errors.h"
#include "topology_xml_values.h"
#include "xml_tree.h"

namespace placebench::harness {
namespace {

using topology_xml::read_decimal;

constexpr std::size_t kMaxDepth = 256;            // real topologies nest ~20 levels
constexpr std::size_t kMaxBitmapWords = 8192;     // 262144 CPUs or NUMA nodes
constexpr std::uint64_t kMaxDistanceObjects = 4096;
const std::string kExportFix = "correct it, or export the topology again with `placebench topo --export FILE.xml` "
                               "or hwloc 2's `lstopo FILE.xml`";

using Bitmap = std::unique_ptr<hwloc_bitmap_s, void (*)(hwloc_bitmap_t)>;

Bitmap read_bitmap(const std::string& s) {  // s is already known to be a bitmap
  Bitmap b(hwloc_bitmap_alloc(), hwloc_bitmap_free);
  if (!b) throw std::bad_alloc();
  hwloc_bitmap_sscanf(b.get(), s.c_str());
  return b;
}

std::string quoted(const std::string& v) {
  return "\"" + (v.size() > 40 ? v.substr(0, 40) + "..." : v) + "\"";
}

// ---- values: every number and set hwloc reads from an attribute ----
bool os_index_value(std::string_view s) { return read_decimal(s, UINT32_MAX - 1).has_value(); }
bool u64_value(std::string_view s) { return read_decimal(s).has_value(); }
bool u32_value(std::string_view s) { return read_decimal(s, UINT32_MAX).has_value(); }
bool positive_u64_value(std::string_view s) {
  auto v = read_decimal(s);
  return v && *v > 0;
}
bool object_id_value(std::string_view s) { return s.substr(0, 3) == "obj" && positive_u64_value(s.substr(3)); }
bool associativity_value(std::string_view s) { return topology_xml::read_signed(s, -1, INT32_MAX).has_value(); }
bool cache_type_value(std::string_view s) { return read_decimal(s, 2).has_value(); }
bool flag_value(std::string_view s) { return read_decimal(s, 1).has_value(); }
bool bitmap_value(std::string_view s) { return topology_xml::is_bitmap(s, kMaxBitmapWords); }

struct ValueRule {
  std::string_view attr;
  bool (*ok)(std::string_view);
  std::string_view accepted;
};

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
    {"pci_busid", topology_xml::is_pci_busid, "domain:bus:device.function in hex, e.g. 0000:17:00.0"},
    {"pci_type", topology_xml::is_pci_type, "class [vendor:device] [subvendor:subdevice] revision in hex, e.g. 0302 [10de:2335] [10de:18be] a1"},
    {"pci_link_speed", topology_xml::is_decimal_fraction, "a decimal number such as 15.753846"},
    {"bridge_type", topology_xml::is_bridge_type, "upstream-downstream: 0-1 (host bridge) or 1-1 (PCI bridge)"},
    {"bridge_pci", topology_xml::is_bridge_pci, "domain:[first bus-last bus] in hex, e.g. 0000:[17-31]"},
    {"size", u64_value, kSizeAccepted},
    {"count", u64_value, "a decimal number, no sign, at most 18446744073709551615"},
};

enum class Kind { kNormal, kMemory, kIo, kMisc };

struct ObjectView {  // what an object's children are checked against
  hwloc_obj_type_t type;
  Kind kind;
  std::string type_name;
  int line;
  Bitmap complete_cpuset{nullptr, hwloc_bitmap_free};
  Bitmap complete_nodeset{nullptr, hwloc_bitmap_free};
};

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

class Checker {
 public:
  explicit Checker(const std::string& name) : name_(name) {}

  void document(const xml::Element& root) {
    if (root.name != "topology")
      fail(root.line, "not an hwloc topology XML (root element <" + root.name + ">, expected <topology>)",
           "give an hwloc XML file saved with `placebench topo --export FILE.xml` or `lstopo FILE.xml`");
    version(root);
    bool seen_root_object = false;
    for (const xml::Element& child : root.children) {
      if (child.name == "object") {
        if (seen_root_object)
          fail(child.line, "a second root <object> in <topology>", "a topology has one root object (the Machine); " + kExportFix);
        seen_root_object = true;
        object(child, nullptr);
      } else if (!seen_root_object) {
        fail(child.line, "<" + child.name + "> before the root <object>", "the Machine object comes first; " + kExportFix);
      } else if (major_ >= 2 && (child.name == "distances2" || child.name == "distances2hetero")) {
        distances(child);
      } else if (child.name == "cpukind") {
        if (const xml::Attribute* a = child.find("cpuset")) value(child, *a);
      }
    }
    if (!seen_root_object) fail(root.line, "<topology> has no root <object>", kExportFix);
    if (major_ >= 2 && numa_lines_.empty())
      fail(root.line, "the topology has no NUMANode object", "hwloc 2 needs at least one NUMA node; " + kExportFix);
    if (pus_ == 0) fail(root.line, "the topology has no PU object", "a topology needs at least one PU; " + kExportFix);
  }

 private:
  [[noreturn]] void fail(int line, const std::string& what, const std::string& fix) const {
    throw InputError(name_ + ":" + std::to_string(line) + ": " + what + "; " + fix);
  }
  std::string where(const xml::Element& e) const {
    const xml::Attribute* t = e.find("type");
    return "<" + e.name + (t ? " type=" + quoted(t->value) : "") + ">";
  }

  void version(const xml::Element& root) {
    const xml::Attribute* v = root.find("version");
    if (!v) return;  // hwloc 1.x wrote no version
    std::size_t dot = v->value.find('.');
    auto major = read_decimal(std::string_view(v->value).substr(0, dot), 999999);
    auto minor = dot == std::string::npos ? std::optional<std::uint64_t>() : read_decimal(std::string_view(v->value).substr(dot + 1), 999999);
    if (!major || !minor)
      fail(v->line, "topology version=" + quoted(v->value) + " is not MAJOR.MINOR, each below 1000000 (e.g. \"2.0\")", kExportFix);
    if (*major > 2)
      fail(v->line, "hwloc XML version " + v->value + " is newer than this hwloc (" HWLOC_VERSION ") reads",
           "export it as v2 (`lstopo --export-xml-flags v2 FILE.xml` with hwloc 3) or with hwloc 2.x");
    major_ = static_cast<int>(*major);
  }

  void value(const xml::Element& e, const xml::Attribute& a) const {
    for (const ValueRule& rule : kValueRules)
      if (rule.attr == a.name && !rule.ok(a.value))
        fail(a.line, where(e) + " attribute " + a.name + "=" + quoted(a.value) + " is not " + std::string(rule.accepted),
             kExportFix);
  }

  const xml::Attribute& required(const xml::Element& e, const char* attr, const std::string& why) const {
    const xml::Attribute* a = e.find(attr);
    if (!a) fail(e.line, where(e) + " has no " + attr + " attribute (" + why + ")", kExportFix);
    return *a;
  }

  Bitmap required_set(const xml::Element& e, const char* attr) const {
    return read_bitmap(required(e, attr, "hwloc 2 needs cpuset, complete_cpuset, nodeset and complete_nodeset on "
                                        "every normal and memory object; without them its loader crashes").value);
  }

  void subset(const xml::Element& e, const char* attr, hwloc_const_bitmap_t inner, hwloc_const_bitmap_t outer,
              const std::string& outer_name) const {
    if (!hwloc_bitmap_isincluded(inner, outer))
      fail(e.line, where(e) + " " + attr + "=" + quoted(e.find(attr)->value) + " is not inside " + outer_name, kExportFix);
  }

  ObjectView type_of(const xml::Element& e, bool is_root) const {
    if (e.attrs.empty() || e.attrs.front().name != "type") {
      if (!e.find("type")) fail(e.line, "<object> has no type attribute", "give each object type=\"Machine\", \"Package\", \"Core\", \"PU\", \"NUMANode\", ...");
      fail(e.find("type")->line, where(e) + ": type is not the first attribute", "hwloc reads the others by the type: move type=\"...\" first");
    }
    const std::string& t = e.attrs.front().value;
    ObjectView v{HWLOC_OBJ_TYPE_MAX, Kind::kNormal, t, e.line};
    if (hwloc_type_sscanf(t.c_str(), &v.type, nullptr, 0) < 0) {
      if (t == "Tile" || t == "Module" || (major_ < 2 && t == "Cache")) v.type = HWLOC_OBJ_GROUP;  // hwloc's own fallbacks
      else if (t == "System" && is_root) v.type = HWLOC_OBJ_MACHINE;
      else fail(e.attrs.front().line, "unknown object type " + quoted(t), "use an hwloc 2 type: Machine, Package, Die, Core, PU, Group, NUMANode, MemCache, L1Cache..L5Cache, L1iCache..L3iCache, Bridge, PCIDev, OSDev, Misc");
    }
    v.kind = hwloc_obj_type_is_memory(v.type) ? Kind::kMemory
             : hwloc_obj_type_is_io(v.type)   ? Kind::kIo
             : v.type == HWLOC_OBJ_MISC       ? Kind::kMisc
                                              : Kind::kNormal;
    return v;
  }

  // Where hwloc 2 allows each kind (hwloc__xml_import_object: "cannot be child of").
  void placement(const xml::Element& e, const ObjectView& v, const ObjectView* parent) const {
    if (!parent) {
      if (v.kind != Kind::kNormal) fail(e.line, "the root object is " + where(e), "the root object is the Machine; " + kExportFix);
      return;
    }
    bool ok = v.kind == Kind::kNormal   ? parent->kind == Kind::kNormal
              : v.kind == Kind::kMemory ? parent->kind == Kind::kNormal || parent->kind == Kind::kMemory
              : v.kind == Kind::kIo     ? parent->kind == Kind::kNormal || parent->kind == Kind::kIo
                                        : true;
    if (!ok)
      fail(e.line, where(e) + " (" + kind_name(v.kind) + ") inside <object type=" + quoted(parent->type_name) + "> at line " +
                       std::to_string(parent->line) + " (" + kind_name(parent->kind) + "), which hwloc 2 does not allow",
           "move it under a normal object; " + kExportFix);
  }

  void cache(const xml::Element& e, const ObjectView& v) const {
    if (!hwloc_obj_type_is_cache(v.type)) return;
    auto depth = read_decimal(required(e, "depth", "hwloc derives the cache level from it").value);
    const xml::Attribute* ct = e.find("cache_type");
    std::uint64_t cache_type = ct ? *read_decimal(ct->value) : 0;
    if (cache_type_for(*depth, cache_type) != v.type)
      fail(e.line, where(e) + " has depth=\"" + std::to_string(*depth) + "\" and cache_type=\"" + std::to_string(cache_type) +
                       "\", which is not a " + v.type_name + " (hwloc refuses it)",
           "give the cache level as depth (1 for L1) and cache_type 2 only for instruction caches");
  }

  // hwloc 2's sets (its v2 loader checks none of this; a missing complete_cpuset crashes it).
  void sets(const xml::Element& e, ObjectView& v, const ObjectView* parent) const {
    if (v.kind == Kind::kIo || v.kind == Kind::kMisc) {
      for (const char* attr : {"cpuset", "complete_cpuset", "nodeset", "complete_nodeset", "allowed_cpuset", "allowed_nodeset"})
        if (const xml::Attribute* a = e.find(attr))
          fail(a->line, where(e) + " has a " + attr + " attribute, but I/O and Misc objects have no sets in hwloc 2",
               "remove it; such objects take the locality of their parent");
      return;
    }
    Bitmap cpuset = required_set(e, "cpuset"), nodeset = required_set(e, "nodeset");
    v.complete_cpuset = required_set(e, "complete_cpuset");
    v.complete_nodeset = required_set(e, "complete_nodeset");
    subset(e, "cpuset", cpuset.get(), v.complete_cpuset.get(), "its complete_cpuset");
    subset(e, "nodeset", nodeset.get(), v.complete_nodeset.get(), "its complete_nodeset");
    if (!parent) {
      for (const char* attr : {"allowed_cpuset", "allowed_nodeset"})
        required(e, attr, "hwloc 2 writes the allowed sets on the root object");
      subset(e, "allowed_cpuset", read_bitmap(e.find("allowed_cpuset")->value).get(), v.complete_cpuset.get(), "its complete_cpuset");
      subset(e, "allowed_nodeset", read_bitmap(e.find("allowed_nodeset")->value).get(), v.complete_nodeset.get(), "its complete_nodeset");
    } else if (parent->complete_cpuset) {
      std::string of_parent = "the complete sets of its parent <object type=" + quoted(parent->type_name) + "> at line " +
                              std::to_string(parent->line);
      subset(e, "complete_cpuset", v.complete_cpuset.get(), parent->complete_cpuset.get(), of_parent);
      subset(e, "complete_nodeset", v.complete_nodeset.get(), parent->complete_nodeset.get(), of_parent);
    }
    if (v.type == HWLOC_OBJ_PU) {
      const xml::Attribute* os = e.find("os_index");
      int cpu = hwloc_bitmap_first(v.complete_cpuset.get());
      if (hwloc_bitmap_weight(v.complete_cpuset.get()) != 1 || (os && std::to_string(cpu) != os->value))
        fail(e.line, where(e) + " complete_cpuset=" + quoted(e.find("complete_cpuset")->value) +
                         " is not exactly its own CPU" + (os ? " (os_index " + os->value + ")" : std::string()),
             "a PU's cpuset holds its one CPU, bit os_index; " + kExportFix);
    }
  }

  void numa_node(const xml::Element& e, const ObjectView& v) {
    if (v.type != HWLOC_OBJ_NUMANODE) return;
    const xml::Attribute& os = required(e, "os_index", "it is the node's number, which numactl and the placement use");
    auto index = read_decimal(os.value);
    auto [it, inserted] = numa_lines_.emplace(*index, e.line);
    if (!inserted)
      fail(e.line, "two NUMANode objects have os_index=" + quoted(os.value) + " (lines " + std::to_string(it->second) +
                       " and " + std::to_string(e.line) + "): that changes which node is local and which remote",
           "give each NUMA node its own os_index; " + kExportFix);
    if (v.complete_nodeset &&
        (hwloc_bitmap_weight(v.complete_nodeset.get()) != 1 || !hwloc_bitmap_isset(v.complete_nodeset.get(), static_cast<unsigned>(*index))))
      fail(e.line, where(e) + " os_index=" + quoted(os.value) + " has complete_nodeset=" + quoted(e.find("complete_nodeset")->value) +
                       ", not the node itself", "a NUMA node's nodeset holds exactly its own os_index; " + kExportFix);
  }

  void object(const xml::Element& e, const ObjectView* parent) {
    ObjectView v = type_of(e, parent == nullptr);
    for (const xml::Attribute& a : e.attrs) value(e, a);
    if (v.type == HWLOC_OBJ_PU) ++pus_;
    if (major_ >= 2) {
      placement(e, v, parent);
      cache(e, v);
      sets(e, v, parent);
      if (v.type == HWLOC_OBJ_BRIDGE) required(e, "bridge_type", "without it hwloc takes a host bridge below a host bridge and asserts");
    }
    numa_node(e, v);
    Bitmap siblings(hwloc_bitmap_alloc(), hwloc_bitmap_free);  // union of the normal children's cpusets
    Bitmap previous(nullptr, hwloc_bitmap_free);                 // the last normal child's
    int previous_line = 0;
    bool in_objects = false;
    for (const xml::Element& child : e.children) {
      if (child.name != "object") {
        if (in_objects)
          fail(child.line, "<" + child.name + "> after the child objects of " + where(e) + " at line " + std::to_string(e.line),
               "hwloc reads an object's <info>, <page_type> and <userdata> before its children: move it up");
        special_child(e, v, child, parent == nullptr);
        continue;
      }
      in_objects = true;
      object(child, &v);
      if (v.kind == Kind::kNormal) {  // v2, and v1 files where they have sets
        const xml::Attribute* complete = child.find("complete_cpuset");
        if (type_of(child, false).kind != Kind::kNormal || !complete) continue;
        Bitmap cs = read_bitmap(complete->value);
        if (hwloc_bitmap_intersects(cs.get(), siblings.get()))
          fail(child.line, where(child) + " complete_cpuset=" + quoted(child.find("complete_cpuset")->value) +
                               " overlaps a sibling's under " + where(e) + " at line " + std::to_string(e.line),
               "the CPU-side children of an object split its CPUs; " + kExportFix);
        // hwloc reorders them with a multi-line "out-of-order XML topology" report on stderr.
        if (previous && hwloc_bitmap_compare_first(cs.get(), previous.get()) < 0)
          fail(child.line, where(child) + " complete_cpuset=" + quoted(child.find("complete_cpuset")->value) +
                               " comes after a sibling with higher CPUs (line " + std::to_string(previous_line) + ")",
               "hwloc writes the CPU-side children of an object in CPU order: " + kExportFix);
        hwloc_bitmap_or(siblings.get(), siblings.get(), cs.get());
        previous = std::move(cs);
        previous_line = child.line;
      }
    }
  }

  void special_child(const xml::Element& e, const ObjectView& v, const xml::Element& child, bool is_root) const {
    if (child.name == "info") {
      required(child, "name", "an <info> is a name and a value");
    } else if (child.name == "page_type") {
      if (v.type != HWLOC_OBJ_NUMANODE && !is_root)
        fail(child.line, "<page_type> inside " + where(e) + "; only NUMA nodes (and the root) have page types", kExportFix);
      for (const xml::Attribute& a : child.attrs) value(child, a);
    } else if (child.name != "userdata" && !(major_ < 2 && child.name == "distances")) {
      fail(child.line, "unknown element <" + child.name + "> inside " + where(e),
           "an object holds <object>, <info>, <page_type> and <userdata> only; " + kExportFix);
    }
  }

  void distances(const xml::Element& d) const {
    bool hetero = d.name == "distances2hetero";
    auto nbobjs = read_decimal(required(d, "nbobjs", "the number of objects in the matrix").value, kMaxDistanceObjects);
    if (!nbobjs || *nbobjs == 0)
      fail(d.find("nbobjs")->line, "<" + d.name + "> nbobjs=" + quoted(d.find("nbobjs")->value) + " is not a number from 1 to " +
                                       std::to_string(kMaxDistanceObjects), kExportFix);
    if (!positive_u64_value(required(d, "kind", "what the values measure").value))
      fail(d.line, "<" + d.name + "> kind=" + quoted(d.find("kind")->value) + " is not a positive decimal number", kExportFix);
    hwloc_obj_type_t type;
    if (!hetero) {
      if (hwloc_type_sscanf(required(d, "type", "the type of the objects").value.c_str(), &type, nullptr, 0) < 0)
        fail(d.line, "<" + d.name + "> type=" + quoted(d.find("type")->value) + " is not an hwloc object type", kExportFix);
      const std::string& indexing = required(d, "indexing", "os or gp").value;
      if (indexing != "os" && indexing != "gp") fail(d.line, "<" + d.name + "> indexing=" + quoted(indexing) + " is not os or gp", kExportFix);
    }
    std::uint64_t indexes = 0, values = 0;
    for (const xml::Element& c : d.children) {
      if (c.name != "indexes" && c.name != "u64values") fail(c.line, "unknown element <" + c.name + "> inside <" + d.name + ">", kExportFix);
      auto length = read_decimal(required(c, "length", "the length of its text").value, INT32_MAX);
      if (!length || *length != c.text.size())
        fail(c.line, "<" + c.name + "> length=" + quoted(c.find("length")->value) + " is not the length of its text (" +
                         std::to_string(c.text.size()) + ")", kExportFix);
      std::size_t pos = 0;
      while ((pos = c.text.find_first_not_of(" \t\r\n", pos)) != std::string::npos) {
        std::size_t end = c.text.find_first_of(" \t\r\n", pos);
        std::string token = c.text.substr(pos, end == std::string::npos ? std::string::npos : end - pos);
        pos = end;
        std::string number = token;
        if (c.name == "indexes" && hetero) {
          std::size_t colon = token.find(':');
          hwloc_obj_type_t t;
          if (colon == std::string::npos || hwloc_type_sscanf(token.substr(0, colon).c_str(), &t, nullptr, 0) < 0) number.clear();
          else number = token.substr(colon + 1);
        }
        if (!read_decimal(number)) fail(c.line, "<" + c.name + "> entry " + quoted(token) + " is not " +
                                                    (c.name == "indexes" && hetero ? "TYPE:INDEX" : "a decimal number"), kExportFix);
        ++(c.name == "indexes" ? indexes : values);
        if (pos == std::string::npos) break;
      }
    }
    if (indexes != *nbobjs || values != *nbobjs * *nbobjs)
      fail(d.line, "<" + d.name + "> has " + std::to_string(indexes) + " indexes and " + std::to_string(values) +
                       " values; nbobjs=\"" + std::to_string(*nbobjs) + "\" needs " + std::to_string(*nbobjs) + " and " +
                       std::to_string(*nbobjs * *nbobjs), kExportFix);
  }

  const std::string& name_;
  int major_ = 1;
  std::map<std::uint64_t, int> numa_lines_;  // NUMA os_index -> line
  unsigned pus_ = 0;
};

}  // namespace

void check_topology_xml(std::string_view text, const std::string& name) {
  xml::Element root = xml::parse_document(text, name, kMaxDepth);
  Checker(name).document(root);
}

}  // namespace placebench::harness
