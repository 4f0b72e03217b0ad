// reduce: the root ends with the reduction over all ranks; other ranks' outputs are not defined (and
// not checked).
// algbw = size / time; busbw = algbw x 1 (nccl-tests doc/PERFORMANCE.md, "Reduce"). In place: the
// root passes MPI_IN_PLACE; others send from the single buffer.
#include "op_common.h"

namespace placebench::collectives::detail {
namespace {

class Reduce final : public LoopedOp<Reduce> {
 public:
  Collective id() const override { return Collective::kReduce; }
  double bus_factor(int) const override { return 1.0; }
  OpLayout layout(std::size_t bytes, const OpContext& ctx) const override {
    std::size_t c = at_least_one(bytes / type_size(ctx.type));
    return {c, c, c, 0, 0};
  }
  bool output_checked(const OpContext& ctx) const override { return ctx.rank == ctx.root; }
  double expected(const OpContext& ctx, const OpLayout&, std::size_t i) const override { return reduced_input(ctx, i); }
#if PLACEBENCH_HAVE_MPI
  void run_mpi(const OpCall& c) const override {
    bool root = c.ctx.rank == c.ctx.root;
    const void* send = c.ctx.in_place && root ? MPI_IN_PLACE : c.ctx.in_place ? c.recv : c.send;
    PB_MPI_CALL(MPI_Reduce(send, c.recv, mpi_count(c.layout.count), mpi_type(c.ctx.type), mpi_op(c.ctx.redop),
                           c.ctx.root, mpi_comm(c)));
  }
#endif
#if PLACEBENCH_HAVE_NCCL
  void run_nccl(const OpCall& c) const override {
    PB_NCCL_CALL_ASYNC(nccl_api().ncclReduce(c.send, c.recv, c.layout.count, nccl_type(c.ctx.type), nccl_op(c.ctx.redop),
                                             c.ctx.root, nccl_comm(c), nccl_stream(c)));
  }
#endif
};

}  // namespace

const CollectiveOp& reduce_op() {
  static const Reduce op;
  return op;
}

}  // namespace placebench::collectives::detail
