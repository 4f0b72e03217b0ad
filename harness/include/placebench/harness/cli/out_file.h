// The one rule for every option that writes a result file (fleet --json/--junit/--html/--prometheus,
// check --junit/--markdown/--out, audit/verify/feasible/admission/queue/gang --out, topo --export,
// collective --nccl-tests-json, report -o; docs/cli.md "Output files"):
//   - `-`, /dev/stdout, /dev/fd/1 or /proc/self/fd/1: standard output (the command's table is then not
//     printed: that output is the command's standard output);
//   - a new path in a writable directory: created, atomically (atomic_file.h);
//   - an existing regular file, or a symbolic link to one: replaced (the link's target, the link kept)
//     only with --force;
//   - a run's record (run.json, summary.json or trials.jsonl in a directory holding one of them, or a link
//     to one): refused, new or existing, even with --force (`run` and `compare` alone write those);
//   - anything else (a FIFO, a character or block device, a socket, a directory, a link to one of those
//     or to nothing) is refused.
// check_output applies the rule before the command does any work; a refusal is an InputError (exit 2,
// one line naming the option and the path). write_output applies it again just before writing.
#pragma once
#include <initializer_list>
#include <string>

namespace CLI {
class App;
}

namespace placebench::harness {

// Where one output option's text goes; `path` empty: the option was not given.
struct OutputTarget {
  std::string option;    // "--json"
  std::string path;      // as given
  std::string file;      // what is written: path, or the regular file a link names
  bool to_stdout = false;
  bool replace = false;  // file exists and --force lets it be replaced
  bool given() const { return !path.empty(); }
};

// `-`, /dev/stdout, /dev/fd/1 or /proc/self/fd/1.
bool names_stdout(const std::string& path);

OutputTarget check_output(const std::string& option, const std::string& path, bool force);

// InputError when more than one of the given targets is standard output.
void refuse_two_on_stdout(std::initializer_list<const OutputTarget*> targets);
// True when one of them is standard output (the command then prints no table).
bool any_on_stdout(std::initializer_list<const OutputTarget*> targets);

// Writes `text` to the target (nothing when it was not given): standard output, or the file atomically,
// after checking the rule again (a file that appeared since check_output is not replaced). A failed write
// is a WriteError (exit 1) naming the option; the previous file is left as it was.
void write_output(const OutputTarget& target, const std::string& text);

// --force on `cmd`: let the output options replace an existing result file.
void add_force_flag(CLI::App& cmd, bool& force);

}  // namespace placebench::harness
