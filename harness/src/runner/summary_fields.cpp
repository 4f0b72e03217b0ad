// The field table of summary.json (summary_table.h) as data: one arm field's number by its key (check's
// metrics) and the list of every field (the report's check of summary.json is compared with it).
#include "placebench/harness/runner/summary_fields.h"

#include "summary_table.h"

namespace placebench::harness {
namespace {

using nlohmann::json;
using detail::Gate;

// One field as data, handed to `f`: key, kind, whether it may be null, its accepted values (a choice) and,
// for a numeric field, its value as written (null: nullopt); `number` is nullptr for other kinds.
struct Field {
  const char* key;
  const char* kind;
  bool nullable;
  const std::vector<std::string>* accepted;
  const std::optional<double>* number;
};

template <class F>
struct Describe {
  F f;
  void put(const char* key, const char* kind, bool nullable, const std::vector<std::string>* accepted = nullptr,
           const std::optional<double>* number = nullptr) {
    f(Field{key, kind, nullable, accepted, number});
  }
  void put_number(const char* key, bool nullable, std::optional<double> value) { put(key, "number", nullable, nullptr, &value); }
  void text(const char* key, const std::string&) { put(key, "text", false); }
  void choice(const char* key, const std::string&, const std::vector<std::string>& accepted) { put(key, "choice", false, &accepted); }
  void nullable_choice(const char* key, const std::string&, const std::vector<std::string>& accepted) {
    put(key, "choice", true, &accepted);
  }
  void nullable_text(const char* key, const std::string&) { put(key, "text", true); }
  void boolean(const char* key, bool) { put(key, "boolean", false); }
  template <class N>
  void integer(const char* key, N n, long long) {
    const std::optional<double> v = static_cast<double>(n);
    put(key, "integer", false, nullptr, &v);
  }
  void nullable_integer(const char* key, const std::optional<int>& n, long long) {
    const std::optional<double> v = n ? std::optional<double>(*n) : std::nullopt;
    put(key, "integer", true, nullptr, &v);
  }
  void number(const char* key, double x, double, double) { put_number(key, false, x); }
  void nullable_number(const char* key, const std::optional<double>& x, double) { put_number(key, true, x); }
  void strings(const char* key, const std::vector<std::string>&) { put(key, "strings", false); }
  void looks(const char* key, const std::vector<int>&) { put(key, "integers", false); }
  void derived(const char* key, bool) { put(key, "boolean", false); }
  void constant(const char* key, const char*) { put(key, "text", false); }
  void gated_number(const char* key, double x, bool flag, Gate, double) {
    put_number(key, true, flag ? std::optional<double>(x) : std::nullopt);
  }
  void gated_pair(const char* key, double, double, bool, double) { put(key, "pair", true); }
  void gated_text(const char* key, const std::string&, bool) { put(key, "text", true); }
};

template <class F>
Describe<F> describe(F f) {
  return Describe<F>{std::move(f)};
}

}  // namespace

std::optional<double> arm_number(const ArmAnalysis& arm, std::string_view key) {
  std::optional<double> found;
  auto d = describe([&](const Field& f) {
    if (f.number && key == f.key) found = *f.number;
  });
  detail::arm_fields(d, arm);
  detail::arm_fields_added(d, arm);
  return found;
}

json summary_field_list() {
  json out = json::object();
  bool may_be_absent = false;
  auto into = [&](json& list) {
    return describe([&list, &may_be_absent](const Field& f) {
      json field{{"key", f.key}, {"kind", f.kind}, {"nullable", f.nullable}, {"may_be_absent", may_be_absent}};
      if (f.accepted) field["accepted"] = *f.accepted;
      list.push_back(std::move(field));
    });
  };
  const auto list_of = [](const char* key) {
    return json{{"key", key}, {"kind", "list"}, {"nullable", false}, {"may_be_absent", false}};
  };
  const RunSummary s{};
  const ClassAnalysis c{};
  const ArmAnalysis a{};
  json& top = out["summary"] = json::array();
  detail::summary_fields(into(top), s);
  top.push_back(list_of("classes"));
  json& cls = out["class"] = json::array();
  detail::class_fields(into(cls), c);
  cls.push_back(list_of("arms"));
  json& arm = out["arm"] = json::array();
  detail::arm_fields(into(arm), a);
  may_be_absent = true;
  detail::arm_fields_added(into(arm), a);
  return out;
}

}  // namespace placebench::harness
