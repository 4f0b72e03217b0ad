// Collective names, inputs, reductions and the MPI/NCCL mappings shared by src/ops/*.cpp.
#include "op_common.h"

namespace placebench::collectives {

std::string collective_name(Collective op) {
  switch (op) {
    case Collective::kAllReduce: return "allreduce";
    case Collective::kAllGather: return "allgather";
    case Collective::kReduceScatter: return "reducescatter";
    case Collective::kBroadcast: return "broadcast";
    case Collective::kReduce: return "reduce";
    case Collective::kAllToAll: return "alltoall";
    case Collective::kSendRecv: return "sendrecv";
  }
  return "?";
}

std::optional<Collective> parse_collective(const std::string& name) {
  for (Collective c : all_collectives())
    if (collective_name(c) == name) return c;
  return std::nullopt;
}

std::vector<Collective> all_collectives() {
  return {Collective::kAllReduce, Collective::kAllGather, Collective::kReduceScatter, Collective::kBroadcast,
          Collective::kReduce,    Collective::kAllToAll,  Collective::kSendRecv};
}

std::string backend_name(Backend backend) { return backend == Backend::kMpi ? "mpi" : "nccl"; }

bool collective_reduces(Collective op) {
  return op == Collective::kAllReduce || op == Collective::kReduceScatter || op == Collective::kReduce;
}
bool collective_rooted(Collective op) { return op == Collective::kBroadcast || op == Collective::kReduce; }

double bus_factor(Collective op, int nranks) { return detail::collective_op(op).bus_factor(nranks); }

namespace detail {

double input_value(const OpContext& ctx, bool reduces, int k, std::size_t j) {
  auto jj = static_cast<long long>(j % 1000003);  // keeps the arithmetic small; still varies per element
  if (!reduces) return static_cast<double>((k * 31 + jj * 7) % 101 - 50);
  switch (ctx.redop) {
    case ReduceOp::kSum: return static_cast<double>((k + 3 * jj) % 4 + 1);
    case ReduceOp::kProd: return (k + jj) % 3 == 0 ? 2.0 : 1.0;
    case ReduceOp::kMax:
    case ReduceOp::kMin: return static_cast<double>((k * 7 + jj) % 17 - 8);
  }
  return 0;
}

double reduced_input(const OpContext& ctx, std::size_t j) {
  double acc = input_value(ctx, true, 0, j);
  for (int k = 1; k < ctx.nranks; ++k) acc = reduce_values(ctx.redop, acc, input_value(ctx, true, k, j));
  return acc;
}

void CollectiveOp::run_mpi(const OpCall&) const { backend_not_built("MPI"); }
void CollectiveOp::run_nccl(const OpCall&) const { backend_not_built("NCCL"); }

const char* CollectiveOp::unsupported(const OpContext& ctx) const {
  bool half = ctx.type == DataType::kFloat16 || ctx.type == DataType::kBFloat16;
  if (ctx.backend == Backend::kMpi && half && collective_reduces(id()))
    return "MPI has no half/bfloat16 reduction (16-bit floats move as raw words: use them with "
           "allgather, broadcast, alltoall, sendrecv)";
  return nullptr;
}

int mpi_count(std::size_t count) {
  if (count > static_cast<std::size_t>(INT_MAX))
    throw std::invalid_argument("MPI counts are int: " + std::to_string(count) + " elements is too many; use a smaller size");
  return static_cast<int>(count);
}

const CollectiveOp& collective_op(Collective op) {
  switch (op) {
    case Collective::kAllReduce: return allreduce_op();
    case Collective::kAllGather: return allgather_op();
    case Collective::kReduceScatter: return reducescatter_op();
    case Collective::kBroadcast: return broadcast_op();
    case Collective::kReduce: return reduce_op();
    case Collective::kAllToAll: return alltoall_op();
    case Collective::kSendRecv: return sendrecv_op();
  }
  throw std::logic_error("unknown collective");
}

[[noreturn]] void backend_not_built(const char* backend) {
  throw std::logic_error(std::string(backend) + " backend not built into this binary");
}

#if PLACEBENCH_HAVE_MPI
MPI_Datatype mpi_type(DataType type) {
  switch (type) {
    case DataType::kInt8: return MPI_INT8_T;
    case DataType::kInt32: return MPI_INT32_T;
    case DataType::kFloat16:
    case DataType::kBFloat16: return MPI_UINT16_T;
    case DataType::kFloat32: return MPI_FLOAT;
    case DataType::kFloat64: return MPI_DOUBLE;
  }
  return MPI_DATATYPE_NULL;
}

MPI_Op mpi_op(ReduceOp op) {
  switch (op) {
    case ReduceOp::kSum: return MPI_SUM;
    case ReduceOp::kProd: return MPI_PROD;
    case ReduceOp::kMax: return MPI_MAX;
    case ReduceOp::kMin: return MPI_MIN;
  }
  return MPI_OP_NULL;
}

#endif

#if PLACEBENCH_HAVE_NCCL
ncclDataType_t nccl_type(DataType type) {
  switch (type) {
    case DataType::kInt8: return ncclInt8;
    case DataType::kInt32: return ncclInt32;
    case DataType::kFloat16: return ncclFloat16;
    case DataType::kBFloat16: return ncclBfloat16;
    case DataType::kFloat32: return ncclFloat32;
    case DataType::kFloat64: return ncclFloat64;
  }
  return ncclInt8;
}

ncclRedOp_t nccl_op(ReduceOp op) {
  switch (op) {
    case ReduceOp::kSum: return ncclSum;
    case ReduceOp::kProd: return ncclProd;
    case ReduceOp::kMax: return ncclMax;
    case ReduceOp::kMin: return ncclMin;
  }
  return ncclSum;
}
#endif

}  // namespace detail
}  // namespace placebench::collectives
