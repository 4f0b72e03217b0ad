// Metrics a reference may name, their native unit, and conversion to the unit the reference is written in.
// Native units are those of the results schema: times in ns, rates in bytes/s, shares in percent.
#pragma once
#include <string>

namespace placebench::harness::check {

enum class Dimension { kTime, kBandwidth, kPercent, kOther };

// median, p90, p99, mean, or trials.FIELD (FIELD: letters, digits, '_').
bool is_known_metric(const std::string& metric);
// By name: the arm statistics and trial fields with an `ns` word (step_ns, wait_ns_median) are times;
// a `pct` word (input_bound_pct) percent; `bytes_per_s` or `bytes_s` (throughput_bytes_s) bandwidth;
// anything else a count whose unit is a free label.
Dimension metric_dimension(const std::string& metric);
// "" when `unit` fits the metric, else what would (time: ns, us, ms, s; bandwidth: B/s, KB/s, MB/s, GB/s;
// percent: %; other: any non-empty label).
std::string unit_problem_for(const std::string& metric, const std::string& unit);
// A native value expressed in `unit` (which unit_problem_for accepted).
double from_native(double value, const std::string& metric, const std::string& unit);

}  // namespace placebench::harness::check
