// Shortening a text for a message without cutting a UTF-8 sequence in half: a message that holds half a
// character is no longer valid UTF-8, and JSON outputs that carry it (fleet's reasons) would fail to dump.
#pragma once

#include <cstddef>
#include <string>

namespace placebench::harness {

// The first `max_bytes` bytes of `s` or fewer, ending on a character boundary (never inside a UTF-8 sequence).
inline std::string utf8_prefix(const std::string& s, std::size_t max_bytes) {
  if (s.size() <= max_bytes) return s;
  std::size_t end = max_bytes;
  while (end > 0 && (static_cast<unsigned char>(s[end]) & 0xC0U) == 0x80U) --end;
  return s.substr(0, end);
}

}  // namespace placebench::harness
