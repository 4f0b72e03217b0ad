// Host buffers placed on chosen NUMA nodes, and the kernel's own account of where they are.
// A requested placement is not proof of one, so every buffer can report its memory policy and the
// node of every page.
#pragma once
#include <cstddef>
#include <map>
#include <string>
#include <vector>

namespace placebench::hostpipe {

// Page-aligned anonymous memory. With nodes given, the range is bound with MPOL_BIND before any page
// exists (strict: no fallback to other nodes; a full node fails the allocation rather than spilling),
// then first-touched by the calling thread, which the caller has bound to its CPUs. With no nodes,
// the default policy applies (what an unpinned worker gets).
class NumaBuffer {
 public:
  NumaBuffer() = default;
  // Throws std::runtime_error when the memory cannot be mapped. A failed mbind is not thrown but
  // recorded in bind_error(), so verification reports it.
  NumaBuffer(std::size_t bytes, const std::vector<int>& nodes);
  NumaBuffer(NumaBuffer&& other) noexcept;
  NumaBuffer& operator=(NumaBuffer&& other) noexcept;
  NumaBuffer(const NumaBuffer&) = delete;
  NumaBuffer& operator=(const NumaBuffer&) = delete;
  ~NumaBuffer();

  void* data() const { return data_; }
  std::size_t size() const { return bytes_; }
  const std::vector<int>& requested_nodes() const { return nodes_; }
  const std::string& bind_error() const { return bind_error_; }

  // Writes every page (first touch) from the calling thread.
  void touch();

 private:
  void* data_ = nullptr;
  std::size_t bytes_ = 0;
  std::vector<int> nodes_;
  std::string bind_error_;
};

struct MemPolicy {
  std::string mode;        // "default", "bind", "preferred", "interleave", "local", or "unknown(N)"
  std::vector<int> nodes;  // the policy's nodemask
  std::string error;       // get_mempolicy's failure, if any
};

// The policy that governs the page at addr (get_mempolicy with MPOL_F_ADDR).
MemPolicy query_mempolicy(const void* addr);

// The calling thread's own policy (get_mempolicy without an address): what numactl --membind or
// set_mempolicy gave it, which its new allocations follow.
MemPolicy query_thread_mempolicy();

// Node of every page of [addr, addr+bytes) (move_pages in query mode): node -> page count. Pages not
// yet present are counted under key -1 ("not present"), other errors under -2.
std::map<int, std::size_t> page_node_histogram(const void* addr, std::size_t bytes);

std::size_t page_size();

}  // namespace placebench::hostpipe
