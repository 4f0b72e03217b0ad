// Printing or recording a command's JSON (json_output.h).
#include "placebench/harness/cli/json_output.h"

#include <fmt/format.h>

#include <filesystem>
#include <iostream>

#include "placebench/harness/atomic_file.h"
#include "placebench/harness/errors.h"
#include "placebench/harness/evidence.h"

namespace placebench::harness {

void refuse_existing_out(const std::string& out) {
  std::error_code ec;
  if (!out.empty() && std::filesystem::exists(out, ec))
    throw InputError(fmt::format("--out {}: already exists; give a new file name (a recorded file is never overwritten)", out));
  std::filesystem::path parent = std::filesystem::path(out).parent_path();
  if (!out.empty() && !parent.empty() && !std::filesystem::is_directory(parent, ec))
    throw InputError(fmt::format("--out {}: {} is not a directory; create it or name another file", out, parent.string()));
}

int emit_report(nlohmann::json j, const std::string& table, bool as_json, const std::string& out) {
  stamp_evidence(j);
  if (!out.empty()) write_file_atomically(out, j.dump(2) + "\n", "free space on that file system, or give --out on another one");
  if (as_json)
    std::cout << j.dump(2) << "\n";
  else
    std::cout << table;
  return kExitOk;
}

}  // namespace placebench::harness
