// Fuzz target: a class's decision block, as run.json keeps it (JSON, parse_decision_json) and as a config
// writes it (YAML, parse_decision_yaml). Text that is neither JSON nor YAML is skipped: the file's own
// reader rejects it before the block parser sees it.
#include <yaml-cpp/yaml.h>

#include <cstdint>

#include "fuzz_support.h"
#include "placebench/harness/decisions/decide_input.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace placebench;
  std::string text = fuzz::as_text(data, size);
  nlohmann::json block = nlohmann::json::parse(text, nullptr, false);
  if (!block.is_discarded())
    fuzz::expect_accepted_or_input_error(
        [&] { harness::decisions::parse_decision_json(block, "run.json: config.classes[0].decision"); });
  YAML::Node node;
  try {
    node = YAML::Load(text);
  } catch (const YAML::Exception&) {
    return 0;
  }
  fuzz::expect_accepted_or_input_error([&] { harness::decisions::parse_decision_yaml(node, "fuzz.yaml"); });
  return 0;
}
