// Argument checks shared by the statistics sources.
#include "validate.h"

#include <cmath>
#include <cstdio>
#include <stdexcept>
#include <string>

namespace placebench::stats::detail {
namespace {

[[noreturn]] void fail(std::string_view where, const std::string& message) {
  throw std::invalid_argument(std::string(where) + ": " + message);
}

std::string value_text(double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.17g", v);
  return buf;
}

}  // namespace

void require_non_empty(std::string_view where, std::string_view what, std::size_t size) {
  if (size == 0) fail(where, std::string(what) + " is empty; at least one value is needed");
}

void require_confidence(std::string_view where, double confidence) {
  if (!(confidence > 0.0 && confidence < 1.0))
    fail(where, "confidence must be in (0, 1), e.g. 0.95; got " + value_text(confidence));
}

void require_probability_open(std::string_view where, std::string_view what, double p) {
  if (!(p > 0.0 && p < 1.0)) fail(where, std::string(what) + " must be in (0, 1); got " + value_text(p));
}

void require_no_nan(std::string_view where, std::string_view what, std::span<const double> values) {
  for (std::size_t i = 0; i < values.size(); ++i)
    if (std::isnan(values[i])) fail(where, std::string(what) + "[" + std::to_string(i) + "] is NaN");
}

void require_finite(std::string_view where, std::string_view what, std::span<const double> values) {
  for (std::size_t i = 0; i < values.size(); ++i)
    if (!std::isfinite(values[i]))
      fail(where, std::string(what) + "[" + std::to_string(i) + "] is " + value_text(values[i]) +
                      "; finite values are needed");
}

void require_positive(std::string_view where, std::string_view what, std::span<const double> values) {
  for (std::size_t i = 0; i < values.size(); ++i)
    if (!(values[i] > 0.0) || !std::isfinite(values[i]))
      fail(where, std::string(what) + "[" + std::to_string(i) + "] is " + value_text(values[i]) +
                      "; values must be finite and > 0 to take logarithms");
}

Method resolve_method(Method requested, bool small, std::size_t size, std::size_t limit, std::string_view where) {
  if (requested == Method::kAuto) return small ? Method::kExact : Method::kNormalApprox;
  if (requested == Method::kExact && size > limit)
    fail(where, "exact null requested for size " + std::to_string(size) + " but the limit is " +
                    std::to_string(limit) + "; use Method::kAuto");
  return requested;
}

}  // namespace placebench::stats::detail
