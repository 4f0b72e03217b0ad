// Shared by the per-collective files: MPI and NCCL type/op mappings and error checks (PB_MPI_CALL,
// PB_NCCL_CALL).
#pragma once
#include <climits>
#include <cstddef>
#include <stdexcept>
#include <string>

#include "op.h"
#if PLACEBENCH_HAVE_MPI
#include <mpi.h>

#include "../mpi_call.h"
#endif
#if PLACEBENCH_HAVE_NCCL
#include <nccl.h>
#include "../nccl_api.h"
#endif

namespace placebench::collectives::detail {

#if PLACEBENCH_HAVE_MPI
// MPI has no 16-bit floating types: half and bfloat16 travel as 16-bit words (no reduction).
MPI_Datatype mpi_type(DataType type);
MPI_Op mpi_op(ReduceOp op);
inline MPI_Comm mpi_comm(const OpCall& c) { return *static_cast<MPI_Comm*>(c.comm); }
#endif

[[noreturn]] void backend_not_built(const char* backend);

// MPI counts are int: larger calls are refused with a message rather than truncated.
int mpi_count(std::size_t count);

// Byte address of element `elements` of the call's type from base.
inline const void* at(const void* base, std::size_t elements, DataType type) {
  return static_cast<const char*>(base) + elements * type_size(type);
}
inline void* at(void* base, std::size_t elements, DataType type) {
  return static_cast<char*>(base) + elements * type_size(type);
}
inline std::size_t at_least_one(std::size_t n) { return n ? n : 1; }

#if PLACEBENCH_HAVE_NCCL
ncclDataType_t nccl_type(DataType type);
ncclRedOp_t nccl_op(ReduceOp op);
inline ncclComm_t nccl_comm(const OpCall& c) { return static_cast<ncclComm_t>(c.comm); }
inline cudaStream_t nccl_stream(const OpCall& c) { return static_cast<cudaStream_t>(c.stream); }
#endif

}  // namespace placebench::collectives::detail
