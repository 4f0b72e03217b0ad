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

[[noreturn]] void backend_not_built(const char* backend);
[[noreturn]] void mpi_count_too_large(std::size_t count);

// MPI counts are int: larger calls are refused with a message rather than truncated.
inline int mpi_count(std::size_t count) {
  if (count > static_cast<std::size_t>(INT_MAX)) mpi_count_too_large(count);
  return static_cast<int>(count);
}

// The mappings are inline: they run in every timed call.
#if PLACEBENCH_HAVE_MPI
// MPI has no 16-bit floating types: half and bfloat16 travel as 16-bit words (no reduction).
inline MPI_Datatype mpi_type(DataType type) {
  switch (type) {
    case DataType::kInt8: return MPI_INT8_T;
    case DataType::kInt32: return MPI_INT32_T;
    case DataType::kFloat16:
    case DataType::kBFloat16: return MPI_UINT16_T;
    case DataType::kFloat32: return MPI_FLOAT;
    case DataType::kFloat64: return MPI_DOUBLE;
    case DataType::kFloat8E4M3:
    case DataType::kFloat8E5M2: break;  // refused before any call (type_refusal)
  }
  return MPI_DATATYPE_NULL;
}

inline MPI_Op mpi_op(ReduceOp op) {
  switch (op) {
    case ReduceOp::kSum: return MPI_SUM;
    case ReduceOp::kProd: return MPI_PROD;
    case ReduceOp::kMax: return MPI_MAX;
    case ReduceOp::kMin: return MPI_MIN;
  }
  return MPI_OP_NULL;
}

inline MPI_Comm mpi_comm(const OpCall& c) { return *static_cast<MPI_Comm*>(c.comm); }
#endif

// The base of every op: run_mpi_n calls the op's own run_mpi, bound statically (inlined), so a timed
// block of back-to-back calls pays no virtual call per call. Op derives from LoopedOp<Op>.
template <class Op>
class LoopedOp : public CollectiveOp {
 public:
  void run_mpi_n(const OpCall& call, int n) const final {
    const Op& op = static_cast<const Op&>(*this);
    for (int i = 0; i < n; ++i) op.Op::run_mpi(call);
  }
};

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
