// Internal to the kubectl snapshot reader (k8s_objects.cpp and its parts): one object of a snapshot read
// field by field, each type-checked where it is read, with messages naming the file and the object; and
// the per-kind readers and merges that turn objects into records.
#pragma once
#include <fmt/format.h>

#include <cstddef>
#include <initializer_list>
#include <nlohmann/json.hpp>
#include <string>

#include "placebench/harness/admission/admission.h"
#include "placebench/harness/errors.h"

namespace placebench::harness::admission::k8s {

using nlohmann::json;

inline constexpr const char* kFix = "give the output of `kubectl get pods,events -o json` or `kubectl get podgroups -o json`";

// A string member, "" when absent or not a string (json::value would throw on another type).
inline std::string str_of(const json& j, const char* key) {
  if (!j.is_object() || !j.contains(key) || !j[key].is_string()) return "";
  return j[key].get<std::string>();
}

// One item of a snapshot; `where` names it in messages ("items[3] (Pod ns/name)").
class ObjectReader {
 public:
  ObjectReader(std::string file, std::size_t index, const json& item);

  [[noreturn]] void fail(const std::string& what) const {
    throw InputError(fmt::format("{}: {}: {}; {}", file_, where_, what, kFix));
  }

  const json* at(std::initializer_list<const char*> path, const json* from = nullptr) const {
    const json* j = from ? from : &item_;
    for (const char* key : path) {
      if (!j->is_object() || !j->contains(key) || (*j)[key].is_null()) return nullptr;
      j = &(*j)[key];
    }
    return j;
  }

  std::string text(std::initializer_list<const char*> path, const json* from = nullptr, const std::string& name = "") const {
    const json* j = at(path, from);
    if (!j) return "";
    if (!j->is_string()) fail(fmt::format("{} is not a string", name.empty() ? *path.begin() : name));
    return j->get<std::string>();
  }

  Time time(std::initializer_list<const char*> path, const std::string& name, const json* from = nullptr) const {
    const json* j = at(path, from);
    if (!j) return std::nullopt;
    if (!j->is_string()) fail(fmt::format("{} is not a string", name));
    auto t = parse_rfc3339(j->get<std::string>());
    if (!t) fail(fmt::format("{} '{}' is not an RFC 3339 time (2026-12-01T14:00:00Z)", name, j->get<std::string>()));
    return t;
  }

  std::string name() const {
    std::string n = text({"metadata", "name"}, nullptr, "metadata.name");
    if (n.empty()) fail("metadata.name is missing");
    return n;
  }

  // A Kubernetes quantity as a number ("2", "1500", "0.5", "100m", "16Gi" -> as a count of its unit).
  double quantity(const json& q, const std::string& name) const;

  const json& item() const { return item_; }
  const std::string& where() const { return where_; }

 private:
  std::string file_, where_;
  const json& item_;
};

// One object each (k8s_pod.cpp, k8s_event.cpp, k8s_podgroup.cpp, k8s_owner.cpp); warnings: clock skew taken up.
PodRecord read_pod(const ObjectReader& r, std::vector<std::string>& warnings);
EventRecord read_event(const ObjectReader& r);
PodGroupRecord read_podgroup(const ObjectReader& r, const std::string& api, double snapshot_time);
bool is_owner_kind(const std::string& kind, const std::string& api);  // Volcano Job, MPIJob, PyTorchJob, JobSet, LWS
OwnerRecord read_owner(const ObjectReader& r, const std::string& kind);
WorkloadRecord read_workload(const ObjectReader& r);

// A record folded into what earlier snapshots said (k8s_merge.cpp); `r` names the object in a refusal.
void merge_pod(ClusterRecords& records, PodRecord p, double time, const ObjectReader& r, const std::string& file);
void merge_event(ClusterRecords& records, EventRecord e);
void merge_podgroup(ClusterRecords& records, PodGroupRecord g, const ObjectReader& r);
void merge_owner(ClusterRecords& records, OwnerRecord o);
void merge_workload(ClusterRecords& records, WorkloadRecord w);

}  // namespace placebench::harness::admission::k8s
