// ObjectReader's constructor (the object's place in messages) and its Kubernetes quantity reader.
#include "placebench/harness/text_clip.h"
#include <fmt/format.h>

#include <utility>

#include "k8s_object_reader.h"

namespace placebench::harness::admission::k8s {

ObjectReader::ObjectReader(std::string file, std::size_t index, const json& item) : file_(std::move(file)), item_(item) {
  where_ = fmt::format("items[{}]", index);
  if (item.is_object() && item.contains("kind") && item["kind"].is_string()) where_ += " (" + item["kind"].get<std::string>();
  else where_ += " (no kind";
  if (const json* n = at({"metadata", "name"}); n && n->is_string()) {
    const json* ns = at({"metadata", "namespace"});
    where_ += " " + (ns && ns->is_string() ? ns->get<std::string>() + "/" : std::string()) + n->get<std::string>();
  }
  where_ += ")";
}

// A Kubernetes quantity as a number ("2", "1500", "0.5", "100m", "16Gi" -> as a count of its unit).
double ObjectReader::quantity(const json& q, const std::string& name) const {
  if (q.is_number()) return q.get<double>();
  if (!q.is_string()) fail(fmt::format("{} is not a quantity", name));
  const std::string s = q.get<std::string>();
  std::size_t i = 0;
  double v = 0, scale = 1;
  bool dot = false, any = false;
  for (; i < s.size() && i < 40; ++i) {
    if (s[i] == '.' && !dot) {
      dot = true;
    } else if (s[i] >= '0' && s[i] <= '9') {
      any = true;
      if (dot) scale /= 10;
      v = v * 10 + (s[i] - '0');
    } else {
      break;
    }
  }
  static const std::pair<const char*, double> kSuffixes[] = {
      {"", 1}, {"m", 1e-3}, {"k", 1e3}, {"M", 1e6}, {"G", 1e9}, {"T", 1e12}, {"Ki", 1024.0}, {"Mi", 1048576.0},
      {"Gi", 1073741824.0}, {"Ti", 1099511627776.0}};
  const std::string suffix = s.substr(i);
  for (const auto& [text, factor] : kSuffixes)
    if (any && suffix == text) return v * scale * factor;
  fail(fmt::format("{} '{}' is not a quantity (2, 100m, 16Gi)", name, s.size() > 40 ? utf8_prefix(s, 40) + "..." : s));
}

}  // namespace placebench::harness::admission::k8s
