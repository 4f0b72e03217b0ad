// Pace-setters and dose rounds: the slowdown options, JSON and table lines (see pace_report.h).
#include "placebench/harness/collectives_driver/pace_report.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>

#include "placebench/harness/errors.h"
#include "placebench/harness/units.h"

namespace placebench::harness {

using namespace placebench::collectives;

namespace {

constexpr double kMaxDoseS = 1.0;        // a spin per call longer than this is not a straggler, it is a stall
constexpr double kMaxDosePercent = 1000;  // of the step

std::vector<std::string> split_commas(const std::string& text) {
  std::vector<std::string> out;
  std::size_t start = 0;
  while (!text.empty() && start <= text.size()) {
    std::size_t comma = text.find(',', start);
    out.push_back(text.substr(start, comma == std::string::npos ? std::string::npos : comma - start));
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return out;
}

SlowDose parse_percent(std::string item, const std::string& option) {
  SlowDose d{item + (item.ends_with('%') ? "" : "%"), 0, true};
  if (item.ends_with('%')) item.pop_back();
  std::size_t used = 0;
  try {
    d.value = std::stod(item, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (item.empty() || used != item.size() || !std::isfinite(d.value) || d.value < 0 || d.value > kMaxDosePercent)
    throw InputError(fmt::format("{}: '{}' is not a percent of the step from 0 to {:g}; give e.g. 0,5,10,20%", option,
                                 d.text, kMaxDosePercent));
  return d;
}

double us(double s) { return s * 1e6; }

}  // namespace

std::vector<int> parse_rank_list(const std::string& text, const std::string& option) {
  std::vector<int> out;
  for (const std::string& item : split_commas(text)) {
    std::size_t used = 0;
    int v = -1;
    try {
      v = std::stoi(item, &used);
    } catch (const std::exception&) {
      used = 0;
    }
    if (used != item.size() || item.empty() || v < 0)
      throw InputError(option + ": '" + item + "' is not a rank; give comma-separated ranks, e.g. 1,3");
    out.push_back(v);
  }
  return out;
}

double parse_cpu_share(const std::string& text, const std::string& option) {
  std::string digits = text.ends_with('%') ? text.substr(0, text.size() - 1) : std::string();
  std::size_t dot = digits.find('.');
  bool decimal = !digits.empty() && digits.find_first_not_of("0123456789.") == std::string::npos &&
                 dot != 0 && dot != digits.size() - 1 && digits.find('.', dot == std::string::npos ? dot : dot + 1) == std::string::npos;
  double percent = decimal ? std::strtod(digits.c_str(), nullptr) : -1;
  if (!(percent >= 1 && percent <= 100))
    throw InputError(option + ": '" + text + "' is not a share of one CPU from 1% to 100%; give e.g. 50%");
  return percent / 100;
}

std::vector<SlowDose> parse_slow_doses(const std::string& text, const std::string& option) {
  const bool percent = text.ends_with('%');
  std::vector<SlowDose> out;
  for (const std::string& item : split_commas(text))
    out.push_back(percent ? parse_percent(item, option)
                          : SlowDose{item, parse_duration_s(item, option, kMaxDoseS), false});
  if (out.empty()) throw InputError(option + ": give at least one dose, e.g. 0,5,10,20%");
  auto zero = std::find_if(out.begin(), out.end(), [](const SlowDose& d) { return d.value == 0; });
  if (zero == out.end())
    out.insert(out.begin(), SlowDose{percent ? "0%" : "0", 0, percent});
  else
    std::rotate(out.begin(), zero, zero + 1);  // the reference first
  return out;
}

nlohmann::json trial_pace_to_json(const TrialPace& pace, bool with_blocks) {
  nlohmann::json ranks = nlohmann::json::array();
  for (const RankPace& r : pace.ranks)
    ranks.push_back({{"rank", r.rank}, {"named_blocks", r.named_blocks}, {"last_blocks", r.last_blocks},
                     {"median_lateness_us", us(r.median_lateness_s)}, {"median_clock_bound_us", us(r.median_bound_s)},
                     {"median_compute_us", us(r.median_compute_s)}, {"median_in_call_us", us(r.median_wait_s)},
                     {"p_last_by_chance", r.p_value}, {"median_lateness_when_last_us", us(r.median_last_lateness_s)},
                     {"median_clock_bound_when_last_us", us(r.median_last_bound_s)},
                     {"median_lateness_vs_others_us", us(r.median_excess_s)},
                     {"median_clock_bound_vs_others_us", us(r.median_excess_bound_s)},
                     {"arrival_order_sum", r.order_sum}, {"late_blocks", r.late_blocks},
                     {"p_late_by_chance", r.p_late},
                     {"lateness_lower_bound_us", us(r.lateness_lower_bound_s)}});
  nlohmann::json out{{"setter", pace.setter >= 0 ? nlohmann::json(pace.setter) : nlohmann::json("unknown")},
                     {"blocks", pace.blocks},
                     {"unknown_blocks", pace.unknown_blocks},
                     {"median_step_us", us(pace.median_step_s)},
                     {"min_effect_us", us(pace.min_effect_s)},
                     {"reason", pace.reason},
                     {"ranks", ranks}};
  if (with_blocks) {
    nlohmann::json blocks = nlohmann::json::array();
    for (const BlockPace& b : pace.per_block)
      blocks.push_back({{"setter", b.setter >= 0 ? nlohmann::json(b.setter) : nlohmann::json("unknown")},
                        {"last", b.last}, {"lateness_us", us(b.lateness_s)}, {"clock_bound_us", us(b.bound_s)}});
    out["per_block"] = blocks;
  }
  return out;
}

nlohmann::json lanes_to_json(const PaceTimeline& lanes) {
  double zero = std::numeric_limits<double>::infinity();
  for (const auto& block : lanes)
    for (const RankBlockTimes& r : block) zero = std::min(zero, r.start_s);
  nlohmann::json out = nlohmann::json::array();
  for (const auto& block : lanes) {
    nlohmann::json ranks = nlohmann::json::array();
    for (const RankBlockTimes& r : block) ranks.push_back({us(r.start_s - zero), us(r.arrive_s - zero), us(r.depart_s - zero)});
    out.push_back(ranks);
  }
  return out;
}

nlohmann::json doses_to_json(const std::vector<DoseFigures>& doses) {
  nlohmann::json out = nlohmann::json::array();
  for (const DoseFigures& d : doses)
    out.push_back({{"dose", d.dose}, {"set_us", d.set_us}, {"achieved_us", d.achieved_us}, {"rounds", d.rounds},
                   {"step_us", d.step_us}, {"collective_us", d.collective_us},
                   {"step_delta_us", {{"estimate", d.step_delta_us}, {"lo", d.step_delta_lo_us}, {"hi", d.step_delta_hi_us}}},
                   {"collective_delta_us",
                    {{"estimate", d.collective_delta_us}, {"lo", d.collective_delta_lo_us}, {"hi", d.collective_delta_hi_us}}},
                   {"excess_us", {{"estimate", d.excess_us}, {"lo", d.excess_lo_us}, {"hi", d.excess_hi_us}}},
                   {"slowest_rank_model", d.model},
                   {"pace", trial_pace_to_json(d.pace, false)}});
  for (std::size_t i = 0; i < doses.size(); ++i)
    if (doses[i].window_period_us > 0)  // started at common instants (not --call-start barrier)
      out[i].update({{"window_period_us", doses[i].window_period_us}, {"windows_missed", doses[i].windows_missed}});
  return out;
}

std::string pace_line(const std::string& what, const TrialPace& pace) {
  if (pace.setter < 0)
    return fmt::format("{}: pace-setter unknown ({}/{} blocks unresolved; {})\n", what, pace.unknown_blocks,
                       pace.blocks, pace.short_reason);
  const RankPace& r = pace.ranks[static_cast<std::size_t>(pace.setter)];
  return fmt::format("{}: rank {} set the pace in {}/{} (median {:.1f} us late; clocks +-{:.1f} us)\n", what, r.rank,
                     r.late_blocks, pace.blocks, us(r.median_excess_s), us(r.median_excess_bound_s));
}

std::string render_dose_table(const std::vector<DoseFigures>& doses, const std::vector<int>& slow_ranks) {
  if (doses.empty()) return "";
  std::string ranks;
  for (int r : slow_ranks) ranks += (ranks.empty() ? "" : ",") + std::to_string(r);
  std::string out = fmt::format("slowed rank(s) {}: step and collective time against the dose (us; 95% CI over rounds)\n", ranks);
  out += fmt::format("{:<8} {:>9} {:>9} {:>9} {:>24} {:>24} {:>8}\n", "dose", "set", "achieved", "step", "step delta [CI]",
                     "excess [CI]", "pace");
  for (const DoseFigures& d : doses)
    out += fmt::format("{:<8} {:>9.1f} {:>9.1f} {:>9.1f} {:>24} {:>24} {:>8}\n", d.dose, d.set_us, d.achieved_us, d.step_us,
                       fmt::format("{:.1f} [{:.1f}, {:.1f}]", d.step_delta_us, d.step_delta_lo_us, d.step_delta_hi_us),
                       fmt::format("{:.1f} [{:.1f}, {:.1f}]", d.excess_us, d.excess_lo_us, d.excess_hi_us),
                       pace_setter_text(d.pace.setter));
  out += "step = latest departure - earliest start; excess = step delta - achieved dose delta (0 under the\n"
         "slowest-rank model: " +
         std::string("consistent when its CI holds 0); pace = the rank named over the dose's calls\n");
  return out;
}

}  // namespace placebench::harness
