// Harness's input files: the size each kind may have (policy; docs/methodology.md, "Input files") and
// read_input_file, hostpipe's bounded reader (hostpipe/input_file.h: regular files only, never blocking
// on a FIFO; the one mechanism) with its refusal as an InputError "PATH: <what>; <fix>". Every harness
// reader of a file (configs, includes, references, inventories, job contracts, results, gang results,
// number files) goes through it.
#pragma once
#include <cstdint>
#include <string>

namespace placebench::harness {

inline constexpr std::uint64_t kMaxConfigBytes = 4ull << 20;    // configs, includes, references, inventories, jobs
inline constexpr std::uint64_t kMaxResultsBytes = 1ull << 30;   // run.json, trials.jsonl, summary.json, gang JSON
inline constexpr std::uint64_t kMaxNumbersBytes = 64ull << 20;  // `placebench stats` inputs

// The file's bytes. `fix` says what to give instead ("give a YAML file like configs/default.yaml").
std::string read_input_file(const std::string& path, const std::string& fix, std::uint64_t max_bytes);

}  // namespace placebench::harness
