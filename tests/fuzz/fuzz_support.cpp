// The fuzz targets' shared checks and scratch files (fuzz_support.h).
#include "fuzz_support.h"

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <system_error>

namespace placebench::fuzz {
namespace {

std::string& current_input() {
  static std::string name;
  return name;
}

// Owns the scratch directory: removed when the process exits normally (a finding aborts and keeps it).
struct ScratchDir {
  std::string path;
  ScratchDir() {
    std::error_code ec;
    std::string base = std::filesystem::temp_directory_path(ec).string();
    std::string pattern = (ec ? std::string("/tmp") : base) + "/placebench-fuzz-XXXXXX";
    if (::mkdtemp(pattern.data()) == nullptr) {
      std::fprintf(stderr, "fuzz: cannot create a scratch directory %s; set TMPDIR to a writable directory\n",
                   pattern.c_str());
      std::exit(2);
    }
    path = pattern;
  }
  ~ScratchDir() {
    std::error_code ec;
    std::filesystem::remove_all(path, ec);
  }
};

}  // namespace

void finding(const std::string& what, const std::string& detail) {
  const std::string& input = current_input();
  std::fprintf(stderr, "fuzz finding%s%s: %s: %s\n", input.empty() ? "" : " in ", input.c_str(), what.c_str(),
               detail.c_str());
  std::fflush(stderr);
  std::abort();
}

const std::string& scratch_dir() {
  static ScratchDir dir;
  return dir.path;
}

std::string write_scratch_file(const std::string& name, const std::string& text) {
  std::string path = scratch_dir() + "/" + name;
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(text.data(), static_cast<std::streamsize>(text.size()));
  out.close();
  if (!out) finding("fuzz harness", "cannot write the scratch file " + path + " (disk full?)");
  return path;
}

const std::string& example_run_dir() {
  static const std::string dir = [] {
    std::string path = scratch_dir() + "/run";
    std::error_code ec;
    std::filesystem::create_directories(path, ec);
    std::filesystem::copy_file(PLACEBENCH_SOURCE_DIR "/results/example-run/run.json", path + "/run.json",
                               std::filesystem::copy_options::overwrite_existing, ec);
    if (ec) finding("fuzz harness", "cannot copy results/example-run/run.json into " + path + ": " + ec.message());
    return path;
  }();
  return dir;
}

void set_current_input(std::string name) { current_input() = std::move(name); }

}  // namespace placebench::fuzz
