// Strict readers for the values in a topology XML. hwloc reads them with strtoul, atof and sscanf,
// which accept anything (junk reads as 0, "-5" wraps to 2^64-5); these accept only what hwloc writes.
#pragma once
#include <cstdint>
#include <optional>
#include <string_view>

namespace placebench::harness::topology_xml {

// Decimal digits only (no sign, no spaces), at most max.
std::optional<std::uint64_t> read_decimal(std::string_view s, std::uint64_t max = UINT64_MAX);
// An optional '-' then decimal digits, within [min, max].
std::optional<std::int64_t> read_signed(std::string_view s, std::int64_t min, std::int64_t max);
// A non-negative decimal number with an optional fraction ("7.877", "0").
bool is_decimal_fraction(std::string_view s);

// hwloc_bitmap_sscanf's format: "0xf...f" (full), or an optional "0xf...f," then comma-separated
// 32-bit words, each empty (zero) or "0x" and 1..8 hex digits; at most max_words words.
bool is_bitmap(std::string_view s, std::size_t max_words);

// "0000:17:00.0" (domain up to 16 bits, bus 8, device 5, function 3).
bool is_pci_busid(std::string_view s);
// "0302 [10de:2335] [10de:18be] a1" then anything hwloc ignores: class, [vendor:device],
// [subvendor:subdevice], revision.
bool is_pci_type(std::string_view s);
// "0-1" or "1-1": upstream bridge type (0 host, 1 PCI), then downstream (always 1, PCI, in hwloc 2).
bool is_bridge_type(std::string_view s);
// "0000:[17-31]": the domain and the secondary..subordinate bus range of a bridge.
bool is_bridge_pci(std::string_view s);

}  // namespace placebench::harness::topology_xml
