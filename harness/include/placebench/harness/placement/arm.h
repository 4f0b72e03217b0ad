// Placement arms: where a worker's CPUs and host memory sit relative to its device's NUMA node.
#pragma once
#include <optional>
#include <string>
#include <vector>

namespace placebench::harness {

enum class Arm { kLocal, kRemote, kUnpinned, kCpuLocalMemRemote, kCpuRemoteMemLocal };

// "local", "remote", "unpinned", "cpu-local-mem-remote", "cpu-remote-mem-local".
std::string arm_name(Arm arm);
std::optional<Arm> parse_arm(const std::string& name);
std::vector<Arm> all_arms();
// "local, remote, ..." for error messages.
std::string arm_names_list();

// Parses "a,b,c"; throws InputError naming `where` (e.g. "--arms") and the accepted names.
std::vector<Arm> parse_arm_list(const std::string& text, const std::string& where);

}  // namespace placebench::harness
