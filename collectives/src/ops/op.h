// Internal interface of one collective (one file per collective in src/ops): its buffer layout, its
// bus-bandwidth factor, the exactly predictable input of every rank, the expected output, and the
// MPI and NCCL calls. Only collectives' sources include this (it pulls in mpi.h / nccl.h).
#pragma once
#include <cstddef>

#include "placebench/collectives/collective.h"
#include "placebench/collectives/datatype.h"

namespace placebench::collectives::detail {

// Where the data of one call lives, in elements of the type.
struct OpLayout {
  std::size_t count = 0;        // nccl-tests' count: elements of the larger per-rank buffer
  std::size_t send_count = 0;   // elements of a rank's input
  std::size_t recv_count = 0;   // elements of a rank's output
  std::size_t in_offset = 0;    // in place: the input starts here in the single buffer ...
  std::size_t out_offset = 0;   // ... and the output here
  std::size_t buffer_count() const { return send_count > recv_count ? send_count : recv_count; }
};

struct OpContext {
  int nranks = 1, rank = 0, root = 0;
  DataType type = DataType::kFloat32;
  ReduceOp redop = ReduceOp::kSum;
  Backend backend = Backend::kMpi;
  bool in_place = false;
};

// One call. send/recv are the out-of-place buffers; in place, both point at the single buffer's start.
// comm is the MPI_Comm (MPI) or ncclComm_t (NCCL); stream the cudaStream_t (NCCL).
struct OpCall {
  OpContext ctx;
  OpLayout layout;
  const void* send = nullptr;
  void* recv = nullptr;
  void* comm = nullptr;
  void* stream = nullptr;
};

class CollectiveOp {
 public:
  virtual ~CollectiveOp() = default;
  virtual Collective id() const = 0;
  virtual double bus_factor(int nranks) const = 0;
  // Layout for a requested size in bytes (counts rounded as nccl-tests does; at least one element).
  virtual OpLayout layout(std::size_t bytes, const OpContext& ctx) const = 0;
  // Whether this rank's output is checked (reduce: only the root's).
  virtual bool output_checked(const OpContext& ctx) const { (void)ctx; return true; }
  // Expected value of output element i on ctx.rank, from input_value() of the ranks.
  virtual double expected(const OpContext& ctx, const OpLayout& layout, std::size_t i) const = 0;
  // Why this backend cannot run it (nullptr: it can).
  virtual const char* unsupported(const OpContext& ctx) const;
  // One call of the collective. Each op overrides these only where its backend is built; the
  // defaults throw (the backend is not built into this binary).
  virtual void run_mpi(const OpCall& call) const;
  virtual void run_nccl(const OpCall& call) const;
  // n MPI calls back to back (a timed block): one virtual call for the block, not one per call
  // (LoopedOp in op_common.h binds each op's run_mpi statically).
  virtual void run_mpi_n(const OpCall& call, int n) const = 0;
};

const CollectiveOp& collective_op(Collective op);

// The value rank k writes at element j of its input: small integers, exact in every type (sums of up
// to 64 ranks stay exact even in bfloat16), different per rank and per element so that a misplaced
// block is caught.
double input_value(const OpContext& ctx, bool reduces, int k, std::size_t j);

// The reduction over all ranks of input element j (reducing collectives).
double reduced_input(const OpContext& ctx, std::size_t j);

}  // namespace placebench::collectives::detail

namespace placebench::collectives::detail {
// One per file in src/ops.
const CollectiveOp& allreduce_op();
const CollectiveOp& allgather_op();
const CollectiveOp& reducescatter_op();
const CollectiveOp& broadcast_op();
const CollectiveOp& reduce_op();
const CollectiveOp& alltoall_op();
const CollectiveOp& sendrecv_op();
}  // namespace placebench::collectives::detail
