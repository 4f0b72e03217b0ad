// Kubernetes timestamps (metav1.Time "2026-12-01T14:00:00Z", MicroTime "...00.123456Z"; RFC 3339 with an
// offset is accepted too) to epoch seconds and back. Validated in full (RFC 3339 section 5.6 and 5.7): the day
// exists in its month (leap years), hours 0-23, minutes and seconds 0-59 (Kubernetes, like Go, never writes a
// leap second), an offset of at most 23:59; years 1970-9999, as no cluster stamps an object before the epoch.
#include <fmt/format.h>

#include <cctype>
#include <cmath>

#include "placebench/harness/admission/admission.h"

namespace placebench::harness::admission {
namespace {

// Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's days_from_civil).
long long days_from_civil(long long y, unsigned m, unsigned d) {
  y -= m <= 2;
  const long long era = (y >= 0 ? y : y - 399) / 400;
  const unsigned yoe = static_cast<unsigned>(y - era * 400);
  const unsigned doy = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + d - 1;
  const unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + static_cast<long long>(doe) - 719468;
}

bool leap_year(int y) { return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0; }

int days_in_month(int y, int m) {
  static const int kDays[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  return m == 2 && leap_year(y) ? 29 : kDays[m - 1];
}

bool digits(const std::string& s, std::size_t at, std::size_t n, int& out) {
  if (at + n > s.size()) return false;
  out = 0;
  for (std::size_t i = at; i < at + n; ++i) {
    if (!std::isdigit(static_cast<unsigned char>(s[i]))) return false;
    out = out * 10 + (s[i] - '0');
  }
  return true;
}

}  // namespace

std::optional<double> parse_rfc3339(const std::string& s) {
  int y, mo, d, h, mi, se;
  if (s.size() < 20 || !digits(s, 0, 4, y) || s[4] != '-' || !digits(s, 5, 2, mo) || s[7] != '-' || !digits(s, 8, 2, d) ||
      (s[10] != 'T' && s[10] != 't') || !digits(s, 11, 2, h) || s[13] != ':' || !digits(s, 14, 2, mi) || s[16] != ':' ||
      !digits(s, 17, 2, se))
    return std::nullopt;
  if (y < 1970 || mo < 1 || mo > 12 || d < 1 || d > days_in_month(y, mo) || h > 23 || mi > 59 || se > 59) return std::nullopt;
  std::size_t i = 19;
  double frac = 0;
  if (i < s.size() && s[i] == '.') {
    double scale = 0.1;
    std::size_t start = ++i;
    while (i < s.size() && i - start < 18 && std::isdigit(static_cast<unsigned char>(s[i]))) {
      frac += (s[i] - '0') * scale;
      scale /= 10;
      ++i;
    }
    if (i == start) return std::nullopt;
  }
  int offset_s = 0;
  if (i < s.size() && (s[i] == 'Z' || s[i] == 'z')) {
    ++i;
  } else if (i < s.size() && (s[i] == '+' || s[i] == '-')) {
    int oh, om;
    if (!digits(s, i + 1, 2, oh) || i + 3 >= s.size() || s[i + 3] != ':' || !digits(s, i + 4, 2, om) || oh > 23 || om > 59)
      return std::nullopt;
    offset_s = (s[i] == '+' ? 1 : -1) * (oh * 3600 + om * 60);
    i += 6;
  } else {
    return std::nullopt;
  }
  if (i != s.size()) return std::nullopt;
  long long days = days_from_civil(y, static_cast<unsigned>(mo), static_cast<unsigned>(d));
  return static_cast<double>(days * 86400 + h * 3600 + mi * 60 + se - offset_s) + frac;
}

std::string format_rfc3339(double epoch_s) {
  double whole = std::floor(epoch_s);
  long long ms = std::llround((epoch_s - whole) * 1000.0);
  long long t = static_cast<long long>(whole);
  if (ms == 1000) {
    ++t;
    ms = 0;
  }
  long long days = t >= 0 ? t / 86400 : (t - 86399) / 86400;
  long long secs = t - days * 86400;
  // civil_from_days (Hinnant)
  long long z = days + 719468;
  const long long era = (z >= 0 ? z : z - 146096) / 146097;
  const long long doe = z - era * 146097;
  const long long yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
  long long y = yoe + era * 400;
  const long long doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
  const long long mp = (5 * doy + 2) / 153;
  const long long d = doy - (153 * mp + 2) / 5 + 1;
  const long long m = mp < 10 ? mp + 3 : mp - 9;
  y += m <= 2;
  std::string out = fmt::format("{:04}-{:02}-{:02}T{:02}:{:02}:{:02}", y, m, d, secs / 3600, secs / 60 % 60, secs % 60);
  if (ms) out += fmt::format(".{:03}", ms);
  return out + "Z";
}

}  // namespace placebench::harness::admission
