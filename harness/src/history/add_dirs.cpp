// `history add`'s work (add_run_dirs, history.h): read a batch of run directories on every core, then add it
// in one transaction, in the order given; a directory that cannot be read is set aside with its reason, the
// others go on.
#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <exception>
#include <optional>
#include <thread>

#include "placebench/harness/errors.h"
#include "placebench/harness/history/history.h"

namespace placebench::harness::history {
namespace {

// The reason as one line that starts with the directory (the readers' messages already do).
std::string reason_for(const std::string& dir, const std::string& what) {
  return what.rfind(dir, 0) == 0 ? what : fmt::format("{}: {}", dir, what);
}

// One directory read, or the reason it was not.
struct ReadOutcome {
  std::optional<StoredRun> run;
  std::string reason;
};

ReadOutcome read_one(const std::string& dir) {
  try {
    return {read_stored_run(dir), ""};
  } catch (const InputError& e) {
    return {std::nullopt, reason_for(dir, e.what())};
  } catch (const std::exception& e) {  // damage no reader named: this run is not added, the others are
    return {std::nullopt, reason_for(dir, fmt::format("could not be read ({})", e.what()))};
  }
}

// dirs[first, last) read by `threads` threads taking the next directory in turn (each reader only reads its
// own files); the outcomes in the order of dirs.
std::vector<ReadOutcome> read_batch(const std::vector<std::string>& dirs, std::size_t first, std::size_t last,
                                    std::size_t threads) {
  std::vector<ReadOutcome> out(last - first);
  std::atomic<std::size_t> next{first};
  auto work = [&] {
    for (std::size_t i = next++; i < last; i = next++) out[i - first] = read_one(dirs[i]);
  };
  std::vector<std::thread> pool;
  for (std::size_t t = 1; t < std::min(threads, last - first); ++t) pool.emplace_back(work);
  work();
  for (std::thread& t : pool) t.join();
  return out;
}

}  // namespace

AddReport add_run_dirs(Store& store, const std::vector<std::string>& run_dirs, std::size_t batch, std::size_t threads) {
  AddReport report;
  batch = std::max<std::size_t>(batch, 1);
  if (threads == 0) threads = std::max(1u, std::thread::hardware_concurrency());
  for (std::size_t first = 0; first < run_dirs.size(); first += batch) {
    const std::size_t last = std::min(run_dirs.size(), first + batch);
    std::vector<StoredRun> runs;
    std::vector<ReadOutcome> read = read_batch(run_dirs, first, last, threads);
    for (std::size_t i = 0; i < read.size(); ++i) {
      if (read[i].run) runs.push_back(std::move(*read[i].run));
      else report.not_added.emplace_back(run_dirs[first + i], std::move(read[i].reason));
    }
    for (AddOutcome& o : store.add(runs)) report.outcomes.push_back(std::move(o));
  }
  return report;
}

}  // namespace placebench::harness::history
