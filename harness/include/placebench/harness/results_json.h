// JSON text of a results file (run.json, summary.json, trials.jsonl, gang, admission and node-check
// JSON), parsed with one rule for damage: an InputError "PATH:LINE: not valid JSON (WHY); FIX", where WHY
// says whether the text is empty, cut short, out of range (1e400) or a syntax error. JSON Lines files
// (trials.jsonl, gang trial lines) share one rule for a last line cut short by a crash mid-write.
#pragma once
#include <cstddef>
#include <functional>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

namespace placebench::harness {

// Where and why a text is not JSON, for messages "FILE:LINE: not valid JSON (WHY)": a syntax error, a text
// cut short, or a number out of range (1e400).
struct JsonSyntaxProblem {
  std::size_t line = 1;
  std::string why;
};
JsonSyntaxProblem json_syntax_problem(const std::string& text, const nlohmann::json::exception& e);

// The JSON of `text` (read from `path`), or InputError "PATH:LINE: not valid JSON (WHY); FIX".
nlohmann::json parse_results_json(const std::string& text, const std::string& path, const std::string& fix);

// A JSON Lines text, line by line, each parsed line handed to `on_line` (1-based number, value) before the
// next is read, so a reader's own check of an earlier line comes first. Every line must parse, except the
// last: a last line that does not parse is a write cut short (a crash mid-write) and is left out, its number
// in `cut_line`. A last line that parses but lacks its newline is kept (`unterminated`). Any other line
// that does not parse is an InputError "PATH:N: not <what> (only the last line may be cut short); remove
// that line by hand to read the rest".
struct JsonLines {
  std::optional<std::size_t> cut_line;  // the last line, cut short and left out
  std::size_t good_end = 0;             // bytes up to the end of the last line kept
  bool unterminated = false;            // the last line kept has no newline
};
JsonLines parse_json_lines(const std::string& text, const std::string& path, const std::string& what,
                           const std::function<void(std::size_t, nlohmann::json)>& on_line);

}  // namespace placebench::harness
