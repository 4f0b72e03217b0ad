// What every fuzz target promises (tests/fuzz/README.md): an input is accepted, or rejected with an
// InputError of one line (the CLI's exit 2). Any other exception, a crash, a sanitizer report or a hang is
// a finding: the target aborts, so libFuzzer keeps the input and the replay test fails on it.
#pragma once
#include <cstddef>
#include <cstdint>
#include <exception>
#include <string>

#include "placebench/harness/errors.h"

namespace placebench::fuzz {

// Prints "fuzz finding: WHAT: DETAIL" (with the input being replayed, when known) and aborts.
[[noreturn]] void finding(const std::string& what, const std::string& detail);

// Runs `read` on one input: returns when it accepts the input or throws a one-line InputError; any other
// outcome is a finding.
template <class Read>
void expect_accepted_or_input_error(Read&& read) {
  try {
    read();
  } catch (const harness::InputError& e) {
    std::string message = e.what();
    if (message.empty() || message.find('\n') != std::string::npos)
      finding("InputError message is not one line", message);
  } catch (const std::exception& e) {
    finding("raw exception (not an InputError)", e.what());
  } catch (...) {
    finding("raw exception (not an InputError)", "an exception not derived from std::exception");
  }
}

inline std::string as_text(const std::uint8_t* data, std::size_t size) {
  return std::string(reinterpret_cast<const char*>(data), size);
}

// A directory of this process for the files a reader takes by name (made once, removed at exit).
const std::string& scratch_dir();
// Writes `text` to scratch_dir()/name and returns the path.
std::string write_scratch_file(const std::string& name, const std::string& text);

// A run directory in scratch_dir() holding a copy of results/example-run/run.json (made once), for the
// readers of the files beside it (trials.jsonl, summary.json), which check them against its config.
const std::string& example_run_dir();

// The input being replayed (set by replay_main.cpp), named in findings; empty under libFuzzer.
void set_current_input(std::string name);

}  // namespace placebench::fuzz
