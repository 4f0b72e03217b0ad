// Strict value readers for topology XML (see topology_xml_values.h).
#include "topology_xml_values.h"

#include <charconv>
#include <cstddef>

namespace placebench::harness::topology_xml {
namespace {

bool is_digit(char c) { return c >= '0' && c <= '9'; }
bool is_hex(char c) { return is_digit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'); }

// Consumes 1..max_digits hex digits from s at pos whose value is at most max.
bool hex_field(std::string_view s, std::size_t& pos, std::size_t max_digits, std::uint64_t max) {
  std::size_t start = pos;
  std::uint64_t v = 0;
  while (pos < s.size() && is_hex(s[pos]) && pos - start < max_digits) {
    char c = s[pos++];
    v = v * 16 + static_cast<std::uint64_t>(is_digit(c) ? c - '0' : (c | 0x20) - 'a' + 10);
  }
  return pos > start && v <= max;
}

bool literal(std::string_view s, std::size_t& pos, char c) {
  if (pos >= s.size() || s[pos] != c) return false;
  ++pos;
  return true;
}

}  // namespace

std::optional<std::uint64_t> read_decimal(std::string_view s, std::uint64_t max) {
  if (s.empty() || s.size() > 20) return std::nullopt;
  for (char c : s)
    if (!is_digit(c)) return std::nullopt;
  std::uint64_t v = 0;
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || end != s.data() + s.size() || v > max) return std::nullopt;
  return v;
}

std::optional<std::int64_t> read_signed(std::string_view s, std::int64_t min, std::int64_t max) {
  bool negative = !s.empty() && s[0] == '-';
  auto magnitude = read_decimal(negative ? s.substr(1) : s, static_cast<std::uint64_t>(INT64_MAX));
  if (!magnitude) return std::nullopt;
  std::int64_t v = negative ? -static_cast<std::int64_t>(*magnitude) : static_cast<std::int64_t>(*magnitude);
  if (v < min || v > max) return std::nullopt;
  return v;
}

bool is_decimal_fraction(std::string_view s) {
  std::size_t dot = s.find('.');
  std::string_view whole = s.substr(0, dot);
  if (whole.empty() || whole.size() > 12) return false;
  for (char c : whole)
    if (!is_digit(c)) return false;
  if (dot == std::string_view::npos) return true;
  std::string_view frac = s.substr(dot + 1);
  if (frac.empty() || frac.size() > 12) return false;
  for (char c : frac)
    if (!is_digit(c)) return false;
  return true;
}

bool is_bitmap(std::string_view s, std::size_t max_words) {
  if (s == "0xf...f") return true;
  if (s.substr(0, 8) == "0xf...f,") s.remove_prefix(8);
  if (s.empty()) return false;
  std::size_t words = 0;
  std::size_t pos = 0;
  while (true) {
    if (++words > max_words) return false;
    if (pos < s.size() && s[pos] != ',') {
      if (s.substr(pos, 2) != "0x") return false;
      pos += 2;
      if (!hex_field(s, pos, 8, UINT32_MAX)) return false;
    }
    if (pos == s.size()) return true;
    if (s[pos] != ',') return false;
    ++pos;
  }
}

bool is_pci_busid(std::string_view s) {
  std::size_t pos = 0;
  return hex_field(s, pos, 8, 0xffff) && literal(s, pos, ':') && hex_field(s, pos, 2, 0xff) && literal(s, pos, ':') &&
         hex_field(s, pos, 2, 0x1f) && literal(s, pos, '.') && hex_field(s, pos, 1, 7) && pos == s.size();
}

bool is_pci_type(std::string_view s) {
  std::size_t pos = 0;
  return hex_field(s, pos, 6, 0xffffff) && literal(s, pos, ' ') && literal(s, pos, '[') &&
         hex_field(s, pos, 4, 0xffff) && literal(s, pos, ':') && hex_field(s, pos, 4, 0xffff) && literal(s, pos, ']') &&
         literal(s, pos, ' ') && literal(s, pos, '[') && hex_field(s, pos, 4, 0xffff) && literal(s, pos, ':') &&
         hex_field(s, pos, 4, 0xffff) && literal(s, pos, ']') && literal(s, pos, ' ') && hex_field(s, pos, 2, 0xff) &&
         (pos == s.size() || s[pos] == ' ');
}

bool is_bridge_type(std::string_view s) {
  return s.size() == 3 && (s[0] == '0' || s[0] == '1') && s[1] == '-' && s[2] == '1';
}

bool is_bridge_pci(std::string_view s) {
  std::size_t pos = 0;
  return hex_field(s, pos, 8, 0xffff) && literal(s, pos, ':') && literal(s, pos, '[') && hex_field(s, pos, 2, 0xff) &&
         literal(s, pos, '-') && hex_field(s, pos, 2, 0xff) && literal(s, pos, ']') && pos == s.size();
}

}  // namespace placebench::harness::topology_xml
