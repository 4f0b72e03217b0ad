// Collective names, inputs, reductions and the MPI/NCCL mappings shared by src/ops/*.cpp.
#include "op_common.h"

#include "placebench/collectives/nccl_library.h"

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

const char* type_refusal(DataType type, Backend backend) {
  if (!is_fp8(type)) return nullptr;
  if (backend == Backend::kMpi)
    return "MPI has no fp8 type: f8e4m3 and f8e5m2 need --backend nccl with NCCL 2.24 or newer";
#if PLACEBENCH_HAVE_NCCL && PB_NCCL_HAS_FP8
  const NcclAvailability& nccl = nccl_availability();
  if (nccl.loaded && nccl.version < detail::kNcclFp8Version)
    return "the loaded NCCL is older than 2.24 and has no fp8 types (f8e4m3, f8e5m2): install NCCL 2.24 or newer "
           "(or point NCCL_LIBRARY at it)";
  return nullptr;
#else
  return "this placebench was built without NCCL 2.24+ headers, so it has no fp8 types (f8e4m3, f8e5m2): rebuild "
         "against NCCL 2.24 or newer";
#endif
}

double bus_factor(Collective op, int nranks) { return detail::collective_op(op).bus_factor(nranks); }

namespace detail {

namespace {
// fp8 holds few integers exactly (e5m2: -8..8; e4m3: -16..16), and NCCL stores partial reductions in
// the type: inputs stay in -8..8, and in a sum or product one rank per element (j mod nranks) gives the
// value and the others the identity, so every partial result is exact whatever the order.
double fp8_input_value(const OpContext& ctx, bool reduces, int k, std::size_t j) {
  auto jj = static_cast<long long>(j % 1000003);
  bool owner = static_cast<std::size_t>(k) == j % static_cast<std::size_t>(ctx.nranks);
  if (!reduces) return static_cast<double>((k * 31 + jj * 7) % 17 - 8);
  switch (ctx.redop) {
    case ReduceOp::kSum: return owner ? static_cast<double>(jj % 8 + 1) : 0.0;
    case ReduceOp::kProd: return owner && jj % 2 == 0 ? 2.0 : 1.0;
    case ReduceOp::kMax:
    case ReduceOp::kMin: return static_cast<double>((k * 7 + jj) % 17 - 8);
  }
  return 0;
}
}  // namespace

double input_value(const OpContext& ctx, bool reduces, int k, std::size_t j) {
  if (is_fp8(ctx.type)) return fp8_input_value(ctx, reduces, k, j);
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
  if (const char* why = type_refusal(ctx.type, ctx.backend)) return why;
  bool half = ctx.type == DataType::kFloat16 || ctx.type == DataType::kBFloat16;
  if (ctx.backend == Backend::kMpi && half && collective_reduces(id()))
    return "MPI has no half/bfloat16 reduction (16-bit floats move as raw words: use them with "
           "allgather, broadcast, alltoall, sendrecv)";
  return nullptr;
}

[[noreturn]] void mpi_count_too_large(std::size_t count) {
  throw std::invalid_argument("MPI counts are int: " + std::to_string(count) + " elements is too many; use a smaller size");
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

#if PLACEBENCH_HAVE_NCCL
ncclDataType_t nccl_type(DataType type) {
  switch (type) {
    case DataType::kInt8: return ncclInt8;
    case DataType::kInt32: return ncclInt32;
    case DataType::kFloat16: return ncclFloat16;
    case DataType::kBFloat16: return ncclBfloat16;
    case DataType::kFloat32: return ncclFloat32;
    case DataType::kFloat64: return ncclFloat64;
#if PB_NCCL_HAS_FP8
    case DataType::kFloat8E4M3: return ncclFloat8e4m3;
    case DataType::kFloat8E5M2: return ncclFloat8e5m2;
#else
    case DataType::kFloat8E4M3:
    case DataType::kFloat8E5M2: break;  // refused before any call (type_refusal)
#endif
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
