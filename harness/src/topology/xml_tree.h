// A small, strict XML reader for topology files: enough XML (elements, attributes, text, entities,
// comments, CDATA, one DOCTYPE) to check a file before hwloc's loader sees it, with the line of each
// element and attribute for the messages. Not a general XML library: no namespaces, no DTD expansion.
#pragma once
#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace placebench::harness::xml {

struct Attribute {
  std::string name;
  std::string value;  // entities decoded
  int line = 0;
};

struct Element {
  std::string name;
  int line = 0;
  std::vector<Attribute> attrs;  // document order, no duplicates
  std::string text;              // character data directly inside, entities decoded
  std::vector<Element> children;

  const Attribute* find(std::string_view attr) const;
};

// Parses a whole document into its root element. Throws InputError "NAME:LINE: what; how to fix" for
// anything that is not well-formed XML, or nested deeper than max_depth elements.
Element parse_document(std::string_view text, const std::string& name, std::size_t max_depth);

}  // namespace placebench::harness::xml
