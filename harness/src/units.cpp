// Size and duration parsing (see units.h): every value bounded, so no option can ask for an endless wait.
#include "placebench/harness/text_clip.h"
#include "placebench/harness/units.h"

#include <cctype>
#include <cmath>
#include <cstdlib>
#include <fmt/format.h>
#include <limits>
#include <regex>

#include "placebench/harness/errors.h"

namespace placebench::harness {

namespace {

// A size as an option takes it: the largest binary unit that divides it ("16G", "1024T", "1000").
std::string size_text(std::uint64_t bytes) {
  const char* units[] = {"", "K", "M", "G", "T"};
  int u = 0;
  while (u < 4 && bytes >= 1024 && bytes % 1024 == 0) bytes /= 1024, ++u;
  return fmt::format("{}{}", bytes, units[u]);
}

// Values longer than this are refused before a regex sees them (std::regex recurses per character and a
// value of some 50,000 characters overflows the stack); no size or duration needs more than a few.
constexpr std::size_t kMaxValueChars = 64;
constexpr std::size_t kMaxSweepChars = 4096;

// The value as an error message quotes it: at most 40 characters.
std::string shown(const std::string& text) { return text.size() <= 40 ? text : utf8_prefix(text, 40) + "..."; }

void check_length(const std::string& text, const std::string& where, std::size_t max_chars, const char* what) {
  if (text.size() > max_chars)
    throw InputError(fmt::format("{}: {} '{}' is {} characters long; give at most {}", where, what, shown(text),
                                 text.size(), max_chars));
}

}  // namespace

std::uint64_t parse_size(const std::string& text, const std::string& where, std::uint64_t max_bytes) {
  check_length(text, where, kMaxValueChars, "size");
  static const std::regex re(R"(^\s*([0-9]+(\.[0-9]+)?)\s*(([kKmMgGtT])(iB|B)?|B)?\s*$)");
  std::smatch m;
  if (!std::regex_match(text, m, re))
    throw InputError(fmt::format("{}: bad size '{}'; use a number with an optional K, M, G or T (binary: 64M = 64 MiB), "
                                 "KiB..TiB (binary) or KB..TB (decimal: 64MB = 64,000,000 bytes)",
                                 where, text));
  double value = std::strtod(m[1].str().c_str(), nullptr);
  int power = 0;
  switch (m[4].str().empty() ? ' ' : std::toupper(static_cast<unsigned char>(m[4].str()[0]))) {
    case 'K': power = 1; break;
    case 'M': power = 2; break;
    case 'G': power = 3; break;
    case 'T': power = 4; break;
    default: break;
  }
  bool decimal = m[5].str() == "B";  // "KB" is decimal; "K" and "KiB" binary
  double bytes = value * std::pow(decimal ? 1000.0 : 1024.0, power);
  if (!std::isfinite(bytes) || bytes > static_cast<double>(max_bytes))
    throw InputError(fmt::format("{}: size '{}' is more than the maximum {}; give a size of at most {}", where, text,
                                 size_text(max_bytes), size_text(max_bytes)));
  if (bytes < 1 || bytes != std::floor(bytes))
    throw InputError(fmt::format("{}: size '{}' must be a whole number of bytes, at least 1", where, text));
  return static_cast<std::uint64_t>(bytes);
}

double parse_duration_s(const std::string& text, const std::string& where) {
  check_length(text, where, kMaxValueChars, "duration");
  static const std::regex re(R"(^\s*([0-9]+(\.[0-9]+)?)\s*(ns|us|ms|s|m|min|h)?\s*$)");
  std::smatch m;
  if (!std::regex_match(text, m, re))
    throw InputError(fmt::format("{}: bad duration '{}'; use a number with ns, us, ms, s, m or h (90s, 36m, 2h)", where, text));
  double v = std::strtod(m[1].str().c_str(), nullptr);
  std::string unit = m[3].str();
  if (unit == "ns") return v * 1e-9;
  if (unit == "us") return v * 1e-6;
  if (unit == "ms") return v * 1e-3;
  if (unit == "m" || unit == "min") return v * 60;
  if (unit == "h") return v * 3600;
  return v;
}

double parse_duration_s(const std::string& text, const std::string& where, double max_s) {
  double seconds = parse_duration_s(text, where);
  if (!std::isfinite(seconds) || seconds > max_s)
    throw InputError(fmt::format("{}: duration '{}' is longer than the maximum {}; give a duration of at most {}", where, text,
                                 format_duration(max_s), format_duration(max_s)));
  return seconds;
}

std::vector<std::uint64_t> parse_size_sweep(const std::string& text, const std::string& where, std::uint64_t max_bytes) {
  check_length(text, where, kMaxSweepChars, "sweep");
  std::vector<std::uint64_t> sizes;
  static const std::regex range(R"(^([^:,]+):([^:,]+):x([0-9]+)$)");
  std::smatch m;
  if (std::regex_match(text, m, range)) {
    std::uint64_t lo = parse_size(m[1].str(), where, max_bytes), hi = parse_size(m[2].str(), where, max_bytes);
    if (m[3].length() > 6)
      throw InputError(fmt::format("{}: bad sweep '{}': factor x{} is too large; use START:END:xFACTOR with FACTOR >= 2 "
                                   "(4K:256M:x4)", where, text, m[3].str()));
    std::uint64_t factor = std::stoull(m[3].str());
    if (factor < 2 || lo > hi)
      throw InputError(fmt::format("{}: bad sweep '{}'; use START:END:xFACTOR with START <= END and FACTOR >= 2 "
                                   "(4K:256M:x4)", where, text));
    for (std::uint64_t s = lo; s <= hi; s *= factor) {
      sizes.push_back(s);
      if (s > hi / factor) break;
    }
    return sizes;
  }
  if (text.find(':') != std::string::npos)
    throw InputError(fmt::format("{}: bad sweep '{}'; use START:END:xFACTOR (4K:256M:x4) or a list (4K,64M)", where, text));
  std::size_t start = 0;
  while (start <= text.size()) {
    std::size_t comma = text.find(',', start);
    sizes.push_back(parse_size(text.substr(start, comma == std::string::npos ? std::string::npos : comma - start), where, max_bytes));
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return sizes;
}

std::string format_size(std::uint64_t bytes) {
  const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB"};
  int u = 0;
  double v = static_cast<double>(bytes);
  while (v >= 1024 && u < 5 && std::fmod(v, 1024) == 0) {
    v /= 1024;
    ++u;
  }
  return fmt::format("{} {}", v, units[u]);
}

std::string format_duration(double seconds) {
  if (seconds >= 3600 && std::fmod(seconds, 3600) == 0) return fmt::format("{:g}h", seconds / 3600);
  if (seconds >= 60 && std::fmod(seconds, 60) == 0) return fmt::format("{:g}m", seconds / 60);
  return fmt::format("{:g}s", seconds);
}

}  // namespace placebench::harness
