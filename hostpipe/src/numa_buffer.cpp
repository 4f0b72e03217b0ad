// NUMA-bound buffers and page-location queries (see numa_buffer.h).
#include "placebench/hostpipe/numa_buffer.h"

#include <numa.h>
#include <numaif.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstring>
#include <stdexcept>

namespace placebench::hostpipe {

std::size_t page_size() { return static_cast<std::size_t>(sysconf(_SC_PAGESIZE)); }

NumaBuffer::NumaBuffer(std::size_t bytes, const std::vector<int>& nodes) : bytes_(bytes), nodes_(nodes) {
  if (bytes == 0) throw std::runtime_error("NumaBuffer: size must be positive");
  data_ = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (data_ == MAP_FAILED) {
    data_ = nullptr;
    throw std::runtime_error("cannot map " + std::to_string(bytes) + " bytes: " + std::strerror(errno));
  }
  if (nodes.empty()) return;
  constexpr int kMaskBits = 1024;
  unsigned long mask[kMaskBits / (8 * sizeof(unsigned long))] = {0};
  for (int n : nodes) {
    if (n < 0 || n >= kMaskBits) {
      bind_error_ = "node " + std::to_string(n) + " out of range";
      return;
    }
    const auto bit = static_cast<std::size_t>(n);  // in [0, kMaskBits): checked above
    mask[bit / (8 * sizeof(unsigned long))] |= 1ul << (bit % (8 * sizeof(unsigned long)));
  }
  // MPOL_BIND is strict: allocations never fall back to other nodes. MPOL_MF_STRICT|MOVE also checks
  // (and moves) any page already present, of which there are none yet.
  if (mbind(data_, bytes, MPOL_BIND, mask, kMaskBits + 1, MPOL_MF_STRICT | MPOL_MF_MOVE) != 0)
    bind_error_ = std::string("mbind: ") + std::strerror(errno) +
                  (errno == EINVAL ? " (a node is outside this process's allowed memory nodes)" : "");
}

NumaBuffer::NumaBuffer(NumaBuffer&& o) noexcept
    : data_(o.data_), bytes_(o.bytes_), nodes_(std::move(o.nodes_)), bind_error_(std::move(o.bind_error_)) {
  o.data_ = nullptr;
  o.bytes_ = 0;
}

NumaBuffer& NumaBuffer::operator=(NumaBuffer&& o) noexcept {
  if (this != &o) {
    if (data_) munmap(data_, bytes_);
    data_ = o.data_;
    bytes_ = o.bytes_;
    nodes_ = std::move(o.nodes_);
    bind_error_ = std::move(o.bind_error_);
    o.data_ = nullptr;
    o.bytes_ = 0;
  }
  return *this;
}

NumaBuffer::~NumaBuffer() {
  if (data_) munmap(data_, bytes_);
}

void NumaBuffer::touch() {
  auto* p = static_cast<volatile char*>(data_);
  std::size_t step = page_size();
  for (std::size_t off = 0; off < bytes_; off += step) p[off] = 1;
}

namespace {

// get_mempolicy with the given address and flags (nullptr, 0: the calling thread's own policy).
MemPolicy get_policy(const void* addr, unsigned flags) {
  MemPolicy mp;
  int mode = 0;
  constexpr int kMaskBits = 1024;
  unsigned long mask[kMaskBits / (8 * sizeof(unsigned long))] = {0};
  if (get_mempolicy(&mode, mask, kMaskBits, const_cast<void*>(addr), flags) != 0) {
    mp.mode = "unknown";
    mp.error = std::string("get_mempolicy: ") + std::strerror(errno);
    return mp;
  }
  constexpr int kModeFlags = (1 << 15) | (1 << 14);  // MPOL_F_STATIC_NODES | MPOL_F_RELATIVE_NODES
  switch (mode & ~kModeFlags) {
    case MPOL_DEFAULT: mp.mode = "default"; break;
    case MPOL_BIND: mp.mode = "bind"; break;
    case MPOL_PREFERRED: mp.mode = "preferred"; break;
    case MPOL_INTERLEAVE: mp.mode = "interleave"; break;
    case MPOL_LOCAL: mp.mode = "local"; break;
    default: mp.mode = "unknown(" + std::to_string(mode) + ")";
  }
  for (std::size_t bit = 0; bit < static_cast<std::size_t>(kMaskBits); ++bit)
    if (mask[bit / (8 * sizeof(unsigned long))] & (1ul << (bit % (8 * sizeof(unsigned long)))))
      mp.nodes.push_back(static_cast<int>(bit));
  return mp;
}

}  // namespace

MemPolicy query_mempolicy(const void* addr) { return get_policy(addr, MPOL_F_ADDR); }

MemPolicy query_thread_mempolicy() { return get_policy(nullptr, 0); }

std::map<int, std::size_t> page_node_histogram(const void* addr, std::size_t bytes) {
  std::map<int, std::size_t> hist;
  std::size_t step = page_size();
  auto base = reinterpret_cast<std::uintptr_t>(addr) & ~(step - 1);
  auto end = reinterpret_cast<std::uintptr_t>(addr) + bytes;
  constexpr std::size_t kChunk = 4096;  // pages per move_pages call
  std::vector<void*> pages;
  std::vector<int> status;
  for (std::uintptr_t p = base; p < end;) {
    pages.clear();
    for (; p < end && pages.size() < kChunk; p += step) pages.push_back(reinterpret_cast<void*>(p));
    status.assign(pages.size(), 0);
    if (numa_move_pages(0, pages.size(), pages.data(), nullptr, status.data(), 0) != 0) {
      hist[-2] += pages.size();
      continue;
    }
    for (int s : status) hist[s >= 0 ? s : (s == -ENOENT ? -1 : -2)]++;
  }
  return hist;
}

}  // namespace placebench::hostpipe
