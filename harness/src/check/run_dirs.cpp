// The walk of a results folder (run_dirs.h).
#include "placebench/harness/check/run_dirs.h"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <set>

#include "placebench/harness/errors.h"

namespace placebench::harness::check {
namespace {

namespace fs = std::filesystem;

bool is_run_dir(const fs::path& p) {
  std::error_code ec;
  return fs::is_directory(p, ec) && fs::exists(p / "run.json", ec);
}

std::vector<fs::path> sorted_subdirs(const fs::path& dir) {
  std::vector<fs::path> out;
  std::error_code ec;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec))
    if (it->is_directory(ec)) out.push_back(it->path());
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace

std::vector<FoundRun> find_runs(const std::string& dir) {
  std::error_code ec;
  if (!fs::exists(dir, ec))
    throw InputError(fmt::format("{}: no such directory; give a node's run directory or a folder of them "
                                 "(<host>/<run>, docs/fleet.md)", dir));
  if (!fs::is_directory(dir, ec))
    throw InputError(fmt::format("{}: not a directory; give a node's run directory (it holds run.json) or a folder of them",
                                 dir));
  if (is_run_dir(dir)) return {{dir, ""}};
  std::vector<FoundRun> runs;
  for (const fs::path& sub : sorted_subdirs(dir)) {
    if (is_run_dir(sub)) {
      runs.push_back({sub.string(), ""});
      continue;
    }
    for (const fs::path& run : sorted_subdirs(sub))
      if (is_run_dir(run)) runs.push_back({run.string(), sub.filename().string()});
  }
  if (runs.empty())
    throw InputError(fmt::format("{}: holds no run directory (no run.json in it, its folders or theirs); give the "
                                 "directory `placebench run` wrote on each node (docs/fleet.md)", dir));
  return runs;
}

std::vector<FoundRun> find_runs(const std::vector<std::string>& dirs) {
  std::vector<FoundRun> runs;
  std::set<std::string> seen;
  for (const std::string& d : dirs)
    for (FoundRun& r : find_runs(d)) {
      std::error_code ec;
      std::string key = fs::weakly_canonical(r.dir, ec).string();
      if (seen.insert(ec ? r.dir : key).second) runs.push_back(std::move(r));
    }
  return runs;
}

}  // namespace placebench::harness::check
