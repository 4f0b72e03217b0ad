// broadcast: every rank ends with the root's buffer.
// algbw = size / time; busbw = algbw x 1: a pipelined broadcast moves every byte over each link once
// (nccl-tests doc/PERFORMANCE.md, "Broadcast"). MPI_Bcast is in place by nature; out of place, the root
// first copies its input to its output (what NCCL does on the root), so both modes mean the same.
#include <cstring>

#include "op_common.h"

namespace placebench::collectives::detail {
namespace {

class Broadcast final : public LoopedOp<Broadcast> {
 public:
  Collective id() const override { return Collective::kBroadcast; }
  double bus_factor(int) const override { return 1.0; }
  OpLayout layout(std::size_t bytes, const OpContext& ctx) const override {
    std::size_t c = at_least_one(bytes / type_size(ctx.type));
    return {c, c, c, 0, 0};
  }
  double expected(const OpContext& ctx, const OpLayout&, std::size_t i) const override {
    return input_value(ctx, false, ctx.root, i);
  }
#if PLACEBENCH_HAVE_MPI
  void run_mpi(const OpCall& c) const override {
    if (!c.ctx.in_place && c.ctx.rank == c.ctx.root)
      std::memcpy(c.recv, c.send, c.layout.count * type_size(c.ctx.type));
    PB_MPI_CALL(MPI_Bcast(c.recv, mpi_count(c.layout.count), mpi_type(c.ctx.type), c.ctx.root, mpi_comm(c)));
  }
#endif
#if PLACEBENCH_HAVE_NCCL
  void run_nccl(const OpCall& c) const override {
    PB_NCCL_CALL_ASYNC(nccl_api().ncclBroadcast(c.send, c.recv, c.layout.count, nccl_type(c.ctx.type), c.ctx.root,
                                                nccl_comm(c), nccl_stream(c)));
  }
#endif
};

}  // namespace

const CollectiveOp& broadcast_op() {
  static const Broadcast op;
  return op;
}

}  // namespace placebench::collectives::detail
