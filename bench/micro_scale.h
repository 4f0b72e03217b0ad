// The smoke scale of placebench-micro (--smoke, or PLACEBENCH_MICRO_SMOKE=1): ctest's micro_smoke runs every
// benchmark once to prove that it runs and that its counters are computed; the heavy ones (simulations of
// 1,000 experiments, files of 100,000 events) then run at a stated smaller size. Figures in
// docs/performance.md come from runs without it.
#pragma once

#include <cstdlib>
#include <string_view>

namespace placebench::micro {

inline bool smoke() {
  const char* v = std::getenv("PLACEBENCH_MICRO_SMOKE");
  return v != nullptr && std::string_view(v) == "1";
}

// `full` normally, `at_smoke` at the smoke scale.
template <typename T>
T scaled(T full, T at_smoke) {
  return smoke() ? at_smoke : full;
}

}  // namespace placebench::micro
