// Arm names (see arm.h).
#include "placebench/harness/placement/arm.h"

#include <sstream>

#include "placebench/harness/errors.h"

namespace placebench::harness {

std::string arm_name(Arm arm) {
  switch (arm) {
    case Arm::kLocal: return "local";
    case Arm::kRemote: return "remote";
    case Arm::kUnpinned: return "unpinned";
    case Arm::kCpuLocalMemRemote: return "cpu-local-mem-remote";
    case Arm::kCpuRemoteMemLocal: return "cpu-remote-mem-local";
  }
  return "?";
}

std::vector<Arm> all_arms() {
  return {Arm::kLocal, Arm::kRemote, Arm::kUnpinned, Arm::kCpuLocalMemRemote, Arm::kCpuRemoteMemLocal};
}

std::optional<Arm> parse_arm(const std::string& name) {
  for (Arm a : all_arms())
    if (arm_name(a) == name) return a;
  return std::nullopt;
}

std::string arm_names_list() {
  std::string out;
  for (Arm a : all_arms()) out += (out.empty() ? "" : ", ") + arm_name(a);
  return out;
}

std::vector<Arm> parse_arm_list(const std::string& text, const std::string& where) {
  std::vector<Arm> arms;
  std::stringstream ss(text);
  for (std::string item; std::getline(ss, item, ',');) {
    auto arm = parse_arm(item);
    if (!arm) throw InputError(where + ": unknown arm '" + item + "'; accepted: " + arm_names_list());
    arms.push_back(*arm);
  }
  if (arms.empty()) throw InputError(where + ": no arm given; accepted: " + arm_names_list());
  return arms;
}

}  // namespace placebench::harness
