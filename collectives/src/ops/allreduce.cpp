// allreduce: every rank ends with the reduction over all ranks of the whole buffer.
// algbw = size / time; busbw = algbw x 2(n-1)/n: a bandwidth-optimal allreduce is a reduce-scatter plus
// an all-gather, so each rank sends and receives 2(n-1)/n of the data (nccl-tests doc/PERFORMANCE.md,
// "AllReduce"). Layout: send = recv = count; in place, one buffer (MPI_IN_PLACE).
#include "op_common.h"

namespace placebench::collectives::detail {
namespace {

class AllReduce final : public LoopedOp<AllReduce> {
 public:
  Collective id() const override { return Collective::kAllReduce; }
  double bus_factor(int n) const override { return 2.0 * (n - 1) / n; }
  OpLayout layout(std::size_t bytes, const OpContext& ctx) const override {
    std::size_t c = at_least_one(bytes / type_size(ctx.type));
    return {c, c, c, 0, 0};
  }
  double expected(const OpContext& ctx, const OpLayout&, std::size_t i) const override { return reduced_input(ctx, i); }
#if PLACEBENCH_HAVE_MPI
  void run_mpi(const OpCall& c) const override {
    PB_MPI_CALL(MPI_Allreduce(c.ctx.in_place ? MPI_IN_PLACE : c.send, c.recv, mpi_count(c.layout.count),
                              mpi_type(c.ctx.type), mpi_op(c.ctx.redop), mpi_comm(c)));
  }
#endif
#if PLACEBENCH_HAVE_NCCL
  void run_nccl(const OpCall& c) const override {
    PB_NCCL_CALL_ASYNC(nccl_api().ncclAllReduce(c.send, c.recv, c.layout.count, nccl_type(c.ctx.type),
                                                nccl_op(c.ctx.redop), nccl_comm(c), nccl_stream(c)));
  }
#endif
};

}  // namespace

const CollectiveOp& allreduce_op() {
  static const AllReduce op;
  return op;
}

}  // namespace placebench::collectives::detail
