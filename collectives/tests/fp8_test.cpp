// The fp8 element types (f8e4m3, f8e5m2; NCCL 2.24+): names, conversions bit for bit, the inputs fp8
// holds exactly (a local simulation that stores every partial reduction in fp8, as NCCL does), and
// the backends' refusal.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <string>

#include "../src/ops/op.h"
#include "placebench/collectives/collective.h"
#include "placebench/collectives/datatype.h"

using namespace placebench::collectives;
using detail::OpContext;

namespace {
std::uint64_t bits_of(DataType t, double v) { return element_bits(t, v); }
double value_of(DataType t, std::uint8_t b) { return load_element(&b, t, 0); }
}  // namespace

TEST(Fp8, NamesAreNcclTests) {
  EXPECT_EQ(parse_type("f8e4m3"), DataType::kFloat8E4M3);
  EXPECT_EQ(parse_type("f8e5m2"), DataType::kFloat8E5M2);
  EXPECT_EQ(type_name(DataType::kFloat8E4M3), "f8e4m3");
  EXPECT_EQ(type_name(DataType::kFloat8E5M2), "f8e5m2");
  EXPECT_EQ(type_size(DataType::kFloat8E4M3), 1u);
  EXPECT_EQ(type_size(DataType::kFloat8E5M2), 1u);
  for (DataType t : all_types()) EXPECT_FALSE(is_fp8(t)) << type_name(t);  // `all` never asks for fp8
}

TEST(Fp8, E4M3Bits) {
  const DataType t = DataType::kFloat8E4M3;
  EXPECT_EQ(bits_of(t, 1.0), 0x38u);
  EXPECT_EQ(bits_of(t, -2.0), 0xc0u);
  EXPECT_EQ(bits_of(t, 448.0), 0x7eu);          // largest finite
  EXPECT_EQ(bits_of(t, 1e6), 0x7eu);            // saturates (no infinity in e4m3)
  EXPECT_EQ(bits_of(t, std::ldexp(1.0, -9)), 0x01u);  // smallest subnormal
  EXPECT_EQ(bits_of(t, 17.0), bits_of(t, 16.0));  // halfway: to even
  EXPECT_EQ(bits_of(t, 0.0), 0x00u);
  EXPECT_TRUE(std::isnan(value_of(t, 0x7f)));
  EXPECT_EQ(value_of(t, 0x7e), 448.0);
}

TEST(Fp8, E5M2Bits) {
  const DataType t = DataType::kFloat8E5M2;
  EXPECT_EQ(bits_of(t, 1.0), 0x3cu);
  EXPECT_EQ(bits_of(t, 57344.0), 0x7bu);
  EXPECT_EQ(bits_of(t, 1e9), 0x7bu);  // saturates (CUDA's __NV_SATFINITE)
  EXPECT_EQ(bits_of(t, std::ldexp(1.0, -16)), 0x01u);
  EXPECT_EQ(bits_of(t, 9.0), bits_of(t, 8.0));  // halfway: to even
  EXPECT_TRUE(std::isinf(value_of(t, 0x7c)));
  EXPECT_TRUE(std::isnan(value_of(t, 0x7e)));
}

// Every finite pattern decodes to a value that encodes back to the same pattern.
TEST(Fp8, EveryFinitePatternRoundTrips) {
  for (DataType t : {DataType::kFloat8E4M3, DataType::kFloat8E5M2})
    for (unsigned b = 0; b < 256; ++b) {
      double v = value_of(t, static_cast<std::uint8_t>(b));
      if (!std::isfinite(v)) continue;
      EXPECT_EQ(bits_of(t, v), b) << type_name(t) << " " << v;
    }
}

TEST(Fp8, SmallIntegersAreExact) {
  for (DataType t : {DataType::kFloat8E4M3, DataType::kFloat8E5M2})
    for (int v = -8; v <= 8; ++v) EXPECT_EQ(value_of(t, static_cast<std::uint8_t>(bits_of(t, v))), v) << type_name(t);
}

// Allreduce over n ranks with every partial result stored in fp8 (in rank order and in reverse): what
// a correct NCCL delivers equals expected() bit for bit; the non-reducing inputs are exact too.
TEST(Fp8, InputsStayExactThroughEveryPartialReduction) {
  for (DataType t : {DataType::kFloat8E4M3, DataType::kFloat8E5M2})
    for (int n : {1, 2, 5, 8, 16, 64})
      for (ReduceOp op : {ReduceOp::kSum, ReduceOp::kProd, ReduceOp::kMax, ReduceOp::kMin}) {
        OpContext ctx{n, 0, 0, t, op, Backend::kNccl, false};
        const auto& ar = detail::collective_op(Collective::kAllReduce);
        auto l = ar.layout(256, ctx);
        for (std::size_t i = 0; i < l.count; ++i) {
          std::uint8_t fwd = 0, rev = 0;
          store_element(&fwd, t, 0, detail::input_value(ctx, true, 0, i));
          store_element(&rev, t, 0, detail::input_value(ctx, true, n - 1, i));
          for (int k = 1; k < n; ++k) {
            store_element(&fwd, t, 0, reduce_values(op, load_element(&fwd, t, 0), detail::input_value(ctx, true, k, i)));
            store_element(&rev, t, 0, reduce_values(op, load_element(&rev, t, 0), detail::input_value(ctx, true, n - 1 - k, i)));
          }
          ASSERT_EQ(fwd, bits_of(t, ar.expected(ctx, l, i))) << type_name(t) << " n=" << n << " " << redop_name(op) << " i=" << i;
          ASSERT_EQ(rev, fwd);
          for (int k = 0; k < n; ++k) {
            double v = detail::input_value(ctx, false, k, i);
            ASSERT_EQ(value_of(t, static_cast<std::uint8_t>(bits_of(t, v))), v);
          }
        }
      }
}

TEST(Fp8, RefusedUnderMpiWithTheReason) {
  const char* why = type_refusal(DataType::kFloat8E4M3, Backend::kMpi);
  ASSERT_NE(why, nullptr);
  EXPECT_NE(std::string(why).find("MPI has no fp8 type"), std::string::npos);
  EXPECT_EQ(type_refusal(DataType::kFloat32, Backend::kMpi), nullptr);
  EXPECT_EQ(type_refusal(DataType::kFloat32, Backend::kNccl), nullptr);
  OpContext ctx{2, 0, 0, DataType::kFloat8E5M2, ReduceOp::kSum, Backend::kMpi, false};
  EXPECT_STREQ(detail::collective_op(Collective::kAllGather).unsupported(ctx), type_refusal(ctx.type, ctx.backend));
  // Under NCCL: refused only with the reason that names 2.24 (old headers or an old loaded library).
  if (const char* nccl = type_refusal(DataType::kFloat8E4M3, Backend::kNccl)) {
    EXPECT_NE(std::string(nccl).find("2.24"), std::string::npos);
  }
}
