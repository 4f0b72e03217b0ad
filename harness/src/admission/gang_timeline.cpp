// Reading the per-rank times of `placebench gang --json` for the admission timeline, through gang JSON's
// one reader (collectives_driver/gang_report.h): each rank's host and, from the completed attempt (else its
// last one), when it was ready, joined the rendezvous and did its first useful step, in seconds since the
// job's time zero.
#include "placebench/harness/admission/admission.h"
#include "placebench/harness/collectives_driver/gang_report.h"
#include "placebench/harness/input_limits.h"
#include "placebench/harness/results_json.h"

namespace placebench::harness::admission {

GangTimeline read_gang_timeline(const std::string& path) {
  const std::string fix = "give the JSON that `placebench gang --json` printed";
  const collectives::GangResult result =
      gang_result_from_json(parse_results_json(read_input_file(path, fix, kMaxResultsBytes), path, fix), path);
  GangTimeline g;
  g.file = path;
  for (const collectives::GangRank& r : result.ranks) {
    GangRankTimes t;
    t.rank = r.rank;
    t.host = r.host;
    const collectives::GangAttempt* chosen = nullptr;
    for (const collectives::GangAttempt& a : r.attempts)
      if (!result.completed_attempt || a.attempt == *result.completed_attempt) chosen = &a;
    if (chosen) {
      t.ready = chosen->ready_s;
      t.joined = chosen->joined_s;
      t.first_step = chosen->first_step_s;
    }
    g.ranks.push_back(t);
  }
  return g;
}

}  // namespace placebench::harness::admission
