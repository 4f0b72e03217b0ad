// `placebench stats A.txt B.txt`: placebench's statistics on any two files of numbers (one per line).
#include <fmt/format.h>

#include <cctype>
#include <charconv>
#include <cmath>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string_view>

#include "placebench/harness/cli/cli.h"
#include "placebench/harness/cli/json_output.h"
#include "placebench/harness/cli/options.h"
#include "placebench/harness/errors.h"
#include "placebench/harness/input_limits.h"
#include "placebench/stats/hodges_lehmann.h"
#include "placebench/stats/quantile.h"
#include "placebench/stats/rank_tests.h"

namespace placebench::harness {
namespace {

struct StatsOptions {
  std::string file_a, file_b;
  bool paired = false;
  double confidence = 0.95;
  bool json = false;
};

// A line as an error message shows it: control characters escaped, at most 40 characters.
std::string shown(const std::string& line) {
  std::string out;
  for (char c : line.substr(0, 40)) out += std::isprint(static_cast<unsigned char>(c)) ? std::string(1, c) : "?";
  return line.size() > 40 ? out + "..." : out;
}

// The number of a line's text (leading blanks already skipped), or nullopt. std::from_chars first (no
// allocation, no locale: a million lines in a few tens of ms); what it does not take whole ('+1', hex)
// goes through std::stod as before, so the accepted forms are unchanged.
std::optional<double> parse_number(std::string_view text) {
  const auto blank = [](char c) { return c == ' ' || c == '\t' || c == '\r'; };
  while (!text.empty() && blank(text.back())) text.remove_suffix(1);
  double x = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), x);
  if (ec == std::errc() && end == text.data() + text.size()) return x;
  std::size_t used = 0;
  try {
    x = std::stod(std::string(text), &used);
  } catch (const std::exception&) {
    return std::nullopt;
  }
  if (used != text.size()) return std::nullopt;
  return x;
}

std::vector<double> read_numbers(const std::string& path) {
  const std::string text = read_input_file(path, "give a text file with one number per line", kMaxNumbersBytes);
  std::vector<double> v;
  std::size_t start = 0;
  for (int no = 1; start < text.size(); ++no) {
    std::size_t stop = text.find('\n', start);
    if (stop == std::string::npos) stop = text.size();
    std::string_view line(text.data() + start, stop - start);
    start = stop + 1;
    if (no == 1 && line.starts_with("\xEF\xBB\xBF")) line.remove_prefix(3);  // a UTF-8 byte order mark
    const auto first = line.find_first_not_of(" \t\r");
    if (first == std::string_view::npos || line[first] == '#') continue;
    const std::optional<double> x = parse_number(line.substr(first));
    if (!x || !std::isfinite(*x))
      throw InputError(fmt::format("{}:{}: '{}' is not a number; one number per line ('#' starts a comment)", path, no,
                                   shown(std::string(line))));
    v.push_back(*x);
  }
  if (v.empty()) throw InputError(path + ": no numbers in the file");
  return v;
}

// What `--json` says of each interval: whether it reached the requested confidence, the coverage of the
// ranks it used, and how it was computed (exact null or normal approximation, and of what).
nlohmann::json interval_facts(bool coverage_met, double achieved, stats::Method method, const char* construction) {
  return {{"coverage_met", coverage_met}, {"achieved_confidence", achieved},
          {"method", std::string(stats::to_string(method))}, {"construction", construction}};
}

// Both files' medians with their CIs, the Hodges-Lehmann shift of B - A and the rank test's p-value.
struct StatsResult {
  std::size_t n_a = 0, n_b = 0;
  stats::QuantileCi sa, sb;
  stats::ShiftCi hl;
  stats::RankTest test;
  bool paired = false;
  double confidence = 0.95;
  const char* test_name() const { return paired ? "wilcoxon signed-rank" : "mann-whitney u"; }
  bool coverage_met() const { return hl.coverage_met && sa.coverage_met && sb.coverage_met; }
};

StatsResult compute_stats(const StatsOptions& o) {
  std::vector<double> a = read_numbers(o.file_a), b = read_numbers(o.file_b);
  if (o.paired && a.size() != b.size())
    throw InputError(fmt::format("--paired: {} has {} numbers and {} has {}; paired data needs one pair per line",
                                 o.file_a, a.size(), o.file_b, b.size()));
  StatsResult r{a.size(), b.size(), stats::quantile_ci(a, 0.5, o.confidence), stats::quantile_ci(b, 0.5, o.confidence), {}, {},
                o.paired, o.confidence};
  if (o.paired) {
    std::vector<double> d(a.size());
    for (std::size_t i = 0; i < a.size(); ++i) d[i] = b[i] - a[i];
    r.hl = stats::hodges_lehmann_one_sample(d, o.confidence);
    r.test = stats::wilcoxon_signed_rank(d);
  } else {
    r.hl = stats::hodges_lehmann_two_sample(a, b, o.confidence);
    r.test = stats::mann_whitney_u(a, b);
  }
  return r;
}

nlohmann::json stats_to_json(const StatsResult& r) {
  const stats::QuantileCi &sa = r.sa, &sb = r.sb;
  const stats::ShiftCi& hl = r.hl;
  return {{"n_a", r.n_a}, {"n_b", r.n_b}, {"median_a", sa.estimate}, {"median_b", sb.estimate},
          {"median_ci_a", {sa.lower, sa.upper}}, {"median_ci_b", {sb.lower, sb.upper}},
          {"hl_shift", hl.estimate}, {"hl_ci", {hl.lower, hl.upper}}, {"p_value", r.test.p_value},
          {"paired", r.paired}, {"confidence", r.confidence}, {"test", r.test_name()}, {"coverage_met", r.coverage_met()},
          {"intervals", {{"median_ci_a", interval_facts(sa.coverage_met, sa.achieved_confidence, sa.method,
                                                        "order statistics (Le Boudec Thm 2.1)")},
                         {"median_ci_b", interval_facts(sb.coverage_met, sb.achieved_confidence, sb.method,
                                                        "order statistics (Le Boudec Thm 2.1)")},
                         {"hl_ci", interval_facts(hl.coverage_met, hl.achieved_confidence, hl.method,
                                                  r.paired ? "Walsh averages, signed-rank null (H&W 3.3)"
                                                           : "pairwise differences, rank-sum null (H&W 4.3)")}}},
          {"test_method", std::string(stats::to_string(r.test.method))}};
}

std::string stats_text(const StatsResult& r) {
  std::string out = fmt::format("A: n={} median {:.6g} CI [{:.6g}, {:.6g}]\n", r.n_a, r.sa.estimate, r.sa.lower, r.sa.upper);
  out += fmt::format("B: n={} median {:.6g} CI [{:.6g}, {:.6g}]\n", r.n_b, r.sb.estimate, r.sb.lower, r.sb.upper);
  out += fmt::format("Hodges-Lehmann shift of B - A ({}): {:.6g}, {:.0f}% CI [{:.6g}, {:.6g}], {} p = {:.4g}\n",
                     r.paired ? "paired" : "unpaired", r.hl.estimate, r.confidence * 100, r.hl.lower, r.hl.upper,
                     r.test_name(), r.test.p_value);
  if (!r.coverage_met()) out += "Note: too few values for the requested confidence; CIs span the data\n";
  return out;
}

int run_stats(const StatsOptions& o) {
  const StatsResult r = compute_stats(o);
  emit_report(ReportTargets::printing(o.json),  // no evidence stamp: numbers from any two files
              {[&] { return json_text(stats_to_json(r), JsonForm::kUnstamped); }, [&] { return stats_text(r); }});
  return kExitOk;
}

}  // namespace

void add_stats_command(CLI::App& app, CommandAction& action) {
  auto o = std::make_shared<StatsOptions>();
  CLI::App* cmd = app.add_subcommand("stats", "Medians with CIs and the Hodges-Lehmann shift of two files of numbers");
  cmd->add_option("a", o->file_a, "File A: one number per line")->required()->type_name("A.txt");
  cmd->add_option("b", o->file_b, "File B: one number per line")->required()->type_name("B.txt");
  cmd->add_flag("--paired", o->paired, "Line i of A and B are a pair (Wilcoxon signed-rank); else two samples (Mann-Whitney)");
  cmd->add_option("--confidence", o->confidence, "Confidence level of every interval")
      ->check(number_in(0.5, 0.9999))
      ->default_val(0.95);
  cmd->add_flag("--json", o->json, "Print n_a, n_b, median_a/b, median_ci_a/b, hl_shift, hl_ci, p_value and, per interval, its coverage, achieved confidence and method, as JSON");
  cmd->callback([o, &action] { action = [o] { return run_stats(*o); }; });
}

}  // namespace placebench::harness
