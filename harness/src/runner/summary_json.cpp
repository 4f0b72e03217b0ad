// summary.json: the one writer and the one reader (analysis.h), each a visitor of summary_table.h. Every field the reader takes is checked first by
// detail::check_summary_json (results_checks.cpp), so the conversions below cannot throw.
#include <fmt/format.h>

#include "placebench/harness/runner/analysis.h"
#include "placebench/harness/runner/run_directory.h"
#include "results_checks.h"
#include "summary_table.h"

namespace placebench::harness {
namespace {

using nlohmann::json;
using detail::Gate;

template <class T>
json or_null(const std::optional<T>& v) {
  return v ? json(*v) : json(nullptr);
}

// Each field as summary.json holds it.
struct SummaryWriter {
  json& j;
  void text(const char* key, const std::string& s) const { j[key] = s; }
  void choice(const char* key, const std::string& s, const std::vector<std::string>&) const { j[key] = s; }
  void nullable_choice(const char* key, const std::string& s, const std::vector<std::string>&) const { nullable_text(key, s); }
  void nullable_text(const char* key, const std::string& s) const { j[key] = s.empty() ? json(nullptr) : json(s); }
  void boolean(const char* key, bool b) const { j[key] = b; }
  template <class N>
  void integer(const char* key, N n, long long) const { j[key] = n; }
  void nullable_integer(const char* key, const std::optional<int>& n, long long) const { j[key] = or_null(n); }
  void number(const char* key, double x, double, double) const { j[key] = x; }
  void nullable_number(const char* key, const std::optional<double>& x, double) const { j[key] = or_null(x); }
  void strings(const char* key, const std::vector<std::string>& list) const { j[key] = list; }
  void looks(const char* key, const std::vector<int>& list) const { j[key] = list; }
  void derived(const char* key, bool value) const { j[key] = value; }
  void constant(const char* key, const char* text) const { j[key] = text; }
  void gated_number(const char* key, double x, bool flag, Gate, double) const { j[key] = flag ? json(x) : json(nullptr); }
  void gated_pair(const char* key, double lo, double hi, bool flag, double) const {
    j[key] = flag ? json{lo, hi} : json(nullptr);
  }
  void gated_text(const char* key, const std::string& s, bool flag) const { j[key] = flag ? json(s) : json(nullptr); }
};

// Each field back into the record; a null (or, for the fields of issue 26, absent) key leaves the
// record's default. Two passes: first the keys that set a flag (setters_only), then the others, each read
// only when its flag is set.
struct SummaryReader {
  const json& j;
  bool setters_only = false;

  const json* value(const char* key) const {
    auto it = j.find(key);
    return setters_only || it == j.end() || it->is_null() ? nullptr : &*it;
  }
  template <class T>
  void read(const char* key, T& x) const {
    if (const json* v = value(key)) x = v->get<T>();
  }
  void text(const char* key, std::string& s) const { read(key, s); }
  void choice(const char* key, std::string& s, const std::vector<std::string>&) const { read(key, s); }
  void nullable_choice(const char* key, std::string& s, const std::vector<std::string>&) const { read(key, s); }
  void nullable_text(const char* key, std::string& s) const { read(key, s); }
  void boolean(const char* key, bool& b) const { read(key, b); }
  template <class N>
  void integer(const char* key, N& n, long long) const { read(key, n); }
  void nullable_integer(const char* key, std::optional<int>& n, long long) const {
    if (const json* v = value(key)) n = v->get<int>();
  }
  void number(const char* key, double& x, double, double) const { read(key, x); }
  void nullable_number(const char* key, std::optional<double>& x, double) const {
    if (const json* v = value(key)) x = v->get<double>();
  }
  void strings(const char* key, std::vector<std::string>& list) const { read(key, list); }
  void looks(const char* key, std::vector<int>& list) const { read(key, list); }
  void derived(const char*, bool) const {}
  void constant(const char*, const char*) const {}
  void gated_number(const char* key, double& x, bool& flag, Gate use, double) const {
    auto it = j.find(key);
    const bool present = it != j.end() && !it->is_null();
    if (use == Gate::kSets ? setters_only : !setters_only && flag) {
      if (use == Gate::kSets) flag = present;
      if (present) x = it->get<double>();
    }
  }
  void gated_pair(const char* key, double& lo, double& hi, const bool& flag, double) const {
    if (!flag) return;
    if (const json* v = value(key)) lo = (*v)[0].get<double>(), hi = (*v)[1].get<double>();
  }
  void gated_text(const char* key, std::string& s, const bool& flag) const {
    if (flag) read(key, s);
  }
};

ArmAnalysis arm_from_json(const json& j) {
  ArmAnalysis a;
  for (bool setters_only : {true, false}) {
    SummaryReader r{j, setters_only};
    detail::arm_fields(r, a);
    detail::arm_fields_added(r, a);
    detail::arm_load_fields(r, a);
  }
  a.stop = a.stop_reason == "decided" || a.stop_reason == "max_rounds" || (a.role != "compared" && a.role != "baseline");
  return a;
}

// One class entry; `loaded`: an entry of a class's `conditions` (its arms carry their load comparison).
// The fields of conditions are written only for a class that has them (summaries of other runs are as before).
json class_to_json(const ClassAnalysis& c, bool loaded) {
  json cls, arms = json::array();
  detail::class_fields(SummaryWriter{cls}, c);
  if (!c.condition.empty()) detail::class_condition_fields(SummaryWriter{cls}, c);
  for (const auto& a : c.arms) {
    json arm;
    SummaryWriter w{arm};
    detail::arm_fields(w, a);
    detail::arm_fields_added(w, a);
    if (loaded) detail::arm_load_fields(w, a);
    arms.push_back(std::move(arm));
  }
  cls["arms"] = std::move(arms);
  if (c.condition.empty() || loaded) return cls;
  cls["conditions"] = json::array();
  for (const auto& k : c.conditions) cls["conditions"].push_back(class_to_json(k, true));
  cls["dose_response"] = json::array();
  for (const auto& d : c.dose_response) detail::dose_response_fields(SummaryWriter{cls["dose_response"].emplace_back()}, d);
  return cls;
}

ClassAnalysis class_from_json(const json& c) {
  ClassAnalysis ca;
  detail::class_fields(SummaryReader{c}, ca);
  detail::class_condition_fields(SummaryReader{c}, ca);
  for (const json& a : c.at("arms")) ca.arms.push_back(arm_from_json(a));
  for (const json& k : c.value("conditions", json::array())) ca.conditions.push_back(class_from_json(k));
  for (const json& d : c.value("dose_response", json::array()))
    detail::dose_response_fields(SummaryReader{d}, ca.dose_response.emplace_back());
  return ca;
}

}  // namespace

json summary_to_json(const RunSummary& s) {
  json cj = json::array();
  for (const auto& c : s.classes) cj.push_back(class_to_json(c, false));
  json j{{"schema_version", kResultsSchemaVersion}, {"classes", cj}};
  detail::summary_fields(SummaryWriter{j}, s);
  return j;
}

RunSummary summary_from_json(const json& j, const std::string& path, const std::string& fix) {
  detail::check_summary_json(j, path, fix);
  RunSummary s;
  detail::summary_fields(SummaryReader{j}, s);
  for (const json& c : j.at("classes")) s.classes.push_back(class_from_json(c));
  return s;
}

}  // namespace placebench::harness
