// Validating YAML input (configs, references, inventories) with errors that name file, line and key, shared
// by the runner's config parser, `check`'s reference files and `feasible`'s inventories; and YAML as JSON with its lines kept, for input
// that is stored as JSON and checked there (a class's decision block).
#pragma once
#include <yaml-cpp/yaml.h>

#include <initializer_list>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace placebench::harness::detail {

// The one way harness parses a YAML document: syntax errors, documents that expand (aliases included)
// past max(hostpipe::kMaxYamlNodes, the text's size in bytes) values, list or mapping keys and non-UTF-8 text are InputErrors
// "FILE:LINE: [KEY: ]problem". `format` names what the file should be ("YAML", "YAML or JSON").
YAML::Node load_yaml_document(const std::string& text, const std::string& file, const char* format = "YAML");

// A yaml-cpp exception met while reading `file` (a conversion the checks did not foresee) as an
// InputError at its line, naming `key` when known: never a raw library message.
[[noreturn]] void throw_yaml_input_error(const YAML::Exception& e, const std::string& file, const std::string& key = "");

struct YamlContext {
  std::string file;
  [[noreturn]] void fail(const YAML::Node& node, const std::string& key, const std::string& problem) const;
  // Every key of the map must be one of `allowed`.
  void check_keys(const YAML::Node& map, const std::string& where, std::initializer_list<const char*> allowed) const;
  void check_keys(const YAML::Node& map, const std::string& where, const std::vector<std::string>& allowed) const;
  std::string text(const YAML::Node& node, const std::string& key) const;
  long long integer(const YAML::Node& node, const std::string& key, long long min, long long max) const;
  double number(const YAML::Node& node, const std::string& key, double min, double max) const;
  bool boolean(const YAML::Node& node, const std::string& key) const;
  std::string one_of(const YAML::Node& node, const std::string& key, const std::vector<std::string>& accepted) const;
};

// A YAML value as JSON (scalars keep their YAML meaning: numbers and booleans stay numbers and booleans,
// a quoted scalar stays a string), with the line of every key and value: what is checked as JSON can be
// reported at its YAML line, without reading the YAML twice.
struct LocatedJson {
  nlohmann::json value;
  std::map<std::string, int> value_lines, key_lines;  // by key path ("queue.any", "list[0]"; "" the value)
  // 1-based lines; a path not recorded gets its nearest recorded parent's, else 0.
  int value_line(const std::string& path) const;
  int key_line(const std::string& path) const;  // the line of the key itself (the value's for "")
};
LocatedJson yaml_to_located_json(const YAML::Node& node);

}  // namespace placebench::harness::detail
