// `history add`'s work (add_run_dirs, history.h): read a batch of run directories, then add it in one
// transaction; a directory that cannot be read is set aside with its reason, the others go on.
#include <fmt/format.h>

#include "placebench/harness/errors.h"
#include "placebench/harness/history/history.h"

namespace placebench::harness::history {
namespace {

// The reason as one line that starts with the directory (the readers' messages already do).
std::string reason_for(const std::string& dir, const std::string& what) {
  return what.rfind(dir, 0) == 0 ? what : fmt::format("{}: {}", dir, what);
}

}  // namespace

AddReport add_run_dirs(Store& store, const std::vector<std::string>& run_dirs, std::size_t batch) {
  AddReport report;
  std::vector<StoredRun> runs;
  auto flush = [&] {
    for (AddOutcome& o : store.add(runs)) report.outcomes.push_back(std::move(o));
    runs.clear();
  };
  for (const std::string& dir : run_dirs) {
    try {
      runs.push_back(read_stored_run(dir));
    } catch (const InputError& e) {
      report.not_added.emplace_back(dir, reason_for(dir, e.what()));
    } catch (const std::exception& e) {  // damage no reader named: this run is not added, the others are
      report.not_added.emplace_back(dir, reason_for(dir, fmt::format("could not be read ({})", e.what())));
    }
    if (runs.size() >= std::max<std::size_t>(batch, 1)) flush();
  }
  flush();
  return report;
}

}  // namespace placebench::harness::history
