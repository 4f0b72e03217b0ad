// Fuzz target: `placebench fleet DIR` over a whole directory tree (load_fleet: where the runs are, one per
// host, each read through the run directory's readers; then analyze_fleet and every printer). The input
// is a tree in text: a line "=== PATH" starts the file PATH (up to 3 folders deep, plain names), the lines
// up to the next "===" line are its bytes; "=== PATH -> TARGET" makes PATH a symlink to TARGET (relative,
// inside the tree: `latest -> run-1`, `up -> ..`). At most 32 entries. Seeds: corpus/fleet_dir/.
#include <unistd.h>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "fuzz_support.h"
#include "placebench/harness/fleet/fleet.h"

namespace {

namespace fs = std::filesystem;

constexpr std::size_t kMaxEntries = 32;

// A relative path of plain names ([A-Za-z0-9._-], not "." or ".."), at most 4 components; "" otherwise.
std::string plain_path(const std::string& p) {
  std::string out;
  std::size_t depth = 0;
  std::stringstream parts(p);
  for (std::string part; std::getline(parts, part, '/');) {
    if (part.empty() || part == "." || part == ".." || ++depth > 4 ||
        part.find_first_not_of("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._-") != std::string::npos)
      return "";
    out += (out.empty() ? "" : "/") + part;
  }
  return out;
}

// A symlink's target: ".." components allowed (a link back up the tree), nothing absolute.
bool relative_target(const std::string& t) {
  return !t.empty() && t.size() < 200 && t[0] != '/' &&
         t.find_first_not_of("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._-/") == std::string::npos;
}

void make_entry(const fs::path& root, const std::string& header, const std::string& body) {
  std::error_code ec;
  const std::size_t arrow = header.find(" -> ");
  const std::string path = plain_path(header.substr(0, arrow));
  if (path.empty()) return;
  fs::create_directories((root / path).parent_path(), ec);
  if (arrow != std::string::npos) {
    const std::string target = header.substr(arrow + 4);
    if (relative_target(target)) fs::create_symlink(target, root / path, ec);
    return;
  }
  std::ofstream(root / path, std::ios::binary) << body;
}

// The tree of the input under a fresh scratch folder; its path.
std::string write_tree(const std::string& text) {
  static unsigned serial = 0;
  const fs::path root = fs::path(placebench::fuzz::scratch_dir()) / ("fleet-" + std::to_string(serial++));
  std::error_code ec;
  fs::remove_all(root, ec);
  fs::create_directories(root, ec);
  std::string header, body;
  std::size_t entries = 0;
  std::istringstream in(text);
  bool open = false;
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("=== ", 0) == 0) {
      if (open && entries++ < kMaxEntries) make_entry(root, header, body);
      header = line.substr(4);
      body.clear();
      open = true;
    } else if (open) {
      body += line + "\n";
    }
  }
  if (open && entries < kMaxEntries) make_entry(root, header, body);
  return root.string();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace placebench;
  const std::string root = write_tree(fuzz::as_text(data, size));
  fuzz::expect_accepted_or_input_error([&] {
    harness::fleet::FleetReport r = harness::fleet::analyze_fleet(harness::fleet::load_fleet({root}, true), {});
    harness::fleet::fleet_to_json(r, "2026-12-01T00:00:00Z").dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
    harness::fleet::render_fleet_table(r);
    harness::fleet::render_fleet_junit(r, "2026-12-01T00:00:00Z");
    harness::fleet::render_fleet_html(r, "2026-12-01T00:00:00Z");
    harness::fleet::render_fleet_prometheus(r);
  });
  std::error_code ec;
  std::filesystem::remove_all(root, ec);
  return 0;
}
