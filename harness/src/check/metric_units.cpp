// Metric names and unit conversion for references (see metric_units.h).
#include "placebench/harness/check/metric_units.h"

#include <algorithm>
#include <cctype>
#include <map>

namespace placebench::harness::check {
namespace {

const std::map<std::string, double> kTimeNs = {{"ns", 1}, {"us", 1e3}, {"ms", 1e6}, {"s", 1e9}};
const std::map<std::string, double> kBandwidth = {{"B/s", 1}, {"KB/s", 1e3}, {"MB/s", 1e6}, {"GB/s", 1e9}};

// `word` as a whole '_'-separated part of the field name: "_ns" in wait_ns_median and step_ns, not in dns.
bool has_word(const std::string& s, const std::string& word) {
  for (auto pos = s.find(word); pos != std::string::npos; pos = s.find(word, pos + 1)) {
    bool starts = pos == 0 || s[pos - 1] == '_' || s[pos - 1] == '.';
    bool ends = pos + word.size() == s.size() || s[pos + word.size()] == '_';
    if (starts && ends) return true;
  }
  return false;
}

}  // namespace

bool is_known_metric(const std::string& metric) {
  if (metric == "median" || metric == "p90" || metric == "p99" || metric == "mean") return true;
  const std::string prefix = "trials.";
  if (metric.rfind(prefix, 0) != 0 || metric.size() == prefix.size()) return false;
  return std::all_of(metric.begin() + static_cast<std::ptrdiff_t>(prefix.size()), metric.end(),
                     [](unsigned char c) { return std::isalnum(c) || c == '_'; });
}

Dimension metric_dimension(const std::string& metric) {
  if (metric.rfind("trials.", 0) != 0) return Dimension::kTime;
  if (has_word(metric, "ns")) return Dimension::kTime;
  if (has_word(metric, "pct")) return Dimension::kPercent;
  if (metric.find("bytes_per_s") != std::string::npos || metric.find("bytes_s") != std::string::npos) return Dimension::kBandwidth;
  return Dimension::kOther;
}

std::string unit_problem_for(const std::string& metric, const std::string& unit) {
  switch (metric_dimension(metric)) {
    case Dimension::kTime:
      return kTimeNs.count(unit) ? "" : "'" + unit + "' is not a time unit for " + metric + "; accepted: ns, us, ms, s";
    case Dimension::kBandwidth:
      return kBandwidth.count(unit) ? "" : "'" + unit + "' is not a rate for " + metric + "; accepted: B/s, KB/s, MB/s, GB/s";
    case Dimension::kPercent:
      return unit == "%" ? "" : "'" + unit + "' is not a share for " + metric + "; accepted: %";
    default:
      return unit.empty() ? "give the unit the field is recorded in (a label, e.g. samples/s)" : "";
  }
}

double from_native(double value, const std::string& metric, const std::string& unit) {
  switch (metric_dimension(metric)) {
    case Dimension::kTime: return value / kTimeNs.at(unit);
    case Dimension::kBandwidth: return value / kBandwidth.at(unit);
    default: return value;
  }
}

}  // namespace placebench::harness::check
