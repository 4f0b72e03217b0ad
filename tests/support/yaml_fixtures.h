// YAML documents that tests build rather than commit: a "billion laughs" of nested aliases.
#pragma once
#include <string>

namespace placebench::testing {

// Keys l0..l<depth> under `indent`, each a list of ten aliases of the one before: a few hundred bytes
// of text, 10^(depth+1) values once every alias is expanded.
inline std::string alias_bomb(const std::string& indent, int depth) {
  std::string text = indent + "l0: &l0 [x, x, x, x, x, x, x, x, x, x]\n";
  for (int i = 1; i <= depth; ++i) {
    std::string prev = "*l" + std::to_string(i - 1);
    text += indent + "l" + std::to_string(i) + ": &l" + std::to_string(i) + " [" + prev;
    for (int k = 1; k < 10; ++k) text += ", " + prev;
    text += "]\n";
  }
  return text;
}

}  // namespace placebench::testing
