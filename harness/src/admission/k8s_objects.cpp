// Reading kubectl's JSON (v1 List of Pods and Events, core/v1 and events.k8s.io/v1; PodGroups of Volcano and
// scheduler-plugins) into records, snapshot by snapshot. Malformed objects are InputErrors naming the file and
// the object; what is merely missing is a warning (docs/admission.md, "Bad and partial snapshots").
#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <regex>

#include "k8s_object_reader.h"
#include "placebench/harness/admission/admission.h"
#include "placebench/harness/errors.h"
#include "placebench/harness/input_limits.h"

namespace placebench::harness::admission {
namespace {

using nlohmann::json;
namespace fs = std::filesystem;
using k8s::kFix;
using k8s::str_of;
using k8s::ObjectReader;

struct FileItems {
  std::string file;
  json root;
  std::optional<double> name_time;
  bool lists_pods = false;
};

std::optional<double> time_from_name(const std::string& path) {
  static const std::regex re(R"((\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z)");
  std::smatch m;
  std::string base = fs::path(path).filename().string();
  if (!std::regex_search(base, m, re)) return std::nullopt;
  return parse_rfc3339(fmt::format("{}-{}-{}T{}:{}:{}Z", m[1].str(), m[2].str(), m[3].str(), m[4].str(), m[5].str(), m[6].str()));
}

const json& items_of(const json& root, const std::string& file) {
  if (!root.is_object() || !root.contains("items") || !root["items"].is_array())
    throw InputError(fmt::format("{}: not a kubectl List (expected {{\"kind\": \"List\", \"items\": [...]}}); {}", file, kFix));
  return root["items"];
}

// The latest time any object in the file mentions (the snapshot time of a file without one in its name).
void latest_time(const json& j, double& latest, int depth = 0) {
  if (depth > 32) return;
  if (j.is_string()) {
    const std::string& s = j.get_ref<const std::string&>();
    if (s.size() >= 20 && s.size() <= 40 && s[4] == '-' && s[10] == 'T')
      if (auto t = parse_rfc3339(s)) latest = std::max(latest, *t);
  } else if (j.is_structured()) {
    for (const auto& v : j) latest_time(v, latest, depth + 1);
  }
}

void add_items_checked(ClusterRecords& records, const json& root, const std::string& file, double time, int& pods_seen);

// Every field is type-checked where it is read; a json type error that slips past is still bad input.
void add_items(ClusterRecords& records, const json& root, const std::string& file, double time, int& pods_seen) {
  try {
    add_items_checked(records, root, file, time, pods_seen);
  } catch (const json::exception& e) {
    throw InputError(fmt::format("{}: a field of the wrong type ({}); {}", file, e.what(), kFix));
  }
}

void add_items_checked(ClusterRecords& records, const json& root, const std::string& file, double time, int& pods_seen) {
  const json& items = root.contains("items") ? items_of(root, file) : root;
  auto add_one = [&](const json& item, std::size_t i) {
    ObjectReader r(file, i, item);
    if (!item.is_object()) r.fail("not an object");
    std::string kind = r.text({"kind"}), api = r.text({"apiVersion"});
    if (kind.empty()) {  // kubectl get pods -o json: a PodList's items carry no kind
      std::string list_kind = str_of(root, "kind");
      if (list_kind.size() > 4 && list_kind.substr(list_kind.size() - 4) == "List") kind = list_kind.substr(0, list_kind.size() - 4);
    }
    if (api.empty()) api = str_of(root, "apiVersion");
    if (kind == "Pod") {
      k8s::merge_pod(records, k8s::read_pod(r, records.warnings), time, r, file);
      ++pods_seen;
    } else if (kind == "Event") {
      k8s::merge_event(records, k8s::read_event(r));
    } else if (kind == "PodGroup") {
      if (api != "scheduling.volcano.sh/v1beta1" && api != "scheduling.x-k8s.io/v1alpha1")
        records.warnings.push_back(fmt::format("{}: {}: PodGroup of apiVersion '{}' read as Volcano's or scheduler-plugins'", file, r.where(), api));
      k8s::merge_podgroup(records, k8s::read_podgroup(r, api, time), r);
    } else if (kind == "Workload" && api.rfind("kueue.x-k8s.io/", 0) == 0) {
      k8s::merge_workload(records, k8s::read_workload(r));
    } else if (k8s::is_owner_kind(kind, api)) {
      k8s::merge_owner(records, k8s::read_owner(r, kind));
    } else {
      records.warnings.push_back(fmt::format("{}: {}: kind '{}' ignored (read: Pod, Event, PodGroup, Workload, Volcano Job, MPIJob, "
                                             "PyTorchJob, JobSet, LeaderWorkerSet)", file, r.where(), kind));
    }
  };
  if (root.contains("items")) {
    for (std::size_t i = 0; i < items.size(); ++i) add_one(items[i], i);
  } else {
    add_one(root, 0);
  }
}

FileItems load_file(const std::string& path) {
  FileItems f;
  f.file = path;
  std::string text = read_input_file(path, kFix, kMaxResultsBytes);
  f.root = json::parse(text, nullptr, false);
  if (f.root.is_discarded())
    throw InputError(fmt::format("{}: not JSON (kubectl -o json prints JSON); {}", path, kFix));
  if (!f.root.is_object() || (!f.root.contains("items") && !f.root.contains("kind")))
    throw InputError(fmt::format("{}: not a kubectl List (expected {{\"kind\": \"List\", \"items\": [...]}}); {}", path, kFix));
  if (f.root.contains("items")) items_of(f.root, path);
  std::string kind = str_of(f.root, "kind");
  f.lists_pods = kind == "PodList" || fs::path(path).filename().string().find("pods") != std::string::npos;
  if (f.root.contains("items"))
    for (const auto& it : f.root["items"])
      if (str_of(it, "kind") == "Pod") f.lists_pods = true;
  f.name_time = time_from_name(path);
  if (!f.name_time) {
    double latest = 0;
    latest_time(f.root, latest);
    f.name_time = latest;
  }
  return f;
}

}  // namespace

void add_snapshot_text(ClusterRecords& records, const std::string& text, const std::string& file, double time) {
  json root = json::parse(text, nullptr, false);
  if (root.is_discarded()) throw InputError(fmt::format("{}: not JSON (kubectl -o json prints JSON); {}", file, kFix));
  int pods = 0;
  add_items(records, root, file, time, pods);
  records.snapshots.push_back({time, {file}});
}

void finish_records(ClusterRecords& records) {
  std::stable_sort(records.snapshots.begin(), records.snapshots.end(), [](const Snapshot& a, const Snapshot& b) { return a.time < b.time; });
  if (records.pods.empty()) records.warnings.push_back("no Pods in any snapshot: only events and PodGroup phases are shown");
  if (records.podgroups.empty() && records.workloads.empty() && records.owners.empty() && !records.pods.empty())
    records.warnings.push_back("no PodGroup in any snapshot: each gang's size is taken as the pods seen in it (give `kubectl get podgroups -o json` for minMember)");
  for (const auto& p : records.pods)
    if (!p.scheduled && p.phase.empty())
      records.warnings.push_back(fmt::format("pod {}/{} has no status: its timeline starts and ends at creation", p.ns, p.name));
}

ClusterRecords read_snapshots(const std::vector<std::string>& paths) {
  std::vector<FileItems> files;
  for (const auto& path : paths) {
    std::error_code ec;
    if (fs::is_directory(path, ec)) {
      std::vector<std::string> names;
      for (const auto& entry : fs::directory_iterator(path, ec))
        if (entry.path().extension() == ".json") names.push_back(entry.path().string());
      std::sort(names.begin(), names.end());
      if (names.empty()) throw InputError(fmt::format("{}: no *.json snapshots in this directory; {}", path, kFix));
      for (const auto& n : names) files.push_back(load_file(n));
    } else {
      files.push_back(load_file(path));
    }
  }
  std::stable_sort(files.begin(), files.end(), [](const FileItems& a, const FileItems& b) { return *a.name_time < *b.name_time; });
  ClusterRecords records;
  std::vector<double> pod_listings;  // times of the pod listings, ascending
  for (const auto& f : files) {
    int pods = 0;
    add_items(records, f.root, f.file, *f.name_time, pods);
    if (records.snapshots.empty() || records.snapshots.back().time != *f.name_time) records.snapshots.push_back({*f.name_time, {}});
    records.snapshots.back().files.push_back(f.file);
    if (f.lists_pods) pod_listings.push_back(*f.name_time);
  }
  // A pod absent from a later pod listing was deleted by then (its deletion time is at most that snapshot's).
  for (auto& p : records.pods) {
    auto later = std::upper_bound(pod_listings.begin(), pod_listings.end(), p.last_seen);
    if (later != pod_listings.end()) p.gone = *later;
  }
  finish_records(records);
  return records;
}

}  // namespace placebench::harness::admission
