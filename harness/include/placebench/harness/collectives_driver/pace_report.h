// Who sets the pace and stragglers on purpose, for `collective` and `gang`: the options that slow ranks
// (--slow-ranks, --slow-doses), and the JSON and table lines of the pace-setters and the dose rounds
// (the rule: collectives/include/placebench/collectives/pace.h).
#pragma once
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "placebench/collectives/bench.h"
#include "placebench/collectives/pace.h"

namespace placebench::harness {

// "1,3": ranks. Throws InputError naming `option` for an item that is not a whole number >= 0.
std::vector<int> parse_rank_list(const std::string& text, const std::string& option);

// "0,5,10,20%" (a trailing % makes every item a percent of the step; each may carry its own %) or
// durations "0,50us,1ms" (parse_duration_s, at most 1 s each; a bare number is seconds). Dose 0 is the
// reference: it comes first, added when not given. Throws InputError naming `option`.
std::vector<collectives::SlowDose> parse_slow_doses(const std::string& text, const std::string& option);

// A share of one CPU given as a percent, "N%" or "N.N%" (decimal digits only), from 1% to 100%: the
// share (0.01-1). Throws InputError naming the option otherwise.
double parse_cpu_share(const std::string& text, const std::string& option);

// A trial's pace-setter and per-rank evidence; with_blocks adds the per-block verdicts.
nlohmann::json trial_pace_to_json(const collectives::TrialPace& pace, bool with_blocks);
// Every rank's start, arrival and departure per block, in us since the earliest start of the timeline.
nlohmann::json lanes_to_json(const collectives::PaceTimeline& lanes);
nlohmann::json doses_to_json(const std::vector<collectives::DoseFigures>& doses);

// One line: "calls: rank 2 set the pace in 19/20 (median 12.3 us late; clocks +-1.1 us)": in 19 of 20
// blocks it was last even when moved the trial rule's threshold earlier, its median lateness against
// the others' median arrival and that pair's clock bound (pace.h); or unknown with the reason.
std::string pace_line(const std::string& what, const collectives::TrialPace& pace);
// The dose rounds' table (within 100 columns).
std::string render_dose_table(const std::vector<collectives::DoseFigures>& doses, const std::vector<int>& slow_ranks);

}  // namespace placebench::harness
