// Fuzz target: a reference file of `placebench check` (parse_reference_text).
#include <cstdint>

#include "fuzz_support.h"
#include "placebench/harness/check/reference.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace placebench;
  std::string text = fuzz::as_text(data, size);
  fuzz::expect_accepted_or_input_error([&] { harness::check::parse_reference_text(text, "fuzz.yaml"); });
  return 0;
}
