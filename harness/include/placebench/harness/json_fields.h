// A JSON format's fields as a table of {key, member pointer}: the writer walks the table and the typed
// reader beside it walks the same one, so each key is spelled once (node-check summary, admission and
// queue JSON; the pattern of gang JSON in collectives_driver/gang_report.cpp).
#pragma once
#include <cstddef>
#include <cstdint>
#include <limits>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <type_traits>
#include <vector>

namespace placebench::harness {

// The two keys every results format opens with.
inline constexpr const char* kSchemaVersionKey = "schema_version";
inline constexpr const char* kKindKey = "kind";

template <class Record, class Member>
struct Field {
  const char* key;
  Member Record::*member;
};

template <class T>
struct IsOptional : std::false_type {};
template <class T>
struct IsOptional<std::optional<T>> : std::true_type {};

// What a member holds, in words for "KEY: expected WORDS".
template <class Member>
constexpr const char* json_expected() {
  if constexpr (IsOptional<Member>::value) {
    using T = typename Member::value_type;
    if constexpr (std::is_same_v<T, bool>) return "true, false or null";
    else if constexpr (std::is_same_v<T, std::string>) return "a string or null";
    else if constexpr (std::is_integral_v<T>) return "an integer or null";
    else return "a number or null";
  } else if constexpr (std::is_same_v<Member, bool>) return "true or false";
  else if constexpr (std::is_same_v<Member, std::string>) return "a string";
  else if constexpr (std::is_same_v<Member, std::vector<std::string>>) return "a list of strings";
  else if constexpr (std::is_integral_v<Member>) return "an integer";
  else return "a number";
}

namespace detail {
template <class Int>
bool json_to_integer(const nlohmann::json& v, Int& out) {
  if (v.is_number_unsigned()) {
    const auto u = v.get<std::uint64_t>();
    if (u > static_cast<std::uint64_t>(std::numeric_limits<Int>::max())) return false;
    out = static_cast<Int>(u);
    return true;
  }
  if (!v.is_number_integer()) return false;
  const auto s = v.get<std::int64_t>();
  if constexpr (std::is_signed_v<Int>) {
    if (s < std::numeric_limits<Int>::min() || s > std::numeric_limits<Int>::max()) return false;
  } else {
    if (s < 0) return false;
  }
  out = static_cast<Int>(s);
  return true;
}
}  // namespace detail

// `v` into `out` when it has the member's JSON type (an optional also takes null); false otherwise.
template <class Member>
bool json_to_member(const nlohmann::json& v, Member& out) {
  if constexpr (std::is_same_v<Member, bool>) {
    if (!v.is_boolean()) return false;
    out = v.get<bool>();
  } else if constexpr (std::is_same_v<Member, std::string>) {
    if (!v.is_string()) return false;
    out = v.get<std::string>();
  } else if constexpr (std::is_same_v<Member, std::vector<std::string>>) {
    if (!v.is_array()) return false;
    out.clear();
    for (const auto& s : v) {
      if (!s.is_string()) return false;
      out.push_back(s.get<std::string>());
    }
  } else if constexpr (std::is_integral_v<Member>) {
    return detail::json_to_integer(v, out);
  } else if constexpr (std::is_same_v<Member, double>) {
    if (!v.is_number()) return false;
    out = v.get<double>();
  } else {  // std::optional<T>
    if (v.is_null()) {
      out.reset();
      return true;
    }
    typename Member::value_type inner{};
    if (!json_to_member(v, inner)) return false;
    out = inner;
  }
  return true;
}

template <class Member>
nlohmann::json member_to_json(const Member& m) {
  if constexpr (IsOptional<Member>::value)
    return m ? nlohmann::json(*m) : nlohmann::json(nullptr);
  else
    return nlohmann::json(m);
}

template <class Record, class Member, std::size_t N>
void write_fields(nlohmann::json& j, const Record& r, const Field<Record, Member> (&fields)[N]) {
  for (const auto& f : fields) j[f.key] = member_to_json(r.*f.member);
}

// Reads every field of the table; a key that is missing or not of its type is `fail(key, expected)`, which
// throws the format's InputError.
template <class Record, class Member, std::size_t N, class Fail>
void read_fields(const nlohmann::json& j, Record& r, const Field<Record, Member> (&fields)[N], const Fail& fail) {
  for (const auto& f : fields) {
    auto it = j.find(f.key);
    if (it == j.end() || !json_to_member(*it, r.*f.member)) fail(f.key, json_expected<Member>());
  }
}

// A record's JSON object from its tables; and every table of a record read at once.
template <class Record, class... Tables>
nlohmann::json record_to_json(const Record& r, const Tables&... tables) {
  nlohmann::json j = nlohmann::json::object();
  (write_fields(j, r, tables), ...);
  return j;
}
template <class Record, class Fail, class... Tables>
void read_all_fields(const nlohmann::json& j, Record& r, const Fail& fail, const Tables&... tables) {
  (read_fields(j, r, tables, fail), ...);
}

// The same for a format whose keys may be left out (hand-made files): a key that is present must be of its
// type; one that is absent keeps the record's default.
template <class Record, class Member, std::size_t N, class Fail>
void read_present_fields(const nlohmann::json& j, Record& r, const Field<Record, Member> (&fields)[N], const Fail& fail) {
  for (const auto& f : fields) {
    auto it = j.find(f.key);
    if (it != j.end() && !json_to_member(*it, r.*f.member)) fail(f.key, json_expected<Member>());
  }
}

}  // namespace placebench::harness
