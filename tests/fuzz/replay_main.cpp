// The fuzz targets without libFuzzer (any compiler): runs every file named on the command line, or found
// under a directory named there, through the target once, in name order. A finding aborts (fuzz_support.h);
// an input that runs longer than PLACEBENCH_FUZZ_TIMEOUT_S seconds (default 10) is a hang: aborts too.
// Usage: placebench_fuzz_TARGET [-flags ignored, as libFuzzer's] PATH...
#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "fuzz_support.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size);
// Optional, as in libFuzzer: a target's set-up, run once before the first input and outside its deadline.
extern "C" __attribute__((weak)) int LLVMFuzzerInitialize(int* argc, char*** argv);

namespace {
namespace fs = std::filesystem;

std::vector<fs::path> inputs_of(const std::vector<std::string>& args) {
  std::vector<fs::path> files;
  for (const std::string& arg : args) {
    std::error_code ec;
    if (fs::is_directory(arg, ec)) {
      std::vector<fs::path> found;
      for (const auto& entry : fs::recursive_directory_iterator(arg))
        if (entry.is_regular_file()) found.push_back(entry.path());
      std::sort(found.begin(), found.end());
      files.insert(files.end(), found.begin(), found.end());
    } else if (fs::is_regular_file(arg, ec)) {
      files.emplace_back(arg);
    } else {
      std::fprintf(stderr, "fuzz replay: %s: no such file or directory; give input files or folders of them\n",
                   arg.c_str());
      std::exit(2);
    }
  }
  return files;
}

std::string contents(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// Aborts when one input runs longer than the deadline (a hang is a finding, as libFuzzer's -timeout).
class Watchdog {
 public:
  explicit Watchdog(std::chrono::seconds limit) : limit_(limit), thread_([this] { watch(); }) {}
  ~Watchdog() {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      done_ = true;
    }
    wake_.notify_all();
    thread_.join();
  }
  void start(const std::string& name) {
    std::lock_guard<std::mutex> lock(mutex_);
    name_ = name;
    deadline_ = std::chrono::steady_clock::now() + limit_;
    busy_ = true;
  }
  void stop() {
    std::lock_guard<std::mutex> lock(mutex_);
    busy_ = false;
  }

 private:
  void watch() {
    std::unique_lock<std::mutex> lock(mutex_);
    while (!done_) {
      wake_.wait_for(lock, std::chrono::milliseconds(200));
      if (busy_ && std::chrono::steady_clock::now() > deadline_) {
        std::fprintf(stderr, "fuzz finding in %s: hang: still running after %lld s\n", name_.c_str(),
                     static_cast<long long>(limit_.count()));
        std::fflush(stderr);
        std::abort();
      }
    }
  }
  std::chrono::seconds limit_;
  std::mutex mutex_;
  std::condition_variable wake_;
  bool done_ = false, busy_ = false;
  std::string name_;
  std::chrono::steady_clock::time_point deadline_{};
  std::thread thread_;
};

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::string> args;
  for (int i = 1; i < argc; ++i)
    if (argv[i][0] != '-') args.emplace_back(argv[i]);  // libFuzzer's flags (-runs=0, ...) mean nothing here
  if (args.empty()) {
    std::fprintf(stderr, "usage: %s FILE_OR_FOLDER...: replays each input through the fuzz target\n", argv[0]);
    return 2;
  }
  const char* limit_env = std::getenv("PLACEBENCH_FUZZ_TIMEOUT_S");
  long limit_s = limit_env != nullptr ? std::strtol(limit_env, nullptr, 10) : 10;
  Watchdog watchdog(std::chrono::seconds(limit_s > 0 ? limit_s : 10));
  std::vector<fs::path> files = inputs_of(args);
  if (LLVMFuzzerInitialize != nullptr) LLVMFuzzerInitialize(&argc, &argv);
  for (const fs::path& file : files) {
    std::string data = contents(file);
    placebench::fuzz::set_current_input(file.string());
    watchdog.start(file.string());
    LLVMFuzzerTestOneInput(reinterpret_cast<const std::uint8_t*>(data.data()), data.size());
    watchdog.stop();
  }
  std::printf("fuzz replay: %zu inputs, no finding\n", files.size());
  return 0;
}
