// sendrecv (ring): rank r sends its buffer to r+1 and receives r-1's, all at once.
// algbw = size / time; busbw = algbw x 1: every byte crosses one link (nccl-tests sendrecv.cu).
// In place: MPI_Sendrecv_replace; NCCL has no in-place form (the send would race the receive).
#include "op_common.h"

namespace placebench::collectives::detail {
namespace {

class SendRecv final : public LoopedOp<SendRecv> {
 public:
  Collective id() const override { return Collective::kSendRecv; }
  double bus_factor(int) const override { return 1.0; }
  OpLayout layout(std::size_t bytes, const OpContext& ctx) const override {
    std::size_t c = at_least_one(bytes / type_size(ctx.type));
    return {c, c, c, 0, 0};
  }
  double expected(const OpContext& ctx, const OpLayout&, std::size_t i) const override {
    return input_value(ctx, false, (ctx.rank + ctx.nranks - 1) % ctx.nranks, i);
  }
  const char* unsupported(const OpContext& ctx) const override {
    if (ctx.backend == Backend::kNccl && ctx.in_place) return "NCCL has no in-place send/recv";
    return CollectiveOp::unsupported(ctx);
  }
#if PLACEBENCH_HAVE_MPI
  void run_mpi(const OpCall& c) const override {
    int next = (c.ctx.rank + 1) % c.ctx.nranks, prev = (c.ctx.rank + c.ctx.nranks - 1) % c.ctx.nranks;
    int n = mpi_count(c.layout.count);
    MPI_Datatype t = mpi_type(c.ctx.type);
    if (c.ctx.in_place)
      PB_MPI_CALL(MPI_Sendrecv_replace(c.recv, n, t, next, 7, prev, 7, mpi_comm(c), MPI_STATUS_IGNORE));
    else
      PB_MPI_CALL(MPI_Sendrecv(c.send, n, t, next, 7, c.recv, n, t, prev, 7, mpi_comm(c), MPI_STATUS_IGNORE));
  }
#endif
#if PLACEBENCH_HAVE_NCCL
  void run_nccl(const OpCall& c) const override {
    const NcclApi& nccl = nccl_api();
    int next = (c.ctx.rank + 1) % c.ctx.nranks, prev = (c.ctx.rank + c.ctx.nranks - 1) % c.ctx.nranks;
    PB_NCCL_CALL_ASYNC(nccl.ncclGroupStart());
    PB_NCCL_CALL_ASYNC(nccl.ncclSend(c.send, c.layout.count, nccl_type(c.ctx.type), next, nccl_comm(c), nccl_stream(c)));
    PB_NCCL_CALL_ASYNC(nccl.ncclRecv(c.recv, c.layout.count, nccl_type(c.ctx.type), prev, nccl_comm(c), nccl_stream(c)));
    PB_NCCL_CALL_ASYNC(nccl.ncclGroupEnd());
  }
#endif
};

}  // namespace

const CollectiveOp& sendrecv_op() {
  static const SendRecv op;
  return op;
}

}  // namespace placebench::collectives::detail
