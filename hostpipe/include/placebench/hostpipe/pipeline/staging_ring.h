// The ring of R staging buffers that workers write batches into: one NUMA-placed mapping cut into
// page-aligned slots, and a free list (a BoundedQueue of slot indexes) that hands slots out with a
// deadline. A slot travels worker -> prefetch queue -> consumer -> back to the free list.
#pragma once
#include <cstddef>
#include <vector>

#include "placebench/hostpipe/numa_buffer.h"
#include "placebench/hostpipe/pipeline/bounded_queue.h"

namespace placebench::hostpipe {

class StagingRing {
 public:
  // Maps slots x slot_bytes (each slot rounded up to whole pages) bound to `mem_nodes` (empty: the
  // default policy) and touches every page from the calling thread. All slots start free.
  StagingRing(int slots, std::size_t slot_bytes, const std::vector<int>& mem_nodes);

  int slots() const { return slots_; }
  std::size_t slot_bytes() const { return slot_bytes_; }
  std::byte* slot(int index) const;
  // The whole mapping (for cudaHostRegister and page-location queries).
  const NumaBuffer& memory() const { return memory_; }

  // A free slot, waiting until `deadline` for one to come back.
  QueueStatus acquire(int& slot, BoundedQueue<int>::Clock::time_point deadline) { return free_.pop(slot, deadline); }
  // Returns a slot to the free list (never blocks: the list has room for every slot).
  void release(int slot);
  // Wakes and refuses every waiter (shutdown).
  void cancel() { free_.cancel(); }
  std::size_t free_slots() const { return free_.size(); }

 private:
  int slots_;
  std::size_t slot_bytes_, stride_;
  NumaBuffer memory_;
  BoundedQueue<int> free_;
};

}  // namespace placebench::hostpipe
