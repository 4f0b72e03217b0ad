// Fuzz target: the integer options of the command line (options.h's rule). The first byte picks one of
// the parser's integer options (found from the parser, tests/support/cli_integer_options.h), the rest is
// its value, parsed in-process as `placebench SUB OPTION VALUE`. The contract beyond fuzz_support.h's:
// a value is accepted only when it is decimal (parse_decimal), and then CLI11 converts exactly that number
// written without leading zeros; a refusal is one line, whatever bytes the value holds.
#include <cstdint>

#include "cli_integer_options.h"
#include "fuzz_support.h"
#include "placebench/harness/cli/options.h"
#include "placebench/harness/terminal_text.h"

namespace {

const std::vector<placebench::testing::IntegerOption>& integer_options() {
  static const std::vector<placebench::testing::IntegerOption> options = placebench::testing::find_integer_options();
  return options;
}

}  // namespace

// The options are found once, before the first input: finding them parses the command line a few hundred
// times, which under the sanitizers takes longer than one input's timeout (-timeout=10).
extern "C" int LLVMFuzzerInitialize(int*, char***) {
  (void)integer_options();
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace placebench;
  const auto& options = integer_options();
  if (options.empty()) fuzz::finding("no integer option found in the parser", "find_integer_options");
  if (size < 2) return 0;  // an empty value is empty_value_error's (options.h), not the rule's
  const testing::IntegerOption& o = options[data[0] % options.size()];
  const std::string value = fuzz::as_text(data + 1, size - 1);
  const std::string where = o.sub + " " + o.option + " '" + harness::escape_control(value) + "'";
  testing::OptionProbe p = testing::probe_option(o.sub, o.option, value);
  if (!p.message.empty() && p.message.find('\n') != std::string::npos) fuzz::finding("error message is not one line", p.message);
  if (p.refused || p.results.empty()) return 0;  // refused, or not taken as the option's value ("-x" is an option)
  bool out_of_range = false;
  for (const std::string& r : p.results) {  // what CLI11 converts: decimal, no leading zero
    std::optional<long long> v = harness::parse_decimal(r, out_of_range);
    if (!v || std::to_string(*v) != r) fuzz::finding("CLI11 converts a value that is not plain decimal", where + " -> " + r);
  }
  if (p.results.size() > 1) return 0;  // a list option split the value at its delimiter
  std::optional<long long> v = harness::parse_decimal(value, out_of_range);
  if (!v) fuzz::finding("accepted a value that is not a decimal whole number", where);
  if (p.results.front() != std::to_string(*v))
    fuzz::finding("converted another number than the decimal one", where + " -> " + p.results.front());
  return 0;
}
