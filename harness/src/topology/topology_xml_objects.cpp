// The Checker's rules for each <object>: its type and kind, where hwloc 2 allows it, cache levels, its sets
// (inside its parent's, a PU's its own CPU, a NUMA node's its own node), and the order of its children.
#include <hwloc.h>

#include <string>

#include "topology_xml_checker.h"
#include "topology_xml_values.h"

namespace placebench::harness::topology_xml {

ObjectView Checker::type_of(const xml::Element& e, bool is_root) const {
  if (e.attrs.empty() || e.attrs.front().name != "type") {
    if (!e.find("type")) fail(e.line, "<object> has no type attribute", "give each object type=\"Machine\", \"Package\", \"Core\", \"PU\", \"NUMANode\", ...");
    fail(e.find("type")->line, where(e) + ": type is not the first attribute", "hwloc reads the others by the type: move type=\"...\" first");
  }
  const std::string& t = e.attrs.front().value;
  ObjectView v{HWLOC_OBJ_TYPE_MAX, Kind::kNormal, t, e.line};
  if (hwloc_type_sscanf(t.c_str(), &v.type, nullptr, 0) < 0) {
    if (t == "Tile" || t == "Module" || (major_ < 2 && t == "Cache")) v.type = HWLOC_OBJ_GROUP;  // hwloc's own fallbacks
    else if (t == "System" && is_root) v.type = HWLOC_OBJ_MACHINE;
    else fail(e.attrs.front().line, "unknown object type " + clipped_quote(t), "use an hwloc 2 type: Machine, Package, Die, Core, PU, Group, NUMANode, MemCache, L1Cache..L5Cache, L1iCache..L3iCache, Bridge, PCIDev, OSDev, Misc");
  }
  v.kind = hwloc_obj_type_is_memory(v.type) ? Kind::kMemory
           : hwloc_obj_type_is_io(v.type)   ? Kind::kIo
           : v.type == HWLOC_OBJ_MISC       ? Kind::kMisc
                                            : Kind::kNormal;
  return v;
}

// Where hwloc 2 allows each kind (hwloc__xml_import_object: "cannot be child of").
void Checker::placement(const xml::Element& e, const ObjectView& v, const ObjectView* parent) const {
  if (!parent) {
    if (v.kind != Kind::kNormal) fail(e.line, "the root object is " + where(e), "the root object is the Machine; " + kExportFix);
    return;
  }
  bool ok = v.kind == Kind::kNormal   ? parent->kind == Kind::kNormal
            : v.kind == Kind::kMemory ? parent->kind == Kind::kNormal || parent->kind == Kind::kMemory
            : v.kind == Kind::kIo     ? parent->kind == Kind::kNormal || parent->kind == Kind::kIo
                                      : true;
  if (!ok)
    fail(e.line, where(e) + " (" + kind_name(v.kind) + ") inside <object type=" + clipped_quote(parent->type_name) + "> at line " +
                     std::to_string(parent->line) + " (" + kind_name(parent->kind) + "), which hwloc 2 does not allow",
         "move it under a normal object; " + kExportFix);
}

void Checker::cache(const xml::Element& e, const ObjectView& v) const {
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
void Checker::sets(const xml::Element& e, ObjectView& v, const ObjectView* parent) const {
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
    std::string of_parent = "the complete sets of its parent <object type=" + clipped_quote(parent->type_name) + "> at line " +
                            std::to_string(parent->line);
    subset(e, "complete_cpuset", v.complete_cpuset.get(), parent->complete_cpuset.get(), of_parent);
    subset(e, "complete_nodeset", v.complete_nodeset.get(), parent->complete_nodeset.get(), of_parent);
  }
  if (v.type == HWLOC_OBJ_PU) {
    const xml::Attribute* os = e.find("os_index");
    int cpu = hwloc_bitmap_first(v.complete_cpuset.get());
    if (hwloc_bitmap_weight(v.complete_cpuset.get()) != 1 || (os && std::to_string(cpu) != os->value))
      fail(e.line, where(e) + " complete_cpuset=" + clipped_quote(e.find("complete_cpuset")->value) +
                       " is not exactly its own CPU" + (os ? " (os_index " + os->value + ")" : std::string()),
           "a PU's cpuset holds its one CPU, bit os_index; " + kExportFix);
  }
}

void Checker::numa_node(const xml::Element& e, const ObjectView& v) {
  if (v.type != HWLOC_OBJ_NUMANODE) return;
  const xml::Attribute& os = required(e, "os_index", "it is the node's number, which numactl and the placement use");
  auto index = read_decimal(os.value);
  auto [it, inserted] = numa_lines_.emplace(*index, e.line);
  if (!inserted)
    fail(e.line, "two NUMANode objects have os_index=" + clipped_quote(os.value) + " (lines " + std::to_string(it->second) +
                     " and " + std::to_string(e.line) + "): that changes which node is local and which remote",
         "give each NUMA node its own os_index; " + kExportFix);
  if (v.complete_nodeset &&
      (hwloc_bitmap_weight(v.complete_nodeset.get()) != 1 || !hwloc_bitmap_isset(v.complete_nodeset.get(), static_cast<unsigned>(*index))))
    fail(e.line, where(e) + " os_index=" + clipped_quote(os.value) + " has complete_nodeset=" + clipped_quote(e.find("complete_nodeset")->value) +
                     ", not the node itself", "a NUMA node's nodeset holds exactly its own os_index; " + kExportFix);
}

void Checker::object(const xml::Element& e, const ObjectView* parent) {
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
        fail(child.line, where(child) + " complete_cpuset=" + clipped_quote(child.find("complete_cpuset")->value) +
                             " overlaps a sibling's under " + where(e) + " at line " + std::to_string(e.line),
             "the CPU-side children of an object split its CPUs; " + kExportFix);
      // hwloc reorders them with a multi-line "out-of-order XML topology" report on stderr.
      if (previous && hwloc_bitmap_compare_first(cs.get(), previous.get()) < 0)
        fail(child.line, where(child) + " complete_cpuset=" + clipped_quote(child.find("complete_cpuset")->value) +
                             " comes after a sibling with higher CPUs (line " + std::to_string(previous_line) + ")",
             "hwloc writes the CPU-side children of an object in CPU order: " + kExportFix);
      hwloc_bitmap_or(siblings.get(), siblings.get(), cs.get());
      previous = std::move(cs);
      previous_line = child.line;
    }
  }
}

}  // namespace placebench::harness::topology_xml
