// The collectives' pure parts: names, nccl-tests' bus factors, buffer layouts, element conversions and
// the exactness of the predictable inputs (a local simulation of every rank checks expected outputs).
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "../src/ops/op.h"
#include "placebench/collectives/bench.h"
#include "placebench/collectives/collective.h"
#include "placebench/collectives/datatype.h"

using namespace placebench::collectives;
using detail::OpContext;

TEST(Collectives, NamesRoundTrip) {
  for (Collective c : all_collectives()) EXPECT_EQ(parse_collective(collective_name(c)), c);
  for (DataType t : all_types()) EXPECT_EQ(parse_type(type_name(t)), t);
  EXPECT_EQ(parse_type("float32"), DataType::kFloat32);
  EXPECT_EQ(parse_type("float16"), DataType::kFloat16);
  EXPECT_EQ(parse_type("float64"), DataType::kFloat64);
  EXPECT_FALSE(parse_collective("allreduse"));
}

TEST(Collectives, BusFactorsAreNcclTests) {
  EXPECT_DOUBLE_EQ(bus_factor(Collective::kAllReduce, 4), 1.5);      // 2(n-1)/n
  EXPECT_DOUBLE_EQ(bus_factor(Collective::kAllGather, 4), 0.75);     // (n-1)/n
  EXPECT_DOUBLE_EQ(bus_factor(Collective::kReduceScatter, 4), 0.75);
  EXPECT_DOUBLE_EQ(bus_factor(Collective::kAllToAll, 4), 0.75);
  EXPECT_DOUBLE_EQ(bus_factor(Collective::kBroadcast, 4), 1.0);
  EXPECT_DOUBLE_EQ(bus_factor(Collective::kReduce, 4), 1.0);
  EXPECT_DOUBLE_EQ(bus_factor(Collective::kSendRecv, 4), 1.0);
}

TEST(Collectives, LayoutsRoundLikeNcclTests) {
  OpContext ctx{4, 1, 0, DataType::kFloat32, ReduceOp::kSum, Backend::kMpi, true};
  auto ag = detail::collective_op(Collective::kAllGather).layout(1000, ctx);  // 250 floats -> 62 per rank
  EXPECT_EQ(ag.send_count, 62u);
  EXPECT_EQ(ag.count, 248u);
  EXPECT_EQ(ag.in_offset, 62u);
  auto rs = detail::collective_op(Collective::kReduceScatter).layout(1000, ctx);
  EXPECT_EQ(rs.recv_count, 62u);
  EXPECT_EQ(rs.out_offset, 0u);  // MPI_Reduce_scatter_block in place: the start
  ctx.backend = Backend::kNccl;
  EXPECT_EQ(detail::collective_op(Collective::kReduceScatter).layout(1000, ctx).out_offset, 62u);
  auto tiny = detail::collective_op(Collective::kAllReduce).layout(1, ctx);
  EXPECT_EQ(tiny.count, 1u);  // at least one element
}

// Issue 16 defect 3: out of place NCCL writes recvbuff[0, recvcount) on every rank; only in place is
// the result at block r.
TEST(Collectives, NcclReduceScatterOutOfPlaceChecksTheStartOfRecvbuff) {
  for (int rank : {0, 1, 3}) {
    OpContext ctx{4, rank, 0, DataType::kFloat32, ReduceOp::kSum, Backend::kNccl, false};
    auto out = detail::collective_op(Collective::kReduceScatter).layout(1000, ctx);
    EXPECT_EQ(out.out_offset, 0u) << "rank " << rank;
    ctx.in_place = true;
    auto in = detail::collective_op(Collective::kReduceScatter).layout(1000, ctx);
    EXPECT_EQ(in.out_offset, 62u * static_cast<unsigned>(rank)) << "rank " << rank;
  }
}

TEST(Collectives, ElementConversionsAreExactForTheInputs) {
  unsigned char buf[8];
  for (DataType t : all_types())
    for (double v : {-50.0, -8.0, 0.0, 1.0, 2.0, 17.0, 50.0, 256.0}) {
      if (t == DataType::kInt8 && std::abs(v) > 127) continue;
      store_element(buf, t, 0, v);
      EXPECT_EQ(load_element(buf, t, 0), v) << type_name(t) << " " << v;
    }
  store_element(buf, DataType::kInt8, 0, 128.0);  // wraps modulo 256
  EXPECT_EQ(load_element(buf, DataType::kInt8, 0), -128.0);
  store_element(buf, DataType::kFloat16, 0, 1.0);
  EXPECT_EQ(load_element_bits(buf, DataType::kFloat16, 0), 0x3c00u);
  store_element(buf, DataType::kBFloat16, 0, 1.0);
  EXPECT_EQ(load_element_bits(buf, DataType::kBFloat16, 0), 0x3f80u);
}

// Simulates allreduce and alltoall over 5 ranks locally: what a correct implementation delivers must
// equal expected() bit for bit in every type.
TEST(Collectives, ExpectedOutputsMatchALocalSimulation) {
  const int n = 5;
  for (DataType t : {DataType::kInt8, DataType::kBFloat16, DataType::kFloat32})
    for (ReduceOp op : {ReduceOp::kSum, ReduceOp::kProd, ReduceOp::kMax, ReduceOp::kMin}) {
      OpContext ctx{n, 2, 0, t, op, Backend::kMpi, false};
      const auto& ar = detail::collective_op(Collective::kAllReduce);
      auto l = ar.layout(64 * type_size(t), ctx);
      for (std::size_t i = 0; i < l.count; ++i) {
        double acc = detail::input_value(ctx, true, 0, i);
        for (int k = 1; k < n; ++k) acc = reduce_values(op, acc, detail::input_value(ctx, true, k, i));
        EXPECT_EQ(element_bits(t, acc), element_bits(t, ar.expected(ctx, l, i)));
      }
    }
  OpContext ctx{n, 3, 0, DataType::kInt32, ReduceOp::kSum, Backend::kMpi, false};
  const auto& a2a = detail::collective_op(Collective::kAllToAll);
  auto l = a2a.layout(40 * 4, ctx);  // 8 per block
  for (std::size_t i = 0; i < l.count; ++i)
    EXPECT_EQ(a2a.expected(ctx, l, i), detail::input_value(ctx, false, static_cast<int>(i / 8), 3 * 8 + i % 8));
}

TEST(Collectives, HostBytesCoverTheLargestBuffers) {
  CollectiveBenchConfig cfg;
  cfg.ops = all_collectives();
  cfg.types = {DataType::kFloat64};
  cfg.sizes = {1 << 20};
  EXPECT_GE(bench_host_bytes(cfg, 3), 2u * (1u << 20));
}
