// The topology XML check (see topology_xml_check.h). Rules follow hwloc 2.9's loader
// (hwloc/topology-xml.c, hwloc__xml_import_object): what it rejects with a message here gets a message
// naming the line, and what it trusts (sets on v2 objects, numbers, NUMA os_index) is checked.
#include "placebench/harness/topology/topology_xml_check.h"

#include <hwloc.h>

#include <string>

#include "topology_xml_checker.h"
#include "topology_xml_values.h"
#include "xml_tree.h"

namespace placebench::harness {
namespace topology_xml {

void Checker::document(const xml::Element& root) {
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

void Checker::version(const xml::Element& root) {
  const xml::Attribute* v = root.find("version");
  if (!v) return;  // hwloc 1.x wrote no version
  std::size_t dot = v->value.find('.');
  auto major = read_decimal(std::string_view(v->value).substr(0, dot), 999999);
  auto minor = dot == std::string::npos ? std::optional<std::uint64_t>() : read_decimal(std::string_view(v->value).substr(dot + 1), 999999);
  if (!major || !minor)
    fail(v->line, "topology version=" + clipped_quote(v->value) + " is not MAJOR.MINOR, each below 1000000 (e.g. \"2.0\")", kExportFix);
  if (*major > 2)
    fail(v->line, "hwloc XML version " + v->value + " is newer than this hwloc (" HWLOC_VERSION ") reads",
         "export it as v2 (`lstopo --export-xml-flags v2 FILE.xml` with hwloc 3) or with hwloc 2.x");
  major_ = static_cast<int>(*major);
}

void Checker::value(const xml::Element& e, const xml::Attribute& a) const {
  if (const ValueRule* rule = broken_value_rule(a.name, a.value))
    fail(a.line, where(e) + " attribute " + a.name + "=" + clipped_quote(a.value) + " is not " + std::string(rule->accepted),
         kExportFix);
}

void Checker::special_child(const xml::Element& e, const ObjectView& v, const xml::Element& child, bool is_root) const {
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

}  // namespace topology_xml

void check_topology_xml(std::string_view text, const std::string& name) {
  xml::Element root = xml::parse_document(text, name, topology_xml::kMaxDepth);
  topology_xml::Checker(name).document(root);
}

}  // namespace placebench::harness
