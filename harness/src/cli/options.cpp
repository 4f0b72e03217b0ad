// Shared option groups and validators (see options.h).
#include "placebench/harness/cli/options.h"

#include <fmt/format.h>

#include <charconv>
#include <cmath>
#include <limits>

namespace placebench::harness {
namespace {

// What a validator says of an empty value (which CLI11 would otherwise read as 0 or the default).
const char* kEmptyValue = "empty value; give a number (or drop the option for its default)";

// The text as a finite number, or nullopt (not a number, trailing junk, NaN or inf).
std::optional<double> finite_number(const std::string& text) {
  double v = 0;
  std::size_t used = 0;
  try {
    v = std::stod(text, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (used == 0 || used != text.size() || !std::isfinite(v)) return std::nullopt;
  return v;
}

CLI::Validator number_at_least_zero(bool zero_allowed, double hi) {
  return CLI::Validator(
      [zero_allowed, hi](std::string& text) -> std::string {
        if (text.empty()) return kEmptyValue;
        std::optional<double> v = finite_number(text);
        if (!v) return "'" + text + "' is not a finite number";
        if (zero_allowed ? *v < 0 : *v <= 0) return std::string("must be ") + (zero_allowed ? "0 or more" : "more than 0") + ", got " + text;
        if (*v > hi) return fmt::format("must be at most {:g}, got {}", hi, text);
        return {};
      },
      zero_allowed ? "NONNEGATIVE" : "POSITIVE");
}

}  // namespace

const CLI::Validator& positive_number() {
  static const CLI::Validator v = number_at_least_zero(false, std::numeric_limits<double>::max());
  return v;
}

CLI::Validator positive_number_at_most(double hi) { return number_at_least_zero(false, hi); }

const CLI::Validator& non_negative_number() {
  static const CLI::Validator v = number_at_least_zero(true, std::numeric_limits<double>::max());
  return v;
}

CLI::Validator number_in(double lo, double hi, const std::string& shown) {
  return CLI::Validator(
      [lo, hi](std::string& text) -> std::string {
        if (text.empty()) return kEmptyValue;
        std::optional<double> v = finite_number(text);
        if (!v || *v < lo || *v > hi) return fmt::format("must be a number from {:g} to {:g}, got '{}'", lo, hi, text);
        return {};
      },
      shown.empty() ? fmt::format("FLOAT in [{:g} - {:g}]", lo, hi) : shown);
}

std::optional<long long> parse_decimal(const std::string& text, bool& out_of_range) {
  out_of_range = false;
  std::size_t sign = !text.empty() && text[0] == '-' ? 1 : 0;
  if (text.size() == sign || text.find_first_not_of("0123456789", sign) != std::string::npos) return std::nullopt;
  long long v = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v, 10);
  if (ec == std::errc::result_out_of_range) out_of_range = true;
  if (ec != std::errc() || end != text.data() + text.size()) return std::nullopt;
  return v;
}

std::string whole_number_problem(const std::string& text, long long lo, long long hi) {
  if (text.empty()) return kEmptyValue;
  bool out_of_range = false;
  std::optional<long long> v = parse_decimal(text, out_of_range);
  if (!v && !out_of_range)
    return lo <= INT_MIN && hi >= INT_MAX ? fmt::format("must be a whole number in decimal, got '{}'", text)
                                          : fmt::format("must be a whole number from {} to {}, got '{}'", lo, hi, text);
  // Out of range: in positive_number's words where the range is its.
  bool below = v ? *v < lo : text[0] == '-';
  if (below && lo == 0) return "must be 0 or more, got " + text;
  if (below && lo == 1) return "must be more than 0, got " + text;
  if (!v || *v < lo || *v > hi) return fmt::format("must be a whole number from {} to {}, got {}", lo, hi, text);
  return {};
}

CLI::Validator whole_number(long long lo, long long hi, const std::string& shown) {
  CLI::Validator v(
      [lo, hi](std::string& text) -> std::string {
        std::string problem = whole_number_problem(text, lo, hi);
        bool unused = false;
        if (problem.empty()) text = std::to_string(*parse_decimal(text, unused));  // "010" -> "10": CLI11 reads octal
        return problem;
      },
      shown, kWholeNumberValidator);
  return v;
}

void add_device_options(CLI::App* cmd, DeviceSelector& device) {
  auto* gpu = cmd->add_option("--gpu", device.gpu, "The GPU the worker drives (default: GPU 0 when there is one)")
                  ->type_name("I")
                  ->transform(whole_number(0, kMaxCount));
  auto* numa = cmd->add_option("--device-numa", device.device_numa,
                               "CPU-only node: the NUMA node that plays the device (default: the first node)")
                   ->type_name("N")
                   ->transform(whole_number(0, kMaxCount));
  gpu->excludes(numa);
}

void add_placement_options(CLI::App* cmd, PlanRequest& request) {
  cmd->add_option("--cpus-per-worker", request.cpus_per_worker, "CPUs each worker is bound to")
      ->type_name("K")
      ->transform(whole_number(1, kMaxCount, "POSITIVE"))
      ->default_val(1);
  cmd->add_option("--remote-node", request.remote_node,
                  "Use this NUMA node as the remote side (default: the farthest from the device)")
      ->type_name("N")
      ->transform(whole_number(0, kMaxCount));
  cmd->add_flag("--allow-degenerate", request.allow_degenerate,
                "Run arms this node cannot realise (e.g. remote on one NUMA node), marked degenerate");
}

void enforce_integer_rule(CLI::App& app) {
  for (CLI::App* sub : app.get_subcommands([](CLI::App*) { return true; }))
    for (CLI::Option* opt : sub->get_options()) {
      try {
        opt->get_validator(kWholeNumberValidator)->non_modifying(false);
      } catch (const CLI::OptionNotFound&) {  // not an integer option
      }
    }
}

std::string empty_value_error(const CLI::App& app) {
  for (const CLI::App* sub : app.get_subcommands()) {
    // A command of commands (history add): its chosen command's options, named "history add".
    if (std::string nested = empty_value_error(*sub); !nested.empty())
      return nested.replace(nested.find("placebench ") + 11, 0, sub->get_name() + " ");
    for (const CLI::Option* opt : sub->get_options()) {
      if (opt->get_type_size() == 0) continue;  // a flag
      for (const std::string& value : opt->results())
        if (value.empty()) {
          std::string name = opt->get_name();
          bool positional = opt->get_lnames().empty() && opt->get_snames().empty();
          return fmt::format("placebench {}: {}: empty value; give {}{}", sub->get_name(), name,
                             opt->get_type_name().empty() ? "a value" : opt->get_type_name(),
                             positional || opt->get_required() ? "" : " (or drop the option for its default)");
        }
    }
  }
  return {};
}

}  // namespace placebench::harness
