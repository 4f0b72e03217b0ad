// Internal to the topology XML check (topology_xml_check.cpp and its parts): the attribute value rules, the
// object kinds, and the Checker that walks the parsed document. Rules follow hwloc 2.9's loader
// (hwloc/topology-xml.c, hwloc__xml_import_object).
#pragma once
#include <hwloc.h>

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <string_view>

#include "placebench/harness/errors.h"
#include "xml_tree.h"

namespace placebench::harness::topology_xml {

constexpr std::size_t kMaxDepth = 256;            // real topologies nest ~20 levels
constexpr std::size_t kMaxBitmapWords = 8192;     // 262144 CPUs or NUMA nodes
constexpr std::uint64_t kMaxDistanceObjects = 4096;
inline const std::string kExportFix = "correct it, or export the topology again with `placebench topo --export FILE.xml` "
                                      "or hwloc 2's `lstopo FILE.xml`";

using Bitmap = std::unique_ptr<hwloc_bitmap_s, void (*)(hwloc_bitmap_t)>;

Bitmap read_bitmap(const std::string& s);  // s is already known to be a bitmap
std::string clipped_quote(const std::string& v);   // at most 40 characters of v, in double quotes

struct ValueRule {
  std::string_view attr;
  bool (*ok)(std::string_view);
  std::string_view accepted;
};

// The first rule for attribute `attr` that `value` breaks; nullptr when it breaks none (or none is for it).
const ValueRule* broken_value_rule(std::string_view attr, std::string_view value);
bool positive_u64_value(std::string_view s);

enum class Kind { kNormal, kMemory, kIo, kMisc };

struct ObjectView {  // what an object's children are checked against
  hwloc_obj_type_t type;
  Kind kind;
  std::string type_name;
  int line;
  Bitmap complete_cpuset{nullptr, hwloc_bitmap_free};
  Bitmap complete_nodeset{nullptr, hwloc_bitmap_free};
};

const char* kind_name(Kind k);
// The cache type hwloc derives from depth and cache_type (hwloc_cache_type_by_depth_type).
hwloc_obj_type_t cache_type_for(std::uint64_t depth, std::uint64_t cache_type);

// The document's checks, split by what they check: the document, its versions and attribute values
// (topology_xml_check.cpp), objects, their placement and sets (topology_xml_objects.cpp), and distance
// matrices (topology_xml_distances.cpp).
class Checker {
 public:
  explicit Checker(const std::string& name) : name_(name) {}
  void document(const xml::Element& root);

 private:
  [[noreturn]] void fail(int line, const std::string& what, const std::string& fix) const {
    throw InputError(name_ + ":" + std::to_string(line) + ": " + what + "; " + fix);
  }
  std::string where(const xml::Element& e) const {
    const xml::Attribute* t = e.find("type");
    return "<" + e.name + (t ? " type=" + clipped_quote(t->value) : "") + ">";
  }

  void version(const xml::Element& root);
  void value(const xml::Element& e, const xml::Attribute& a) const;

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
      fail(e.line, where(e) + " " + attr + "=" + clipped_quote(e.find(attr)->value) + " is not inside " + outer_name, kExportFix);
  }

  ObjectView type_of(const xml::Element& e, bool is_root) const;

  // Where hwloc 2 allows each kind (hwloc__xml_import_object: "cannot be child of").
  void placement(const xml::Element& e, const ObjectView& v, const ObjectView* parent) const;

  void cache(const xml::Element& e, const ObjectView& v) const;

  // hwloc 2's sets (its v2 loader checks none of this; a missing complete_cpuset crashes it).
  void sets(const xml::Element& e, ObjectView& v, const ObjectView* parent) const;

  void numa_node(const xml::Element& e, const ObjectView& v);

  void object(const xml::Element& e, const ObjectView* parent);

  void special_child(const xml::Element& e, const ObjectView& v, const xml::Element& child, bool is_root) const;

  void distances(const xml::Element& d) const;

  const std::string& name_;
  int major_ = 1;
  std::map<std::uint64_t, int> numa_lines_;  // NUMA os_index -> line
  unsigned pus_ = 0;
};

}  // namespace placebench::harness::topology_xml
