// Validating YAML input (configs, references) with errors that name file, line and key, shared by the
// runner's config parser and `check`'s reference files.
#pragma once
#include <yaml-cpp/yaml.h>

#include <initializer_list>
#include <string>
#include <vector>

namespace placebench::harness::detail {

struct YamlContext {
  std::string file;
  [[noreturn]] void fail(const YAML::Node& node, const std::string& key, const std::string& problem) const;
  // Every key of the map must be one of `allowed`.
  void check_keys(const YAML::Node& map, const std::string& where, std::initializer_list<const char*> allowed) const;
  std::string text(const YAML::Node& node, const std::string& key) const;
  long long integer(const YAML::Node& node, const std::string& key, long long min, long long max) const;
  double number(const YAML::Node& node, const std::string& key, double min, double max) const;
  bool boolean(const YAML::Node& node, const std::string& key) const;
  std::string one_of(const YAML::Node& node, const std::string& key, const std::vector<std::string>& accepted) const;
};

}  // namespace placebench::harness::detail
