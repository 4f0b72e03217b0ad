// Size and duration parsing (see units.h).
#include "placebench/harness/units.h"

#include <cmath>
#include <cstdlib>
#include <fmt/format.h>
#include <limits>
#include <regex>

#include "placebench/harness/errors.h"

namespace placebench::harness {

std::uint64_t parse_size(const std::string& text, const std::string& where) {
  static const std::regex re(R"(^\s*([0-9]+(\.[0-9]+)?)\s*([kKmMgGtT]?)(i?[bB])?\s*$)");
  std::smatch m;
  if (!std::regex_match(text, m, re))
    throw InputError(fmt::format("{}: bad size '{}'; use a number with an optional K, M, G or T suffix (64M, 4KiB, 1G)",
                                 where, text));
  double value = std::strtod(m[1].str().c_str(), nullptr);
  int shift = 0;
  switch (m[3].str().empty() ? ' ' : std::toupper(m[3].str()[0])) {
    case 'K': shift = 10; break;
    case 'M': shift = 20; break;
    case 'G': shift = 30; break;
    case 'T': shift = 40; break;
    default: break;
  }
  double bytes = std::ldexp(value, shift);
  if (bytes < 1 || bytes > 9.0e18 || bytes != std::floor(bytes))
    throw InputError(fmt::format("{}: size '{}' must be a whole number of bytes, at least 1", where, text));
  return static_cast<std::uint64_t>(bytes);
}

double parse_duration_s(const std::string& text, const std::string& where) {
  static const std::regex re(R"(^\s*([0-9]+(\.[0-9]+)?)\s*(ns|us|ms|s|m|min|h)?\s*$)");
  std::smatch m;
  if (!std::regex_match(text, m, re))
    throw InputError(fmt::format("{}: bad duration '{}'; use a number with ns, us, ms, s, m or h (90s, 36m, 2h)",
                                 where, text));
  double v = std::strtod(m[1].str().c_str(), nullptr);
  std::string unit = m[3].str();
  if (unit == "ns") return v * 1e-9;
  if (unit == "us") return v * 1e-6;
  if (unit == "ms") return v * 1e-3;
  if (unit == "m" || unit == "min") return v * 60;
  if (unit == "h") return v * 3600;
  return v;
}

std::vector<std::uint64_t> parse_size_sweep(const std::string& text, const std::string& where) {
  std::vector<std::uint64_t> sizes;
  static const std::regex range(R"(^([^:,]+):([^:,]+):x([0-9]+)$)");
  std::smatch m;
  if (std::regex_match(text, m, range)) {
    std::uint64_t lo = parse_size(m[1].str(), where), hi = parse_size(m[2].str(), where);
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
    sizes.push_back(parse_size(text.substr(start, comma == std::string::npos ? std::string::npos : comma - start), where));
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return sizes;
}

std::string format_size(std::uint64_t bytes) {
  const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  int u = 0;
  double v = static_cast<double>(bytes);
  while (v >= 1024 && u < 4 && std::fmod(v, 1024) == 0) {
    v /= 1024;
    ++u;
  }
  return fmt::format("{} {}", v, units[u]);
}

}  // namespace placebench::harness
