// allgather: every rank ends with all ranks' inputs, rank k's block at k x send_count.
// size = the gathered buffer (n x send_count elements); algbw = size / time; busbw = algbw x (n-1)/n:
// each rank receives the (n-1) blocks it does not have (nccl-tests doc/PERFORMANCE.md, "AllGather").
// In place: the rank's input sits at its own block of the output (MPI_IN_PLACE, NCCL's convention).
#include "op_common.h"

namespace placebench::collectives::detail {
namespace {

class AllGather final : public LoopedOp<AllGather> {
 public:
  Collective id() const override { return Collective::kAllGather; }
  double bus_factor(int n) const override { return static_cast<double>(n - 1) / n; }
  OpLayout layout(std::size_t bytes, const OpContext& ctx) const override {
    std::size_t per_rank = at_least_one(bytes / type_size(ctx.type) / static_cast<std::size_t>(ctx.nranks));
    std::size_t total = per_rank * static_cast<std::size_t>(ctx.nranks);
    return {total, per_rank, total, per_rank * static_cast<std::size_t>(ctx.rank), 0};
  }
  double expected(const OpContext& ctx, const OpLayout& l, std::size_t i) const override {
    return input_value(ctx, false, static_cast<int>(i / l.send_count), i % l.send_count);
  }
#if PLACEBENCH_HAVE_MPI
  void run_mpi(const OpCall& c) const override {
    MPI_Datatype t = mpi_type(c.ctx.type);
    int n = mpi_count(c.layout.send_count);
    if (c.ctx.in_place)
      PB_MPI_CALL(MPI_Allgather(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, c.recv, n, t, mpi_comm(c)));
    else
      PB_MPI_CALL(MPI_Allgather(c.send, n, t, c.recv, n, t, mpi_comm(c)));
  }
#endif
#if PLACEBENCH_HAVE_NCCL
  void run_nccl(const OpCall& c) const override {
    const void* send = c.ctx.in_place ? at(c.recv, c.layout.in_offset, c.ctx.type) : c.send;
    PB_NCCL_CALL_ASYNC(nccl_api().ncclAllGather(send, c.recv, c.layout.send_count, nccl_type(c.ctx.type),
                                                nccl_comm(c), nccl_stream(c)));
  }
#endif
};

}  // namespace

const CollectiveOp& allgather_op() {
  static const AllGather op;
  return op;
}

}  // namespace placebench::collectives::detail
