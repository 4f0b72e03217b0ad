// The one way placebench writes a results file (run.json, summary.json, trials.jsonl, --out, --junit,
// --markdown): durably, and never half. A failed write (full disk, file too large, no permission) throws
// WriteError, one line "PATH: cannot write it (WHY); FIX", with the previous contents left as they were.
#pragma once
#include <stdexcept>
#include <string>

namespace placebench::harness {

// A file could not be written (exit 1: the input was fine, the file system refused).
struct WriteError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// Replaces `path` with `data`: written to PATH.tmp (created afresh, never through a link planted there), fsync'ed, renamed over PATH, the directory fsync'ed.
// Readers see the old file or the new one, never part of one. On failure PATH.tmp is removed and PATH is
// untouched. `fix` ends the message (default: free space or check permissions).
void write_file_atomically(const std::string& path, const std::string& data, const std::string& fix = "");

// The same for a file that must not exist yet: the final rename fails (WriteError, "File exists") when
// PATH appeared meanwhile, so nothing that another process wrote there is replaced.
void write_new_file_atomically(const std::string& path, const std::string& data, const std::string& fix = "");

// Appends `data` to `path` (created when absent) and fsyncs it before returning. On failure the file is
// cut back to its length before the call, so no partial record is left behind.
void append_durably(const std::string& path, const std::string& data, const std::string& fix = "");

}  // namespace placebench::harness
