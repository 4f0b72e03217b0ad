// Late threads: libraries start threads after the benchmark has bound its own (NCCL proxy threads,
// dataloader workers, OpenMP pools), and those threads run wherever they inherited or were put. A
// ThreadWatch samples, on its own thread, the affinity of every thread of this process that did not
// exist when it started, and of every thread of the other processes it is given, and reports each one
// whose affinity reaches outside the given CPUs. Mechanism only: which CPUs are "the arm's" is the
// harness's decision.
#pragma once
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <vector>

namespace placebench::hostpipe {

struct OutsideThread {
  int pid = 0;            // 0: this process
  int tid = 0;
  std::string name;
  std::vector<int> cpus;  // its affinity when it was last seen outside
};

struct ThreadWatchResult {
  std::vector<int> cpus;              // the CPUs every thread was held to
  std::vector<int> pids;              // other processes watched besides this one
  std::size_t samples = 0;
  std::vector<OutsideThread> outside; // sorted by (pid, tid)
  std::vector<std::string> errors;    // a watched process that could not be read, in words
};

struct ThreadWatchOptions {
  std::vector<int> cpus;                               // the allowed CPUs (sorted); empty: watch nothing
  std::vector<int> other_pids;                         // processes whose every thread is judged
  std::chrono::milliseconds interval{50};
  std::string proc_root = "/proc";
};

// A thread is reported once two samples in a row saw it outside the CPUs (or the last sample, taken by
// stop(), and the one before it did): a worker caught between its creation and its own bind call, a
// few microseconds, is not a late thread. A thread that lives shorter than one interval is not seen.
class ThreadWatch {
 public:
  // Takes the list of this process's threads now (they are not judged) and starts sampling.
  explicit ThreadWatch(ThreadWatchOptions options);
  ~ThreadWatch();  // stops and joins (a sample reads a few small /proc files: it ends promptly)
  ThreadWatch(const ThreadWatch&) = delete;
  ThreadWatch& operator=(const ThreadWatch&) = delete;

  // Samples once more, stops the sampling thread and returns what it saw. Call once.
  ThreadWatchResult stop();

 private:
  void loop();
  void sample();

  ThreadWatchOptions options_;
  std::set<int> baseline_;   // this process's tids when the watch started, and the watch's own
  std::set<std::pair<int, int>> seen_outside_;  // (pid, tid) outside in the previous sample
  ThreadWatchResult result_;
  std::mutex mutex_;
  std::condition_variable wake_;
  bool stopping_ = false;
  std::thread thread_;
};

}  // namespace placebench::hostpipe
