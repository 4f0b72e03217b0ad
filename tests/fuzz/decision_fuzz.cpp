// Fuzz target: a class's decision block, as run.json keeps it (JSON, parse_decision_json) and as a config
// writes it (YAML, parse_decision_yaml, after the configs' loader detail::load_yaml_document, as
// config_parse.cpp reads it). Text that is not JSON skips the JSON half.
#include <yaml-cpp/yaml.h>

#include <cstdint>

#include "fuzz_support.h"
#include "placebench/harness/decisions/decide_input.h"
#include "placebench/harness/yaml_check.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace placebench;
  std::string text = fuzz::as_text(data, size);
  nlohmann::json block = nlohmann::json::parse(text, nullptr, false);
  if (!block.is_discarded())
    fuzz::expect_accepted_or_input_error(
        [&] { harness::decisions::parse_decision_json(block, "run.json: config.classes[0].decision"); });
  // Through the configs' own loader (it refuses alias bombs and self-referencing aliases, a one-line
  // InputError); a raw YAML::Load let `&b [*b]` walk without end (an out-of-memory finding in CI).
  fuzz::expect_accepted_or_input_error([&] {
    YAML::Node node = harness::detail::load_yaml_document(text, "fuzz.yaml");
    harness::decisions::parse_decision_yaml(node, "fuzz.yaml");
  });
  return 0;
}
