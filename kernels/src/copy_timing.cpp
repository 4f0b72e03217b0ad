// Host-side rules of the staging copy timing (see copy_timing.h).
#include "placebench/kernels/copy_timing.h"

#include <stdexcept>
#include <string>

namespace placebench::kernels {

CopyTiming copy_timing_for(bool host_pinned) { return host_pinned ? CopyTiming::kHeldStream : CopyTiming::kHostTimer; }

std::vector<int> copies_per_hold(int copies) {
  if (copies < 1) throw std::invalid_argument("copies_per_hold: a batch needs at least one copy");
  std::vector<int> holds(static_cast<std::size_t>(copies / kMaxCopiesPerHold), kMaxCopiesPerHold);
  if (copies % kMaxCopiesPerHold) holds.push_back(copies % kMaxCopiesPerHold);
  return holds;
}

void check_hold_released(int timed_out_word, int copies, std::size_t bytes) {
  if (timed_out_word == 0) return;
  throw std::runtime_error("staging copy: the stream-holding kernel reached its deadline before the host released it (" +
                           std::to_string(copies) + " copies of " + std::to_string(bytes) +
                           " bytes were being queued), so the batch's time is not a copy time; the enqueue blocked: "
                           "check that the host memory is pinned, that no other process holds the GPU, and rerun");
}

}  // namespace placebench::kernels
