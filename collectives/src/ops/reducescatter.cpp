// reducescatter: rank r ends with block r (recv_count elements) of the reduction over all ranks.
// size = a rank's input (n x recv_count elements); algbw = size / time; busbw = algbw x (n-1)/n: each
// rank sends the (n-1) blocks that others own (nccl-tests doc/PERFORMANCE.md, "ReduceScatter").
// In place: the input fills the buffer; MPI_Reduce_scatter_block leaves the result at its start, NCCL
// at block r. Out of place both write recvbuff[0, recv_count), so the checked window starts at 0.
#include "op_common.h"

namespace placebench::collectives::detail {
namespace {

class ReduceScatter final : public LoopedOp<ReduceScatter> {
 public:
  Collective id() const override { return Collective::kReduceScatter; }
  double bus_factor(int n) const override { return static_cast<double>(n - 1) / n; }
  OpLayout layout(std::size_t bytes, const OpContext& ctx) const override {
    std::size_t per_rank = at_least_one(bytes / type_size(ctx.type) / static_cast<std::size_t>(ctx.nranks));
    std::size_t total = per_rank * static_cast<std::size_t>(ctx.nranks);
    std::size_t out = ctx.backend == Backend::kNccl && ctx.in_place ? per_rank * static_cast<std::size_t>(ctx.rank) : 0;
    return {total, total, per_rank, 0, out};
  }
  double expected(const OpContext& ctx, const OpLayout& l, std::size_t i) const override {
    return reduced_input(ctx, static_cast<std::size_t>(ctx.rank) * l.recv_count + i);
  }
#if PLACEBENCH_HAVE_MPI
  void run_mpi(const OpCall& c) const override {
    PB_MPI_CALL(MPI_Reduce_scatter_block(c.ctx.in_place ? MPI_IN_PLACE : c.send, c.recv, mpi_count(c.layout.recv_count),
                                         mpi_type(c.ctx.type), mpi_op(c.ctx.redop), mpi_comm(c)));
  }
#endif
#if PLACEBENCH_HAVE_NCCL
  void run_nccl(const OpCall& c) const override {
    void* recv = c.ctx.in_place ? at(c.recv, c.layout.out_offset, c.ctx.type) : c.recv;
    PB_NCCL_CALL_ASYNC(nccl_api().ncclReduceScatter(c.send, recv, c.layout.recv_count, nccl_type(c.ctx.type),
                                                    nccl_op(c.ctx.redop), nccl_comm(c), nccl_stream(c)));
  }
#endif
};

}  // namespace

const CollectiveOp& reducescatter_op() {
  static const ReduceScatter op;
  return op;
}

}  // namespace placebench::collectives::detail
