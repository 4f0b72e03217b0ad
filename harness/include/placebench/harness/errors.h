// Error kinds the CLI maps to exit statuses. InputError: bad input (config, XML, CLI, results file):
// one line that names the file or option, the place and the fix; exit status 2.
#pragma once
#include <stdexcept>
#include <string>

namespace placebench::harness {

// The message as one line: a line break or other control character that came from the input (a key
// with "\n" in it, a library's message quoting the input) is written as an escape, so the promise "one
// line" holds whatever the input holds.
inline std::string one_line_message(const std::string& text) {
  static const char* const kHex = "0123456789abcdef";
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    auto u = static_cast<unsigned char>(c);
    if (c == '\n') out += "\\n";
    else if (c == '\r') out += "\\r";
    else if (c == '\t') out += "\\t";
    else if (u < 0x20 || u == 0x7f) out += std::string("\\x") + kHex[u >> 4] + kHex[u & 15];
    else out += c;
  }
  return out;
}

struct InputError : std::runtime_error {
  explicit InputError(const std::string& message) : std::runtime_error(one_line_message(message)) {}
  explicit InputError(const char* message) : InputError(std::string(message)) {}
};

// An InputError that every rank of an mpirun job throws at the same point, after agreeing on it: each
// rank can exit 2 instead of aborting the job.
struct AgreedInputError : InputError {
  using InputError::InputError;
};

inline constexpr int kExitOk = 0;
inline constexpr int kExitFailed = 1;      // ran, but the result is negative (e.g. placement not verified)
inline constexpr int kExitBadInput = 2;    // bad input; nothing was run
inline constexpr int kExitCheckFailed = 3; // a requested check (--fail-on, check) failed

}  // namespace placebench::harness
