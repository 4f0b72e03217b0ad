// Element types, reduction operators and element conversions (see datatype.h).
#include "placebench/collectives/datatype.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>

namespace placebench::collectives {

std::string type_name(DataType type) {
  switch (type) {
    case DataType::kInt8: return "int8";
    case DataType::kInt32: return "int32";
    case DataType::kFloat16: return "half";
    case DataType::kBFloat16: return "bfloat16";
    case DataType::kFloat32: return "float";
    case DataType::kFloat64: return "double";
    case DataType::kFloat8E4M3: return "f8e4m3";
    case DataType::kFloat8E5M2: return "f8e5m2";
  }
  return "?";
}

std::optional<DataType> parse_type(const std::string& name) {
  if (name == "int8") return DataType::kInt8;
  if (name == "int32") return DataType::kInt32;
  if (name == "half" || name == "float16") return DataType::kFloat16;
  if (name == "bfloat16") return DataType::kBFloat16;
  if (name == "float" || name == "float32") return DataType::kFloat32;
  if (name == "double" || name == "float64") return DataType::kFloat64;
  if (name == "f8e4m3") return DataType::kFloat8E4M3;
  if (name == "f8e5m2") return DataType::kFloat8E5M2;
  return std::nullopt;
}

std::vector<DataType> all_types() {
  return {DataType::kInt8, DataType::kInt32, DataType::kFloat16, DataType::kBFloat16, DataType::kFloat32, DataType::kFloat64};
}

bool is_fp8(DataType type) { return type == DataType::kFloat8E4M3 || type == DataType::kFloat8E5M2; }

std::size_t type_size(DataType type) {
  switch (type) {
    case DataType::kInt8:
    case DataType::kFloat8E4M3:
    case DataType::kFloat8E5M2: return 1;
    case DataType::kFloat16:
    case DataType::kBFloat16: return 2;
    case DataType::kInt32:
    case DataType::kFloat32: return 4;
    case DataType::kFloat64: return 8;
  }
  return 0;
}

std::string redop_name(ReduceOp op) {
  switch (op) {
    case ReduceOp::kSum: return "sum";
    case ReduceOp::kProd: return "prod";
    case ReduceOp::kMax: return "max";
    case ReduceOp::kMin: return "min";
  }
  return "?";
}

std::optional<ReduceOp> parse_redop(const std::string& name) {
  if (name == "sum") return ReduceOp::kSum;
  if (name == "prod") return ReduceOp::kProd;
  if (name == "max") return ReduceOp::kMax;
  if (name == "min") return ReduceOp::kMin;
  return std::nullopt;
}

namespace {

// IEEE binary16 from a float, round to nearest even (inputs here are small integers, always exact).
std::uint16_t float_to_half(float f) {
  std::uint32_t x = std::bit_cast<std::uint32_t>(f);
  std::uint32_t sign = (x >> 16) & 0x8000u;
  std::int32_t exp = static_cast<std::int32_t>((x >> 23) & 0xff) - 127 + 15;
  std::uint32_t mant = x & 0x7fffffu;
  if (((x >> 23) & 0xff) == 0xff) return static_cast<std::uint16_t>(sign | 0x7c00u | (mant ? 0x200u : 0));
  if (exp >= 31) return static_cast<std::uint16_t>(sign | 0x7c00u);
  if (exp <= 0) {
    if (exp < -10) return static_cast<std::uint16_t>(sign);
    mant |= 0x800000u;
    std::uint32_t shift = static_cast<std::uint32_t>(14 - exp);
    std::uint32_t half = mant >> shift;
    std::uint32_t rem = mant & ((1u << shift) - 1), mid = 1u << (shift - 1);
    if (rem > mid || (rem == mid && (half & 1))) ++half;
    return static_cast<std::uint16_t>(sign | half);
  }
  std::uint32_t half = sign | (static_cast<std::uint32_t>(exp) << 10) | (mant >> 13);
  std::uint32_t rem = mant & 0x1fffu;
  if (rem > 0x1000u || (rem == 0x1000u && (half & 1))) ++half;
  return static_cast<std::uint16_t>(half);
}

float half_to_float(std::uint16_t h) {
  std::uint32_t sign = (h & 0x8000u) << 16, exp = (h >> 10) & 0x1f, mant = h & 0x3ffu;
  if (exp == 0) return (sign ? -1.0f : 1.0f) * std::ldexp(static_cast<float>(mant), -24);
  if (exp == 31) return std::bit_cast<float>(sign | 0x7f800000u | (mant << 13));
  return std::bit_cast<float>(sign | ((exp - 15 + 127) << 23) | (mant << 13));
}

std::uint16_t float_to_bf16(float f) {
  std::uint32_t x = std::bit_cast<std::uint32_t>(f);
  if (std::isnan(f)) return static_cast<std::uint16_t>((x >> 16) | 0x40u);
  x += 0x7fffu + ((x >> 16) & 1u);  // round to nearest even
  return static_cast<std::uint16_t>(x >> 16);
}

float bf16_to_float(std::uint16_t b) { return std::bit_cast<float>(static_cast<std::uint32_t>(b) << 16); }

// An OCP FP8 format: sign, exponent, `mant_bits` of mantissa; magnitudes above `max_finite` (as bits)
// are `inf` (e5m2 only) or NaN.
struct Fp8Format {
  int mant_bits, bias;
  unsigned max_finite, inf, nan;  // inf == nan: no infinities (e4m3)
};
constexpr Fp8Format kE4M3{3, 7, 0x7e, 0x7f, 0x7f};
constexpr Fp8Format kE5M2{2, 15, 0x7b, 0x7c, 0x7e};

const Fp8Format& fp8_format(DataType type) { return type == DataType::kFloat8E4M3 ? kE4M3 : kE5M2; }

// Round to nearest even, saturating to the largest finite value.
std::uint8_t double_to_fp8(double v, const Fp8Format& f) {
  unsigned sign = std::signbit(v) ? 0x80u : 0u;
  if (std::isnan(v)) return static_cast<std::uint8_t>(sign | f.nan);
  double a = std::fabs(v);
  if (std::isinf(a)) return static_cast<std::uint8_t>(sign | f.max_finite);
  if (a == 0) return static_cast<std::uint8_t>(sign);
  int e = 0;
  std::frexp(a, &e);  // a = m * 2^e, m in [0.5, 1)
  int exp = std::max(e - 1, 1 - f.bias);  // below the smallest normal: subnormal steps
  double q = std::nearbyint(std::ldexp(a, f.mant_bits - exp));  // mantissa with its implicit bit
  // The exponent field + the mantissa, added so that a rounding carry moves into the exponent.
  double bits = std::ldexp(static_cast<double>(exp + f.bias - 1), f.mant_bits) + q;
  if (bits > f.max_finite) bits = f.max_finite;
  return static_cast<std::uint8_t>(sign | static_cast<unsigned>(bits));
}

double fp8_to_double(std::uint8_t b, const Fp8Format& f) {
  double sign = (b & 0x80u) ? -1.0 : 1.0;
  unsigned mag = b & 0x7fu;
  if (mag > f.max_finite)
    return mag == f.inf && f.inf != f.nan ? sign * HUGE_VAL : std::nan("");
  unsigned exp = mag >> f.mant_bits, mant = mag & ((1u << f.mant_bits) - 1);
  if (exp == 0) return sign * std::ldexp(mant, 1 - f.bias - f.mant_bits);
  return sign * std::ldexp(mant + (1u << f.mant_bits), static_cast<int>(exp) - f.bias - f.mant_bits);
}

template <class T>
void put(void* base, std::size_t i, T v) {
  std::memcpy(static_cast<char*>(base) + i * sizeof(T), &v, sizeof(T));
}
template <class T>
T get(const void* base, std::size_t i) {
  T v;
  std::memcpy(&v, static_cast<const char*>(base) + i * sizeof(T), sizeof(T));
  return v;
}

}  // namespace

void store_element(void* base, DataType type, std::size_t i, double value) {
  switch (type) {
    case DataType::kInt8: put(base, i, static_cast<std::int8_t>(static_cast<std::int64_t>(value))); break;
    case DataType::kInt32: put(base, i, static_cast<std::int32_t>(static_cast<std::int64_t>(value))); break;
    case DataType::kFloat16: put(base, i, float_to_half(static_cast<float>(value))); break;
    case DataType::kBFloat16: put(base, i, float_to_bf16(static_cast<float>(value))); break;
    case DataType::kFloat32: put(base, i, static_cast<float>(value)); break;
    case DataType::kFloat64: put(base, i, value); break;
    case DataType::kFloat8E4M3:
    case DataType::kFloat8E5M2: put(base, i, double_to_fp8(value, fp8_format(type))); break;
  }
}

double load_element(const void* base, DataType type, std::size_t i) {
  switch (type) {
    case DataType::kInt8: return get<std::int8_t>(base, i);
    case DataType::kInt32: return get<std::int32_t>(base, i);
    case DataType::kFloat16: return half_to_float(get<std::uint16_t>(base, i));
    case DataType::kBFloat16: return bf16_to_float(get<std::uint16_t>(base, i));
    case DataType::kFloat32: return get<float>(base, i);
    case DataType::kFloat64: return get<double>(base, i);
    case DataType::kFloat8E4M3:
    case DataType::kFloat8E5M2: return fp8_to_double(get<std::uint8_t>(base, i), fp8_format(type));
  }
  return 0;
}

std::uint64_t load_element_bits(const void* base, DataType type, std::size_t i) {
  std::uint64_t bits = 0;
  std::memcpy(&bits, static_cast<const char*>(base) + i * type_size(type), type_size(type));
  return bits;
}

std::uint64_t element_bits(DataType type, double value) {
  unsigned char tmp[8] = {0};
  store_element(tmp, type, 0, value);
  return load_element_bits(tmp, type, 0);
}

double reduce_values(ReduceOp op, double a, double b) {
  switch (op) {
    case ReduceOp::kSum: return a + b;
    case ReduceOp::kProd: return a * b;
    case ReduceOp::kMax: return std::max(a, b);
    case ReduceOp::kMin: return std::min(a, b);
  }
  return 0;
}

}  // namespace placebench::collectives
