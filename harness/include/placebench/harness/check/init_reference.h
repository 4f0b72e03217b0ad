// A reference file made from known-good runs (`placebench check --init-reference RUN... --out FILE`,
// docs/reports.md): per class and realised arm, the class statistic over rounds (trials.<statistic>) with a
// target at the median over the runs and a band that holds every run's CI over rounds, widened to at least
// `min_tolerance_pct` each side; per compared arm, the largest slowdown against the baseline that any run's
// ratio CI reached, plus the same floor. What it writes, parse_reference_text reads (a round-trip test).
#pragma once
#include <string>
#include <vector>

namespace placebench::harness::check {

struct InitReferenceOptions {
  double min_tolerance_pct = 5;  // the band is never narrower than this, each side
  std::string header;            // extra comment lines at the top (each "# ..."), e.g. where the runs came from
};

// The reference YAML of `runs` (run directories, each complete). InputError for a run that is not a run,
// not complete, or has no class in common with the first.
std::string make_reference_yaml(const std::vector<std::string>& runs, const InitReferenceOptions& options);

}  // namespace placebench::harness::check
