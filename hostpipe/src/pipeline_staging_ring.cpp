// The staging-buffer ring (see pipeline/staging_ring.h).
#include "placebench/hostpipe/pipeline/staging_ring.h"

#include <stdexcept>
#include <string>

namespace placebench::hostpipe {

StagingRing::StagingRing(int slots, std::size_t slot_bytes, const std::vector<int>& mem_nodes)
    : slots_(slots), slot_bytes_(slot_bytes), free_(slots > 0 ? static_cast<std::size_t>(slots) : 1) {
  if (slots <= 0 || slot_bytes == 0) throw std::invalid_argument("StagingRing: slots and slot bytes must be positive");
  std::size_t page = page_size();
  stride_ = (slot_bytes + page - 1) / page * page;
  memory_ = NumaBuffer(stride_ * static_cast<std::size_t>(slots), mem_nodes);
  memory_.touch();
  for (int i = 0; i < slots; ++i) release(i);
}

std::byte* StagingRing::slot(int index) const {
  if (index < 0 || index >= slots_) throw std::out_of_range("StagingRing: slot " + std::to_string(index) + " out of range");
  return static_cast<std::byte*>(memory_.data()) + stride_ * static_cast<std::size_t>(index);
}

void StagingRing::release(int slot) {
  // The free list holds every slot at most once, so it always has room: the deadline is never reached.
  free_.push(slot, BoundedQueue<int>::Clock::now());
}

}  // namespace placebench::hostpipe
