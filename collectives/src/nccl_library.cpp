// dlopen() of libnccl.so.2 (see nccl_library.h). Function types come from nccl.h, so a signature
// change in NCCL is a compile error here, not a crash at run time.
#include "placebench/collectives/nccl_library.h"

#include <dlfcn.h>

#include <stdexcept>
#include <string>
#include <type_traits>

#include "nccl_api.h"

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

[[maybe_unused]] void* g_handle = nullptr;  // the loaded library, for nccl_api() (NCCL builds)

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
  g_handle = handle;
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

#if PLACEBENCH_HAVE_NCCL
namespace placebench::collectives::detail {
namespace {

NcclApi resolve() {
  const NcclAvailability& a = nccl_availability();
  if (!a.loaded) throw std::runtime_error("NCCL backend: " + a.detail);
  NcclApi api;
  std::string missing;
  auto sym = [&](auto& fn, const char* name) {
    fn = reinterpret_cast<std::remove_reference_t<decltype(fn)>>(dlsym(g_handle, name));
    if (!fn) missing += std::string(missing.empty() ? "" : ", ") + name;
  };
#define PB_NCCL_SYM(name) sym(api.name, #name);
  PB_NCCL_SYM(ncclGetErrorString)
  PB_NCCL_SYM(ncclGetLastError)
  PB_NCCL_SYM(ncclGetUniqueId)
  PB_NCCL_SYM(ncclCommInitRankConfig)
  PB_NCCL_SYM(ncclCommGetAsyncError)
  PB_NCCL_SYM(ncclCommAbort)
  PB_NCCL_SYM(ncclCommFinalize)
  PB_NCCL_SYM(ncclCommDestroy)
  PB_NCCL_SYM(ncclAllReduce)
  PB_NCCL_SYM(ncclAllGather)
  PB_NCCL_SYM(ncclReduceScatter)
  PB_NCCL_SYM(ncclBroadcast)
  PB_NCCL_SYM(ncclReduce)
  PB_NCCL_SYM(ncclSend)
  PB_NCCL_SYM(ncclRecv)
  PB_NCCL_SYM(ncclGroupStart)
  PB_NCCL_SYM(ncclGroupEnd)
#undef PB_NCCL_SYM
  if (!missing.empty())
    throw std::runtime_error("NCCL backend: " + a.detail + " lacks " + missing + " (NCCL 2.14 or newer is needed)");
  return api;
}

}  // namespace

const NcclApi& nccl_api() {
  static const NcclApi api = resolve();
  return api;
}

void nccl_check(ncclResult_t rc, const char* what, const char* file, int line, bool allow_in_progress) {
  if (rc == ncclSuccess || (allow_in_progress && rc == ncclInProgress)) return;
  const char* msg = nccl_api().ncclGetErrorString ? nccl_api().ncclGetErrorString(rc) : "unknown";
  const char* last = nccl_api().ncclGetLastError ? nccl_api().ncclGetLastError(nullptr) : nullptr;  // NCCL's detail
  throw std::runtime_error(std::string(what) + " failed: " + msg + (last && *last ? std::string(": ") + last : "") + " (" +
                           file + ":" + std::to_string(line) + ")");
}

}  // namespace placebench::collectives::detail
#endif
