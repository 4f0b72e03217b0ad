// --out FILE: refused when it exists, written atomically (see out_file.h).
#include "placebench/harness/cli/out_file.h"

#include <unistd.h>

#include <filesystem>

#include "placebench/harness/atomic_file.h"
#include "placebench/harness/errors.h"

namespace placebench::harness {
namespace fs = std::filesystem;

void check_out_file(const std::string& path) {
  if (path.empty()) throw InputError("--out: an empty file name; give the file to write, e.g. --out verify.json");
  std::error_code ec;
  fs::file_status st = fs::symlink_status(path, ec);
  if (fs::is_directory(st)) throw InputError("--out " + path + ": is a directory; give a file name");
  if (fs::exists(st))
    throw InputError("--out " + path + ": already exists; placebench does not replace a recorded result: "
                     "give a new file name (or move the old file away)");
  fs::path parent = fs::path(path).parent_path();
  if (parent.empty()) parent = ".";
  if (!fs::is_directory(parent, ec) || access(parent.c_str(), W_OK | X_OK) != 0)
    throw InputError("--out " + path + ": " + parent.string() + " is not a writable directory; create it or name another file");
}

void write_out_file(const std::string& path, const std::string& text) {
  check_out_file(path);
  try {
    write_file_atomically(path, text, "free space on that file system, or give --out on another one");
  } catch (const WriteError& e) {
    throw WriteError(std::string("--out ") + e.what());
  }
}

}  // namespace placebench::harness
