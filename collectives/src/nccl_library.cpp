// dlopen() of libnccl.so.2 (see nccl_library.h). Function types come from nccl.h, so a signature
// change in NCCL is a compile error here, not a crash at run time.
#include "placebench/collectives/nccl_library.h"

#include <dlfcn.h>

#include <cstdio>
#include <cstdlib>
#if PLACEBENCH_HAVE_NCCL
#include <nccl.h>
#endif

namespace placebench::collectives {

std::string format_nccl_version(int version) {
  if (version <= 0) return "not found";
  // Since NCCL 2.9 the code is major*10000 + minor*100 + patch; before, major*1000 + minor*100 + patch.
  int major = version >= 10000 ? version / 10000 : version / 1000;
  int minor = version >= 10000 ? (version % 10000) / 100 : (version % 1000) / 100;
  int patch = version % 100;
  char buf[32];
  std::snprintf(buf, sizeof buf, "%d.%d.%d", major, minor, patch);
  return buf;
}

namespace {

NcclAvailability load() {
  NcclAvailability a;
#if PLACEBENCH_HAVE_NCCL
  a.built = true;
  const char* override_path = std::getenv("NCCL_LIBRARY");
  const char* path = override_path && *override_path ? override_path : "libnccl.so.2";
  void* handle = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  if (!handle) {
    const char* err = dlerror();
    a.detail = std::string("cannot load ") + path + ": " + (err ? err : "unknown error") +
               " (install NCCL or set NCCL_LIBRARY to libnccl.so.2's path)";
    return a;
  }
  using GetVersion = decltype(&ncclGetVersion);
  auto get_version = reinterpret_cast<GetVersion>(dlsym(handle, "ncclGetVersion"));
  if (!get_version || get_version(&a.version) != ncclSuccess) {
    a.detail = std::string(path) + " has no working ncclGetVersion";
    return a;
  }
  a.loaded = true;
  a.detail = path;
#else
  a.detail = "NCCL backend not built (configure with PLACEBENCH_ENABLE_NCCL=ON)";
#endif
  return a;
}

}  // namespace

const NcclAvailability& nccl_availability() {
  static const NcclAvailability availability = load();
  return availability;
}

}  // namespace placebench::collectives
