// Sampling every thread's affinity during a trial (see thread_watch.h).
#include "placebench/hostpipe/thread_watch.h"

#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <future>
#include <map>

#include "placebench/hostpipe/process_placement.h"

namespace placebench::hostpipe {

ThreadWatch::ThreadWatch(ThreadWatchOptions options) : options_(std::move(options)) {
  result_.cpus = options_.cpus;
  result_.pids = options_.other_pids;
  if (options_.cpus.empty()) return;
  for (const ThreadAffinity& t : read_thread_affinities(0, options_.proc_root)) baseline_.insert(t.tid);
  // The watch's own thread is not judged: it is known by its tid once it has started.
  std::promise<void> started;
  std::future<void> has_started = started.get_future();
  thread_ = std::thread([this, started = std::move(started)]() mutable {
    {
      std::lock_guard<std::mutex> own(mutex_);
      baseline_.insert(static_cast<int>(::syscall(SYS_gettid)));
    }
    started.set_value();
    loop();
  });
  has_started.wait();  // set first thing by the new thread: no deadline needed
}

ThreadWatch::~ThreadWatch() {
  if (!thread_.joinable()) return;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stopping_ = true;
  }
  wake_.notify_all();
  thread_.join();
}

void ThreadWatch::loop() {
  std::unique_lock<std::mutex> lock(mutex_);
  while (!stopping_) {
    lock.unlock();
    sample();
    lock.lock();
    wake_.wait_for(lock, options_.interval, [this] { return stopping_; });
  }
}

void ThreadWatch::sample() {
  std::lock_guard<std::mutex> lock(mutex_);  // the sampling thread and stop() never sample at once
  std::set<std::pair<int, int>> outside_now;
  std::map<std::pair<int, int>, OutsideThread> found;
  auto judge = [&](int pid, const std::vector<ThreadAffinity>& threads) {
    for (const ThreadAffinity& t : threads) {
      // This process's threads from before the watch, and those placebench names "pb-..." (placed on
      // purpose, e.g. pipeline contention threads), are its own and proven by the placement record.
      if (pid == 0 && (baseline_.count(t.tid) || t.name.rfind("pb-", 0) == 0)) continue;
      if (std::includes(options_.cpus.begin(), options_.cpus.end(), t.cpus.begin(), t.cpus.end())) continue;
      outside_now.insert({pid, t.tid});
      if (seen_outside_.count({pid, t.tid})) found[{pid, t.tid}] = OutsideThread{pid, t.tid, t.name, t.cpus};
    }
  };
  judge(0, read_thread_affinities(0, options_.proc_root));
  for (int pid : options_.other_pids) {
    std::vector<ThreadAffinity> threads = read_thread_affinities(pid, options_.proc_root);
    if (threads.empty()) {
      std::string e = "process " + std::to_string(pid) + ": no thread could be read (it exited, or is not ours to read)";
      if (std::find(result_.errors.begin(), result_.errors.end(), e) == result_.errors.end()) result_.errors.push_back(e);
    }
    judge(pid, threads);
  }
  for (auto& entry : found) {
    OutsideThread& t = entry.second;  // (a structured binding cannot be captured by the lambda in C++17)
    auto it = std::find_if(result_.outside.begin(), result_.outside.end(),
                           [&](const OutsideThread& o) { return o.pid == t.pid && o.tid == t.tid; });
    if (it == result_.outside.end()) result_.outside.push_back(std::move(t));
    else *it = std::move(t);
  }
  seen_outside_ = std::move(outside_now);
  ++result_.samples;
}

ThreadWatchResult ThreadWatch::stop() {
  if (thread_.joinable()) {
    sample();
    {
      std::lock_guard<std::mutex> lock(mutex_);
      stopping_ = true;
    }
    wake_.notify_all();
    thread_.join();
  }
  std::sort(result_.outside.begin(), result_.outside.end(),
            [](const auto& a, const auto& b) { return std::pair(a.pid, a.tid) < std::pair(b.pid, b.tid); });
  return result_;
}

}  // namespace placebench::hostpipe
