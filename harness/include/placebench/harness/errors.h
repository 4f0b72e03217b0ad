// Error kinds the CLI maps to exit statuses. InputError: bad input (config, XML, CLI, results file):
// one line that names the file or option, the place and the fix; exit status 2.
#pragma once
#include <stdexcept>
#include <string>

namespace placebench::harness {

struct InputError : std::runtime_error {
  using std::runtime_error::runtime_error;
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
