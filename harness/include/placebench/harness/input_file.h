// The one way harness reads an input file (configs, includes, decision blocks' configs, references,
// inventories, job contracts, results, gang results, number files): regular files only, never blocking
// on a FIFO, at most a documented size (docs/methodology.md, "Input files"). Bad input is an InputError
// "PATH: <what>; <fix>".
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
