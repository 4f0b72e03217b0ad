// `check --against-history DB` (docs/history.md, "Against its own past"): a run judged against its node's
// own last stable segment in the store and against its peers (the other nodes' most recent complete runs of
// the same config: their median and robust spread, as `fleet` compares a node with the others), per class x
// arm x metric, as a check::CheckReport (so `check`'s table, JUnit and Markdown print it): one check "vs
// history" and one "vs peers" per figure. The run itself, when already stored, and runs that started after it
// are left out of both.
#pragma once
#include <string>

#include "placebench/harness/check/evaluate.h"
#include "placebench/harness/history/history.h"

namespace placebench::harness::history {

struct AgainstHistoryOptions {
  std::size_t min_runs = 5;        // fewer runs in the last stable segment: the check is `unknown`
  double threshold_pct = 5.0;      // a regression is worse than the level by more than this (percent of the
                                   // level; percentage points for ratio_pct)
  double z = 2.326;                // and by more than z x sqrt(spread^2 + se_new^2) (one-sided 1%)
  std::size_t min_peers = 3;       // fewer peers with the figure: the peer check is `unknown`; 0: no peer check
  double peer_threshold_pct = 10;  // worse than the peers' median by more than this (fleet's default tolerance)
};

check::CheckReport check_against_history(const Store& store, const std::string& run_dir,
                                         const AgainstHistoryOptions& options = {});

}  // namespace placebench::harness::history
