// Element types and reduction operators of the collectives, with nccl-tests' names (`int8`, `int32`,
// `half`, `bfloat16`, `float`, `double`, `f8e4m3`, `f8e5m2`; `sum`, `prod`, `max`, `min`) and the
// conversions used to build exactly predictable inputs and to check outputs element by element.
// The fp8 types (OCP FP8: e4m3 without infinities, max 448; e5m2 IEEE-like, max 57344) need NCCL
// 2.24+; MPI has none (collective.h: type_refusal).
#pragma once
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace placebench::collectives {

enum class DataType { kInt8, kInt32, kFloat16, kBFloat16, kFloat32, kFloat64, kFloat8E4M3, kFloat8E5M2 };
enum class ReduceOp { kSum, kProd, kMax, kMin };

// nccl-tests' names: "int8", "int32", "half", "bfloat16", "float", "double", "f8e4m3", "f8e5m2".
std::string type_name(DataType type);
// Accepts nccl-tests' names and int8, int32, float16, bfloat16, float32, float64.
std::optional<DataType> parse_type(const std::string& name);
// The types `--types all` means: every type but fp8 (which only NCCL 2.24+ has; name it to use it).
std::vector<DataType> all_types();
bool is_fp8(DataType type);
std::size_t type_size(DataType type);

std::string redop_name(ReduceOp op);  // "sum", "prod", "max", "min"
std::optional<ReduceOp> parse_redop(const std::string& name);

// Writes `value` (an integer small enough to be exact in every type) as element i of `type` at base.
// Integers wrap modulo 2^bits (C++20 conversion), so overflowing products stay predictable; fp8
// rounds to nearest even and saturates to its largest finite value (CUDA's __NV_SATFINITE).
void store_element(void* base, DataType type, std::size_t i, double value);
// Element i of `type` at base, as double.
double load_element(const void* base, DataType type, std::size_t i);
// The bit pattern `value` has once stored as `type` (for exact comparison).
std::uint64_t element_bits(DataType type, double value);
std::uint64_t load_element_bits(const void* base, DataType type, std::size_t i);

// Combines two values with op, in double (exact for the small integers the inputs use).
double reduce_values(ReduceOp op, double a, double b);

}  // namespace placebench::collectives
