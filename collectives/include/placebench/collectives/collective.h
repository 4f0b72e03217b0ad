// The collective operations placebench measures, their names, and nccl-tests' bus-bandwidth factors.
// Sizes follow nccl-tests: `size` is the larger of a rank's send and receive buffers in bytes, `count`
// its element count, algbw = size / time and busbw = algbw x factor (see src/ops/*.cpp, one file per
// collective, each with its formula and buffer layout).
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "placebench/collectives/datatype.h"

namespace placebench::collectives {

enum class Collective { kAllReduce, kAllGather, kReduceScatter, kBroadcast, kReduce, kAllToAll, kSendRecv };
enum class Backend { kMpi, kNccl };

// "allreduce", "allgather", "reducescatter", "broadcast", "reduce", "alltoall", "sendrecv".
std::string collective_name(Collective op);
std::optional<Collective> parse_collective(const std::string& name);
std::vector<Collective> all_collectives();
std::string backend_name(Backend backend);  // "mpi", "nccl"
// Why `backend` cannot move `type` at all (nullptr: it can): fp8 under MPI (MPI has no fp8 type), or
// under an NCCL older than 2.24 (the headers built against or the library loaded).
const char* type_refusal(DataType type, Backend backend);

bool collective_reduces(Collective op);  // takes a reduce operator
bool collective_rooted(Collective op);   // takes a root rank (broadcast, reduce)

// busbw / algbw for `nranks` ranks (nccl-tests' PERFORMANCE.md).
double bus_factor(Collective op, int nranks);

}  // namespace placebench::collectives
