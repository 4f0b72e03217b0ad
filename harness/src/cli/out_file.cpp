// The output rule (see out_file.h): what a path names is looked at with lstat, never opened, so a FIFO,
// a device or a link is judged before anything could block on it or replace it.
#include "placebench/harness/cli/out_file.h"

#include <sys/stat.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <filesystem>
#include <iostream>

#include "placebench/harness/atomic_file.h"
#include "placebench/harness/errors.h"
#include "placebench/hostpipe/file_kind.h"

namespace placebench::harness {
namespace {

namespace fs = std::filesystem;

const char* kFix = "give a new file name, or - for standard output";

const char* const kRunRecords[] = {"run.json", "summary.json", "trials.jsonl"};

// A directory holding a run's record (a run directory, or a GPU node check's output).
bool is_run_directory(const fs::path& dir) {
  std::error_code ec;
  for (const char* record : kRunRecords)
    if (fs::exists(dir / record, ec)) return true;
  return false;
}

[[noreturn]] void refuse(const std::string& option, const std::string& path, const std::string& why, const std::string& fix) {
  throw InputError(option + " " + path + ": " + why + "; " + fix);
}

// The folder the file goes in must be a directory this process can create files in.
void check_directory(const std::string& option, const std::string& path, const fs::path& file) {
  fs::path dir = file.parent_path();
  if (dir.empty()) dir = ".";
  std::error_code ec;
  if (!fs::is_directory(dir, ec) || ::access(dir.c_str(), W_OK | X_OK) != 0)
    refuse(option, path, dir.string() + " is not a writable directory", "create it, or give a path in a directory you can write");
}

// A run's record (run.json, summary.json, trials.jsonl in a run directory) is written by `run` and
// `compare` alone: never by an output option, new or replaced, not even with --force (the run would then be
// unreadable). Other files of a run directory (a check.md beside the run) follow the rule for any file.
void check_not_a_run_record(const std::string& option, const std::string& path, const std::string& file) {
  std::error_code ec;
  fs::path where = fs::weakly_canonical(fs::absolute(file, ec), ec);
  if (ec) where = file;
  for (const char* record : kRunRecords)
    if (where.filename() == record && is_run_directory(where.parent_path()))
      refuse(option, path, std::string("the record of the run in ") + where.parent_path().string(),
             "placebench never replaces a run's record: give a path outside the run's files");
}

}  // namespace

bool names_stdout(const std::string& path) {
  return path == "-" || path == "/dev/stdout" || path == "/dev/fd/1" || path == "/proc/self/fd/1";
}

OutputTarget check_output(const std::string& option, const std::string& path, bool force) {
  OutputTarget t{option, path, path, false, false};
  if (path.empty()) return t;
  if (names_stdout(path)) {
    t.to_stdout = true;
    return t;
  }
  struct stat st {};
  bool exists = ::lstat(path.c_str(), &st) == 0;
  if (exists && S_ISLNK(st.st_mode)) {
    std::error_code ec;
    fs::path target = fs::canonical(path, ec);
    if (ec) refuse(option, path, "a symbolic link to nothing", kFix);
    if (::stat(target.c_str(), &st) != 0 || !S_ISREG(st.st_mode))
      refuse(option, path, "a symbolic link to " + target.string() + ", " + hostpipe::file_kind(st.st_mode), kFix);
    t.file = target.string();
  } else if (exists && !S_ISREG(st.st_mode)) {
    refuse(option, path, std::string(hostpipe::file_kind(st.st_mode)) + ", not a regular file", kFix);
  }
  check_not_a_run_record(option, path, t.file);
  if (exists && !force)
    refuse(option, path, "already exists; placebench does not replace a result file unless asked",
           "give a new file name, or --force to replace it");
  check_directory(option, path, t.file);
  t.replace = exists;
  return t;
}

void refuse_two_on_stdout(std::initializer_list<const OutputTarget*> targets) {
  const OutputTarget* first = nullptr;
  for (const OutputTarget* t : targets) {
    if (!t->to_stdout) continue;
    if (first)
      throw InputError(first->option + " " + first->path + " and " + t->option + " " + t->path +
                       ": only one output can go to standard output; write the other to a file");
    first = t;
  }
}

bool any_on_stdout(std::initializer_list<const OutputTarget*> targets) {
  for (const OutputTarget* t : targets)
    if (t->to_stdout) return true;
  return false;
}

void write_output(const OutputTarget& target, const std::string& text) {
  if (!target.given()) return;
  if (target.to_stdout) {
    std::cout << text << std::flush;
    if (!std::cout) throw InputError(target.option + " " + target.path + ": cannot write standard output; check where it goes");
    return;
  }
  OutputTarget now = check_output(target.option, target.path, target.replace);  // it may have changed meanwhile
  const char* fix = "free space on that file system, or write the file elsewhere";
  try {
    if (now.replace)
      write_file_atomically(now.file, text, fix);
    else
      write_new_file_atomically(now.file, text, fix);
  } catch (const WriteError& e) {  // an output the user asked for that cannot be written: exit 2, as for a bad path
    throw InputError(target.option + " " + e.what());
  }
}

void add_force_flag(CLI::App& cmd, bool& force) {
  cmd.add_flag("--force", force, "Let the output options replace an existing result file (never a run's record)");
}

}  // namespace placebench::harness
