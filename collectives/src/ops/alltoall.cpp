// alltoall: rank r sends block p of its input to rank p and receives rank p's block r into block p.
// size = a rank's buffer (n blocks); algbw = size / time; busbw = algbw x (n-1)/n: all blocks but the
// rank's own cross a link (nccl-tests doc/PERFORMANCE.md; alltoall.cu uses (n-1)/n).
// NCCL: grouped ncclSend/ncclRecv as nccl-tests does (works on every NCCL 2.7+); no in-place form.
#include "op_common.h"

namespace placebench::collectives::detail {
namespace {

class AllToAll final : public LoopedOp<AllToAll> {
 public:
  Collective id() const override { return Collective::kAllToAll; }
  double bus_factor(int n) const override { return static_cast<double>(n - 1) / n; }
  OpLayout layout(std::size_t bytes, const OpContext& ctx) const override {
    std::size_t block = at_least_one(bytes / type_size(ctx.type) / static_cast<std::size_t>(ctx.nranks));
    std::size_t total = block * static_cast<std::size_t>(ctx.nranks);
    return {total, total, total, 0, 0};
  }
  double expected(const OpContext& ctx, const OpLayout& l, std::size_t i) const override {
    std::size_t block = l.count / static_cast<std::size_t>(ctx.nranks);
    int from = static_cast<int>(i / block);
    return input_value(ctx, false, from, static_cast<std::size_t>(ctx.rank) * block + i % block);
  }
  const char* unsupported(const OpContext& ctx) const override {
    if (ctx.backend == Backend::kNccl && ctx.in_place) return "NCCL has no in-place alltoall";
    return CollectiveOp::unsupported(ctx);
  }
#if PLACEBENCH_HAVE_MPI
  void run_mpi(const OpCall& c) const override {
    MPI_Datatype t = mpi_type(c.ctx.type);
    int block = mpi_count(c.layout.count / static_cast<std::size_t>(c.ctx.nranks));
    if (c.ctx.in_place)
      PB_MPI_CALL(MPI_Alltoall(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, c.recv, block, t, mpi_comm(c)));
    else
      PB_MPI_CALL(MPI_Alltoall(c.send, block, t, c.recv, block, t, mpi_comm(c)));
  }
#endif
#if PLACEBENCH_HAVE_NCCL
  void run_nccl(const OpCall& c) const override {
    const NcclApi& nccl = nccl_api();
    std::size_t block = c.layout.count / static_cast<std::size_t>(c.ctx.nranks);
    PB_NCCL_CALL_ASYNC(nccl.ncclGroupStart());
    for (int p = 0; p < c.ctx.nranks; ++p) {
      std::size_t off = block * static_cast<std::size_t>(p);
      PB_NCCL_CALL_ASYNC(nccl.ncclSend(at(c.send, off, c.ctx.type), block, nccl_type(c.ctx.type), p, nccl_comm(c), nccl_stream(c)));
      PB_NCCL_CALL_ASYNC(nccl.ncclRecv(at(c.recv, off, c.ctx.type), block, nccl_type(c.ctx.type), p, nccl_comm(c), nccl_stream(c)));
    }
    PB_NCCL_CALL_ASYNC(nccl.ncclGroupEnd());
  }
#endif
};

}  // namespace

const CollectiveOp& alltoall_op() {
  static const AllToAll op;
  return op;
}

}  // namespace placebench::collectives::detail
