// Where the runs are: a run directory (it holds run.json), a folder of them, or a folder of node folders of
// them (<host>/<run>, the layout of `run --per-node` and of a fleet's shared results folder). The one walk
// of that layout, for `fleet` and `history add`.
#pragma once
#include <string>
#include <vector>

namespace placebench::harness::check {

struct FoundRun {
  std::string dir;
  std::string host_hint;  // the <host> folder of a <host>/<run> layout ("" otherwise): names a run whose run.json is damaged
};

// DIR itself when it is a run directory, else its folders that are runs and the runs in its other folders,
// each level sorted by name. InputError for a DIR that is missing, is not a directory or holds no run.
std::vector<FoundRun> find_runs(const std::string& dir);

// find_runs of every DIR in turn, each run directory once however it is reached (by its canonical path).
std::vector<FoundRun> find_runs(const std::vector<std::string>& dirs);

}  // namespace placebench::harness::check
