// Golden-output comparison for the printer tests, in the style of google/benchmark's
// test/reporter_output_test.cc: the expected output of each printer and format is a file committed under
// tests/golden/, compared line by line. A golden line may hold placeholders for what legitimately varies
// from one machine or run to the next (and only that: outputs of deterministic inputs match exactly):
//   {{NUM}}  a number: optional sign, integer, decimal or exponent form ("-3", "0.25", "1e-06")
//   {{INT}}  an integer, optional sign
//   {{ANY}}  any text within the line, possibly none
// Before comparing, the actual output is normalised: the checkout's path (PLACEBENCH_SOURCE_DIR)
// becomes {{SOURCE_DIR}}, plus any substitutions the test adds (a temporary directory), so the goldens do
// not depend on where the tree is. That happens here, never in the printers.
//
// PLACEBENCH_UPDATE_GOLDEN=1 writes the normalised output to the golden file instead of comparing; a
// golden line with placeholders that still matches its output line is kept as it is (see README.md).
#pragma once
#include <gtest/gtest.h>

#include <algorithm>
#include <cstddef>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <regex>
#include <sstream>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace placebench::golden {

// {from, to}: every occurrence of `from` in the output is replaced by `to` before comparing.
using Substitutions = std::vector<std::pair<std::string, std::string>>;

inline const std::string kSourceDirPlaceholder = "{{SOURCE_DIR}}";

inline std::string golden_path(const std::string& name) {
  return std::string(PLACEBENCH_SOURCE_DIR) + "/tests/golden/" + name;
}

// Set and not "0": rewrite the goldens instead of comparing.
inline bool update_requested() {
  const char* v = std::getenv("PLACEBENCH_UPDATE_GOLDEN");
  return v != nullptr && *v != '\0' && std::string(v) != "0";
}

inline std::string replace_all(std::string text, const std::string& from, const std::string& to) {
  if (from.empty()) return text;
  for (std::size_t pos = text.find(from); pos != std::string::npos; pos = text.find(from, pos + to.size()))
    text.replace(pos, from.size(), to);
  return text;
}

// The test's substitutions first (they may name paths inside the checkout), then the checkout itself.
inline std::string normalise(std::string text, const Substitutions& extra = {}) {
  for (const auto& [from, to] : extra) text = replace_all(std::move(text), from, to);
  return replace_all(std::move(text), PLACEBENCH_SOURCE_DIR, kSourceDirPlaceholder);
}

// Lines without their '\n'; whether the text ends with one is kept apart, so that "a\n" and "a" differ.
struct Lines {
  std::vector<std::string> lines;
  bool final_newline = false;
};

inline Lines split_lines(const std::string& text) {
  Lines out;
  std::size_t start = 0;
  while (start < text.size()) {
    std::size_t end = text.find('\n', start);
    if (end == std::string::npos) {
      out.lines.push_back(text.substr(start));
      return out;
    }
    out.lines.push_back(text.substr(start, end - start));
    start = end + 1;
  }
  out.final_newline = !text.empty();
  return out;
}

inline bool has_placeholder(const std::string& golden_line) {
  for (const char* p : {"{{NUM}}", "{{INT}}", "{{ANY}}"})
    if (golden_line.find(p) != std::string::npos) return true;
  return false;
}

// The golden line as an ECMAScript regex: placeholders become their patterns, everything else literal.
inline std::regex golden_line_regex(const std::string& golden_line) {
  static const std::pair<std::string, std::string> kPatterns[] = {
      {"{{NUM}}", R"([-+]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][-+]?[0-9]+)?)"},
      {"{{INT}}", R"([-+]?[0-9]+)"},
      {"{{ANY}}", R"(.*)"},
  };
  std::string re;
  for (std::size_t i = 0; i < golden_line.size();) {
    bool placeholder = false;
    for (const auto& [name, pattern] : kPatterns) {
      if (golden_line.compare(i, name.size(), name) == 0) {
        re += pattern;
        i += name.size();
        placeholder = true;
        break;
      }
    }
    if (placeholder) continue;
    char c = golden_line[i++];
    if (std::string_view(R"(\^$.|?*+()[]{})").find(c) != std::string_view::npos) re += '\\';
    re += c;
  }
  return std::regex(re, std::regex::ECMAScript);
}

inline bool line_matches(const std::string& golden_line, const std::string& actual_line) {
  if (!has_placeholder(golden_line)) return golden_line == actual_line;
  return std::regex_match(actual_line, golden_line_regex(golden_line));
}

inline std::string read_text(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// What to write on update: the output, except that a golden line with placeholders which still matches
// the output line at the same position is kept, so regenerating does not undo hand-placed placeholders.
inline std::string updated_golden(const Lines& golden, const Lines& actual) {
  std::string out;
  for (std::size_t i = 0; i < actual.lines.size(); ++i) {
    bool keep = i < golden.lines.size() && has_placeholder(golden.lines[i]) && line_matches(golden.lines[i], actual.lines[i]);
    out += keep ? golden.lines[i] : actual.lines[i];
    if (i + 1 < actual.lines.size() || actual.final_newline) out += '\n';
  }
  return out;
}

// A few output lines around `line` (0-based), numbered from 1, the differing one marked.
inline std::string context(const Lines& actual, std::size_t line) {
  std::string out;
  std::size_t from = line >= 3 ? line - 3 : 0, to = std::min(actual.lines.size(), line + 3);
  for (std::size_t i = from; i < to; ++i)
    out += (i == line ? "  > " : "    ") + std::to_string(i + 1) + " | " + actual.lines[i] + "\n";
  return out;
}

inline std::string regenerate_hint(const std::string& name) {
  return "If the change is intended, rerun with PLACEBENCH_UPDATE_GOLDEN=1 and review `git diff tests/golden/" + name + "`.";
}

// Compares `output` (normalised with `extra` and the checkout path) with tests/golden/NAME, or rewrites
// the golden under PLACEBENCH_UPDATE_GOLDEN=1. Use as EXPECT_TRUE(matches_golden(out, "cli/x.txt")).
inline ::testing::AssertionResult matches_golden(const std::string& output, const std::string& name,
                                                 const Substitutions& extra = {}) {
  const std::string path = golden_path(name);
  const Lines actual = split_lines(normalise(output, extra));
  const bool exists = std::filesystem::exists(path);
  const Lines golden = exists ? split_lines(read_text(path)) : Lines{};
  if (update_requested()) {
    std::filesystem::create_directories(std::filesystem::path(path).parent_path());
    std::ofstream(path, std::ios::binary) << updated_golden(golden, actual);
    std::cout << "[golden] wrote tests/golden/" << name << "\n";
    return ::testing::AssertionSuccess();
  }
  if (!exists)
    return ::testing::AssertionFailure() << "golden tests/golden/" << name
                                         << " is missing; run with PLACEBENCH_UPDATE_GOLDEN=1 to create it";
  std::size_t n = std::min(golden.lines.size(), actual.lines.size());
  for (std::size_t i = 0; i < n; ++i) {
    if (line_matches(golden.lines[i], actual.lines[i])) continue;
    return ::testing::AssertionFailure() << "output differs from golden tests/golden/" << name << " at line " << i + 1
                                         << ":\n  golden: " << golden.lines[i] << "\n  output: " << actual.lines[i]
                                         << "\noutput around it:\n" << context(actual, i) << "(golden "
                                         << golden.lines.size() << " lines, output " << actual.lines.size() << " lines)\n"
                                         << regenerate_hint(name);
  }
  if (golden.lines.size() != actual.lines.size()) {
    bool golden_longer = golden.lines.size() > actual.lines.size();
    const std::string& first_extra = golden_longer ? golden.lines[n] : actual.lines[n];
    return ::testing::AssertionFailure() << "output differs from golden tests/golden/" << name << " at line " << n + 1
                                         << ": the " << (golden_longer ? "output ends" : "golden ends") << " there ("
                                         << golden.lines.size() << " golden lines, " << actual.lines.size()
                                         << " output lines); the " << (golden_longer ? "golden" : "output")
                                         << " goes on with:\n  " << first_extra << "\n" << regenerate_hint(name);
  }
  if (golden.final_newline != actual.final_newline)
    return ::testing::AssertionFailure() << "output differs from golden tests/golden/" << name << ": the "
                                         << (golden.final_newline ? "golden" : "output") << " ends with a newline, the "
                                         << (golden.final_newline ? "output" : "golden") << " does not\n"
                                         << regenerate_hint(name);
  return ::testing::AssertionSuccess();
}

}  // namespace placebench::golden
