// The shared YAML checks: keys that YAML forbids or yaml-cpp would misread are errors with file:line: key.
#include <gtest/gtest.h>

#include "placebench/harness/errors.h"
#include "placebench/harness/yaml_check.h"

using placebench::harness::InputError;
using placebench::harness::detail::YamlContext;

namespace {

std::string check_error(const std::string& yaml) {
  YamlContext c{"cfg.yaml"};
  YAML::Node root = YAML::Load(yaml);
  try {
    c.check_keys(root["experiment"], "experiment", {"steps", "seed"});
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST(YamlCheck, DuplicateKeysAreErrorsNotFirstWins) {
  EXPECT_EQ(check_error("experiment:\n  steps: 12\n  steps: 3\n"), "cfg.yaml:3: experiment.steps: appears twice in this mapping; keep one");
  EXPECT_NE(check_error("experiment: {seed: 1, seed: 2}\n").find("experiment.seed: appears twice"), std::string::npos);
  EXPECT_EQ(check_error("experiment:\n  steps: 12\n  seed: 3\n"), "");
}

TEST(YamlCheck, ComplexKeysAreErrors) {
  EXPECT_EQ(check_error("experiment:\n  ? [a, b]\n  : 1\n"), "cfg.yaml:2: experiment: a key must be a plain name, not a list or mapping");
}

TEST(YamlCheck, UnknownKeysNameTheAcceptedOnes) {
  EXPECT_EQ(check_error("experiment:\n  step: 12\n"), "cfg.yaml:2: experiment.step: unknown key; accepted keys: steps, seed");
}
