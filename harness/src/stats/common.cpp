// Names of the shared enums.
#include "placebench/harness/stats/common.h"

namespace placebench::harness::stats {

std::string_view to_string(Method method) {
  switch (method) {
    case Method::kAuto: return "auto";
    case Method::kExact: return "exact";
    case Method::kNormalApprox: return "normal_approx";
  }
  return "unknown";
}

}  // namespace placebench::harness::stats
