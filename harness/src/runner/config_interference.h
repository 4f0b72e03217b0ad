// A class's `interference` list (issue 32; docs/configuration.md#interference): the YAML parser, at the
// file's lines, and run.json's copy, written and read back checked. Used by the config's visitors
// (config_parse.cpp, config_json.cpp) for the one key `interference` of class_fields (config_fields.h).
#pragma once
#include <yaml-cpp/yaml.h>

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "placebench/harness/runner/config.h"
#include "placebench/harness/yaml_check.h"
#include "results_checks.h"

namespace placebench::harness::detail {

inline constexpr int kMaxHogThreads = 1024;

// [quiet, {hog: membw|cpu, node: device|other, dose: THREADS or [THREADS, ...], size: 64M}, ...]: one
// condition per dose, each named once. Every error "FILE:LINE: WHERE: problem" (InputError, exit 2).
std::vector<Condition> parse_interference_yaml(const YamlContext& c, const YAML::Node& list, const std::string& where);

// run.json's copy: [{name, hog, node, threads, bytes}, ...], and its checked reader.
nlohmann::json interference_to_json(const std::vector<Condition>& conditions);
std::vector<Condition> interference_from_json(const Checker& c, const nlohmann::json& list, const std::string& where);

}  // namespace placebench::harness::detail
