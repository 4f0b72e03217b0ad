// Reading an input file with bounds, for every reader in hostpipe and harness (configs, includes,
// references, inventories, results, kubelet settings): a FIFO cannot block the read, /dev/zero cannot
// exhaust memory, and what was read can be checked for UTF-8 and, for YAML, for its alias-expanded size.
// The one mechanism; no exceptions here: hostpipe records a problem in the run context, harness turns it
// into an InputError (read_input_file, harness/input_limits.h, with each format's size limit).
#pragma once
#include <yaml-cpp/yaml.h>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace placebench::hostpipe {

// The file's bytes, or (ok false) why they were not read: "not a regular file (a FIFO)", "... bytes, over
// the limit of ...", "cannot open it (strerror)". Opens with O_NONBLOCK, accepts regular files only and
// reads at most max_bytes + 1 bytes.
struct FileText {
  bool ok = false;
  std::string text;
  std::string problem;
};
FileText read_regular_file(const std::string& path, std::uint64_t max_bytes);

// The offset of the first byte that is not part of well-formed UTF-8 (RFC 3629), or none.
std::optional<std::size_t> invalid_utf8_at(std::string_view text);

// Why a YAML document is not one placebench reads, with its 1-based line and key path ("" the top).
struct YamlProblem {
  int line = 0;
  std::string path;
  std::string what;
};
// Every YAML placebench reads is walked at most once through this bound: yaml-cpp shares aliased
// nodes, so a "billion laughs" document is small in memory but huge to walk. Refuses a document whose
// alias-expanded node count exceeds max_nodes, a key that is a list or mapping, and a scalar (key or
// value) that is not UTF-8 (JSON outputs could not hold it).
inline constexpr std::size_t kMaxYamlNodes = 100000;
std::optional<YamlProblem> yaml_document_problem(const YAML::Node& root, std::size_t max_nodes = kMaxYamlNodes);

}  // namespace placebench::hostpipe
