// Names of the shared enums.
#include "placebench/stats/common.h"

namespace placebench::stats {

std::string_view to_string(Method method) {
  switch (method) {
    case Method::kAuto: return "auto";
    case Method::kExact: return "exact";
    case Method::kNormalApprox: return "normal_approx";
  }
  return "unknown";
}

}  // namespace placebench::stats
