// What the node runs below the CUDA runtime: the Linux kernel release and the NVIDIA kernel module's
// version. CPU-only code, in every build (no CUDA needed): the history store compares them run to run
// ("gpu_driver 550.54.15 -> 560.28.03", "kernel 6.1.0-18-amd64 -> 6.1.0-21-amd64").
#pragma once
#include <optional>
#include <string>
#include <string_view>

namespace placebench::kernels {

// Where nvidia.ko writes its version ("NVRM version: ..." then "GCC version: ...").
inline constexpr const char* kNvidiaProcVersionPath = "/proc/driver/nvidia/version";

// The driver's version from the text of /proc/driver/nvidia/version: the number after "Kernel Module" on
// the "NVRM version:" line, in both flavours nvidia.ko writes (nv-procfs.c, "NVRM version: %s" of its id):
//   NVRM version: NVIDIA UNIX x86_64 Kernel Module  550.54.15  Tue Mar  5 22:23:56 UTC 2024
//   NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  550.54.15  Release Build  (...)  <date>
// nullopt when there is no such line or no version where the format puts it (never a guess).
std::optional<std::string> parse_nvidia_proc_version(std::string_view text);

// The loaded NVIDIA driver's version, read from `path`; nullopt when no NVIDIA driver is loaded (no file),
// the file cannot be read, or it holds no version in the driver's format.
std::optional<std::string> nvidia_driver_version(const std::string& path = kNvidiaProcVersionPath);

// uname(2)'s release ("6.1.0-18-amd64"); nullopt when uname fails.
std::optional<std::string> kernel_release();

}  // namespace placebench::kernels
