// The kernel release (uname) and the NVIDIA driver's version (/proc/driver/nvidia/version): node_versions.h.
#include "placebench/kernels/node_versions.h"

#include <sys/utsname.h>

#include <cctype>
#include <fstream>
#include <vector>

namespace placebench::kernels {
namespace {

// The file is two short lines; anything longer than this is not the driver's file.
constexpr std::size_t kMaxProcVersionBytes = 4096;

std::vector<std::string_view> words(std::string_view line) {
  std::vector<std::string_view> out;
  std::size_t i = 0;
  while (i < line.size()) {
    while (i < line.size() && std::isspace(static_cast<unsigned char>(line[i]))) ++i;
    std::size_t start = i;
    while (i < line.size() && !std::isspace(static_cast<unsigned char>(line[i]))) ++i;
    if (i > start) out.push_back(line.substr(start, i - start));
  }
  return out;
}

// "550.54.15", "177.80": digits, then one or more ".digits".
bool is_driver_version(std::string_view w) {
  bool dot = false, digit_before = false;
  for (char c : w) {
    if (std::isdigit(static_cast<unsigned char>(c))) {
      digit_before = true;
    } else if (c == '.' && digit_before) {
      dot = true;
      digit_before = false;
    } else {
      return false;
    }
  }
  return dot && digit_before;
}

std::optional<std::string> version_in_nvrm_line(std::string_view line) {
  const std::vector<std::string_view> w = words(line);
  for (std::size_t i = 0; i + 1 < w.size(); ++i) {
    if (w[i] != "Kernel" || w[i + 1] != "Module") continue;
    std::size_t at = i + 2;
    if (at < w.size() && w[at] == "for") at += 2;  // the open flavour: "Module for x86_64  550.54.15"
    if (at < w.size() && is_driver_version(w[at])) return std::string(w[at]);
    return std::nullopt;
  }
  return std::nullopt;
}

}  // namespace

std::optional<std::string> parse_nvidia_proc_version(std::string_view text) {
  constexpr std::string_view kPrefix = "NVRM version:";
  while (!text.empty()) {
    std::size_t end = text.find('\n');
    std::string_view line = text.substr(0, end);
    if (line.substr(0, kPrefix.size()) == kPrefix) return version_in_nvrm_line(line.substr(kPrefix.size()));
    if (end == std::string_view::npos) break;
    text.remove_prefix(end + 1);
  }
  return std::nullopt;
}

std::optional<std::string> nvidia_driver_version(const std::string& path) {
  std::ifstream in(path, std::ios::binary);  // procfs reports size 0: read what it gives, up to the bound
  if (!in) return std::nullopt;
  std::string text(kMaxProcVersionBytes + 1, '\0');
  in.read(text.data(), static_cast<std::streamsize>(text.size()));
  text.resize(static_cast<std::size_t>(in.gcount()));
  if (text.size() > kMaxProcVersionBytes) return std::nullopt;
  return parse_nvidia_proc_version(text);
}

std::optional<std::string> kernel_release() {
  struct utsname u {};
  if (uname(&u) != 0 || u.release[0] == '\0') return std::nullopt;
  return std::string(u.release);
}

}  // namespace placebench::kernels
