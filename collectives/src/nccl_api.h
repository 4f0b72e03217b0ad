// The NCCL functions placebench calls, resolved with dlsym from the library nccl_availability()
// loaded (NCCL is never linked). Types come from nccl.h via decltype, so an API change is a compile
// error. Only built with the NCCL backend.
#pragma once
#if PLACEBENCH_HAVE_NCCL
#include <nccl.h>

#include <string>

// The fp8 element types (ncclFloat8e4m3, ncclFloat8e5m2) are NCCL 2.24+: in the headers built against
// (PB_NCCL_HAS_FP8) and in the library loaded at run time (kNcclFp8Version, ncclGetVersion's code).
#if defined(NCCL_VERSION_CODE) && NCCL_VERSION_CODE >= 22400
#define PB_NCCL_HAS_FP8 1
#else
#define PB_NCCL_HAS_FP8 0
#endif

namespace placebench::collectives::detail {

constexpr int kNcclFp8Version = 22400;

struct NcclApi {
#define PB_NCCL_FN(name) decltype(&::name) name = nullptr;
  PB_NCCL_FN(ncclGetErrorString)
  PB_NCCL_FN(ncclGetLastError)
  PB_NCCL_FN(ncclGetUniqueId)
  PB_NCCL_FN(ncclCommInitRankConfig)
  PB_NCCL_FN(ncclCommGetAsyncError)
  PB_NCCL_FN(ncclCommAbort)
  PB_NCCL_FN(ncclCommFinalize)
  PB_NCCL_FN(ncclCommDestroy)
  PB_NCCL_FN(ncclAllReduce)
  PB_NCCL_FN(ncclAllGather)
  PB_NCCL_FN(ncclReduceScatter)
  PB_NCCL_FN(ncclBroadcast)
  PB_NCCL_FN(ncclReduce)
  PB_NCCL_FN(ncclSend)
  PB_NCCL_FN(ncclRecv)
  PB_NCCL_FN(ncclGroupStart)
  PB_NCCL_FN(ncclGroupEnd)
#undef PB_NCCL_FN
};

// The resolved table; throws std::runtime_error (saying what to install) when NCCL is not loadable
// or lacks one of the functions.
const NcclApi& nccl_api();

// Throws std::runtime_error with NCCL's message, the call, file and line unless rc is ncclSuccess
// (or ncclInProgress when allowed: non-blocking communicators).
void nccl_check(ncclResult_t rc, const char* what, const char* file, int line, bool allow_in_progress = false);

}  // namespace placebench::collectives::detail

#define PB_NCCL_CALL(expr) ::placebench::collectives::detail::nccl_check((expr), #expr, __FILE__, __LINE__)
#define PB_NCCL_CALL_ASYNC(expr) \
  ::placebench::collectives::detail::nccl_check((expr), #expr, __FILE__, __LINE__, true)
#endif
