// Whole-file text reads and writes for integration tests (results, configs, fixtures they damage).
#pragma once
#include <fstream>
#include <sstream>
#include <string>

namespace placebench::testing {

// The file's contents; "" when it cannot be read.
inline std::string read_text_file(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// Replaces the file's contents with `text`.
inline void write_text_file(const std::string& path, const std::string& text) {
  std::ofstream(path, std::ios::trunc) << text;
}

}  // namespace placebench::testing
