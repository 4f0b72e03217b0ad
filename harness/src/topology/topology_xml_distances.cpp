// The Checker's rule for hwloc 2's distance matrices (<distances2>, <distances2hetero>): the object count,
// kind, type and indexing, and exactly nbobjs indexes and nbobjs^2 values, each a decimal number.
#include <hwloc.h>

#include <string>

#include "topology_xml_checker.h"
#include "topology_xml_values.h"

namespace placebench::harness::topology_xml {

void Checker::distances(const xml::Element& d) const {
  bool hetero = d.name == "distances2hetero";
  auto nbobjs = read_decimal(required(d, "nbobjs", "the number of objects in the matrix").value, kMaxDistanceObjects);
  if (!nbobjs || *nbobjs == 0)
    fail(d.find("nbobjs")->line, "<" + d.name + "> nbobjs=" + clipped_quote(d.find("nbobjs")->value) + " is not a number from 1 to " +
                                     std::to_string(kMaxDistanceObjects), kExportFix);
  if (!positive_u64_value(required(d, "kind", "what the values measure").value))
    fail(d.line, "<" + d.name + "> kind=" + clipped_quote(d.find("kind")->value) + " is not a positive decimal number", kExportFix);
  hwloc_obj_type_t type;
  if (!hetero) {
    if (hwloc_type_sscanf(required(d, "type", "the type of the objects").value.c_str(), &type, nullptr, 0) < 0)
      fail(d.line, "<" + d.name + "> type=" + clipped_quote(d.find("type")->value) + " is not an hwloc object type", kExportFix);
    const std::string& indexing = required(d, "indexing", "os or gp").value;
    if (indexing != "os" && indexing != "gp") fail(d.line, "<" + d.name + "> indexing=" + clipped_quote(indexing) + " is not os or gp", kExportFix);
  }
  std::uint64_t indexes = 0, values = 0;
  for (const xml::Element& c : d.children) {
    if (c.name != "indexes" && c.name != "u64values") fail(c.line, "unknown element <" + c.name + "> inside <" + d.name + ">", kExportFix);
    auto length = read_decimal(required(c, "length", "the length of its text").value, INT32_MAX);
    if (!length || *length != c.text.size())
      fail(c.line, "<" + c.name + "> length=" + clipped_quote(c.find("length")->value) + " is not the length of its text (" +
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
      if (!read_decimal(number)) fail(c.line, "<" + c.name + "> entry " + clipped_quote(token) + " is not " +
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

}  // namespace placebench::harness::topology_xml
