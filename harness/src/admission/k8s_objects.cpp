// Reading kubectl's JSON (v1 List of Pods and Events, core/v1 and events.k8s.io/v1; PodGroups of Volcano and
// scheduler-plugins) into records, snapshot by snapshot. Malformed objects are InputErrors naming the file and
// the object; what is merely missing is a warning (docs/admission.md, "Bad and partial snapshots").
#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <regex>

#include "placebench/harness/admission/admission.h"
#include "placebench/harness/errors.h"
#include "placebench/harness/input_file.h"

namespace placebench::harness::admission {
namespace {

using nlohmann::json;
namespace fs = std::filesystem;

constexpr const char* kFix = "give the output of `kubectl get pods,events -o json` or `kubectl get podgroups -o json`";

// Pod-to-group keys each scheduler uses: Volcano's annotations, scheduler-plugins' label (and its older one).
const char* const kGroupAnnotations[] = {"scheduling.k8s.io/group-name", "scheduling.volcano.sh/group-name"};
const char* const kGroupLabels[] = {"scheduling.x-k8s.io/pod-group", "pod-group.scheduling.sigs.k8s.io"};
const char* const kJobLabels[] = {"volcano.sh/job-name", "batch.kubernetes.io/job-name", "job-name",
                                  "training.kubeflow.org/job-name"};

// A string member, "" when absent or not a string (json::value would throw on another type).
std::string str_of(const json& j, const char* key) {
  if (!j.is_object() || !j.contains(key) || !j[key].is_string()) return "";
  return j[key].get<std::string>();
}

class ObjectReader {
 public:
  ObjectReader(std::string file, std::size_t index, const json& item) : file_(std::move(file)), item_(item) {
    where_ = fmt::format("items[{}]", index);
    if (item.is_object() && item.contains("kind") && item["kind"].is_string()) where_ += " (" + item["kind"].get<std::string>();
    else where_ += " (no kind";
    if (const json* n = at({"metadata", "name"}); n && n->is_string()) {
      const json* ns = at({"metadata", "namespace"});
      where_ += " " + (ns && ns->is_string() ? ns->get<std::string>() + "/" : std::string()) + n->get<std::string>();
    }
    where_ += ")";
  }

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
  double quantity(const json& q, const std::string& name) const {
    if (q.is_number()) return q.get<double>();
    if (!q.is_string()) fail(fmt::format("{} is not a quantity", name));
    const std::string s = q.get<std::string>();
    std::size_t i = 0;
    double v = 0, scale = 1;
    bool dot = false, any = false;
    for (; i < s.size() && i < 40; ++i) {
      if (s[i] == '.' && !dot) {
        dot = true;
      } else if (s[i] >= '0' && s[i] <= '9') {
        any = true;
        if (dot) scale /= 10;
        v = v * 10 + (s[i] - '0');
      } else {
        break;
      }
    }
    static const std::pair<const char*, double> kSuffixes[] = {
        {"", 1}, {"m", 1e-3}, {"k", 1e3}, {"M", 1e6}, {"G", 1e9}, {"T", 1e12}, {"Ki", 1024.0}, {"Mi", 1048576.0},
        {"Gi", 1073741824.0}, {"Ti", 1099511627776.0}};
    const std::string suffix = s.substr(i);
    for (const auto& [text, factor] : kSuffixes)
      if (any && suffix == text) return v * scale * factor;
    fail(fmt::format("{} '{}' is not a quantity (2, 100m, 16Gi)", name, s.size() > 40 ? s.substr(0, 40) + "..." : s));
  }

  const json& item() const { return item_; }
  const std::string& where() const { return where_; }

 private:
  std::string file_, where_;
  const json& item_;
};

// A container's amount of `resource`: limits (extended resources: requests must equal limits, limits alone
// imply requests), else requests.
double container_amount(const ObjectReader& r, const json& c, const char* resource, std::size_t i) {
  for (const char* kind : {"limits", "requests"})
    if (const json* q = r.at({"resources", kind, resource}, &c))
      return r.quantity(*q, fmt::format("spec.containers[{}].resources.{}[{}]", i, kind, resource));
  return 0;
}

void read_resources(const ObjectReader& r, PodRecord& p) {
  const json* containers = r.at({"spec", "containers"});
  if (!containers) return;
  if (!containers->is_array()) r.fail("spec.containers is not a list");
  for (std::size_t i = 0; i < containers->size(); ++i) {
    const json& c = (*containers)[i];
    p.gpus += container_amount(r, c, "nvidia.com/gpu", i);
    p.gpumem_mib += container_amount(r, c, "nvidia.com/gpumem", i);
    p.gpumem_pct += container_amount(r, c, "nvidia.com/gpumem-percentage", i);
    p.gpucores_pct += container_amount(r, c, "nvidia.com/gpucores", i);
  }
}

void read_container_statuses(const ObjectReader& r, PodRecord& p) {
  for (const char* list : {"initContainerStatuses", "containerStatuses"}) {
    const json* statuses = r.at({"status", list});
    if (!statuses) continue;
    if (!statuses->is_array()) r.fail(fmt::format("status.{} is not a list", list));
    for (std::size_t i = 0; i < statuses->size(); ++i) {
      const json& s = (*statuses)[i];
      const std::string at = fmt::format("status.{}[{}]", list, i);
      if (const json* rc = r.at({"restartCount"}, &s)) {
        if (!rc->is_number_integer()) r.fail(at + ".restartCount is not a whole number");
        if (std::string(list) == "containerStatuses") p.restarts += rc->get<int>();
      }
      std::string reason = r.text({"state", "waiting", "reason"}, &s, at + ".state.waiting.reason");
      if (!reason.empty() && std::find(p.waiting_reasons.begin(), p.waiting_reasons.end(), reason) == p.waiting_reasons.end())
        p.waiting_reasons.push_back(reason);
      for (const char* state : {"running", "terminated"}) {
        Time started = r.time({"state", state, "startedAt"}, at + ".state." + state + ".startedAt", &s);
        if (started && std::string(list) == "containerStatuses" && (!p.started || *started < *p.started)) p.started = started;
      }
      if (const json* term = r.at({"state", "terminated"}, &s)) {
        const json* code = r.at({"exitCode"}, term);
        if (code && code->is_number_integer() && code->get<int>() != 0) {
          Time finished = r.time({"finishedAt"}, at + ".state.terminated.finishedAt", term);
          if (finished && (!p.failed || *finished < *p.failed)) {
            p.failed = finished;
            std::string why = r.text({"reason"}, term, at + ".state.terminated.reason");
            p.failed_reason = fmt::format("{} exit code {}", why.empty() ? "container" : why, code->get<int>());
          }
        }
      }
    }
  }
}

PodRecord read_pod(const ObjectReader& r) {
  PodRecord p;
  p.name = r.name();
  p.ns = r.text({"metadata", "namespace"});
  p.uid = r.text({"metadata", "uid"});
  if (p.uid.empty()) p.uid = p.ns + "/" + p.name;
  p.created = r.time({"metadata", "creationTimestamp"}, "metadata.creationTimestamp");
  if (!p.created) r.fail("metadata.creationTimestamp is missing");
  p.deleted = r.time({"metadata", "deletionTimestamp"}, "metadata.deletionTimestamp");
  for (const char* key : kGroupAnnotations)
    if (p.group.empty()) p.group = r.text({"metadata", "annotations", key});
  for (const char* key : kGroupLabels)
    if (p.group.empty()) p.group = r.text({"metadata", "labels", key});
  for (const char* key : kJobLabels)
    if (std::string j = r.text({"metadata", "labels", key}); !j.empty()) p.job_names.push_back(j);
  if (const json* owners = r.at({"metadata", "ownerReferences"}); owners && owners->is_array())
    for (const json& o : *owners)
      if (std::string n = r.text({"name"}, &o); !n.empty()) p.job_names.push_back(n);
  p.node = r.text({"spec", "nodeName"});
  p.phase = r.text({"status", "phase"});
  read_resources(r, p);
  if (const json* conds = r.at({"status", "conditions"})) {
    if (!conds->is_array()) r.fail("status.conditions is not a list");
    for (std::size_t i = 0; i < conds->size(); ++i) {
      const json& c = (*conds)[i];
      const std::string at = fmt::format("status.conditions[{}]", i);
      std::string type = r.text({"type"}, &c, at + ".type"), status = r.text({"status"}, &c, at + ".status");
      Time t = r.time({"lastTransitionTime"}, at + ".lastTransitionTime", &c);
      if (status != "True") continue;
      if (!t) r.fail(at + " (" + type + " True) has no lastTransitionTime");
      if (type == "PodScheduled") p.scheduled = t;
      else if (type == "Initialized") p.initialized = t;
      else if (type == "ContainersReady") p.containers_ready = t;
      else if (type == "Ready") p.ready = t;
    }
  }
  read_container_statuses(r, p);
  if (p.phase == "Failed" && !p.failed) {
    p.failed = r.time({"status", "startTime"}, "status.startTime");
    p.failed_reason = "pod Failed: " + r.text({"status", "reason"});
  }
  return p;
}

// core/v1 Event (involvedObject, firstTimestamp, lastTimestamp, count, eventTime, series) or events.k8s.io/v1
// (regarding, note, eventTime, deprecatedFirstTimestamp, deprecatedLastTimestamp, deprecatedCount, series).
EventRecord read_event(const ObjectReader& r) {
  EventRecord e;
  std::string name = r.name();
  e.ns = r.text({"metadata", "namespace"});
  e.key = r.text({"metadata", "uid"});
  if (e.key.empty()) e.key = e.ns + "/" + name;
  const bool events_api = r.at({"regarding"}) != nullptr;
  const char* obj = events_api ? "regarding" : "involvedObject";
  e.kind = r.text({obj, "kind"});
  e.object = r.text({obj, "name"});
  if (e.object.empty()) r.fail(std::string(obj) + ".name is missing");
  e.reason = r.text({"reason"});
  e.message = r.text({events_api ? "note" : "message"});
  e.type = r.text({"type"});
  Time first = r.time({events_api ? "deprecatedFirstTimestamp" : "firstTimestamp"}, events_api ? "deprecatedFirstTimestamp" : "firstTimestamp");
  Time event_time = r.time({"eventTime"}, "eventTime");
  Time last = r.time({events_api ? "deprecatedLastTimestamp" : "lastTimestamp"}, events_api ? "deprecatedLastTimestamp" : "lastTimestamp");
  Time series_last = r.time({"series", "lastObservedTime"}, "series.lastObservedTime");
  if (!first) first = event_time;
  if (!first) first = r.time({"metadata", "creationTimestamp"}, "metadata.creationTimestamp");
  if (!first) r.fail("no firstTimestamp, eventTime or metadata.creationTimestamp");
  e.first = *first;
  e.last = series_last ? *series_last : last ? *last : e.first;
  for (const json* c : {r.at({"series", "count"}), r.at({events_api ? "deprecatedCount" : "count"})})
    if (c && c->is_number_integer()) e.count = std::max(e.count, c->get<int>());
  return e;
}

PodGroupRecord read_podgroup(const ObjectReader& r, const std::string& api, double snapshot_time) {
  PodGroupRecord g;
  g.name = r.name();
  g.ns = r.text({"metadata", "namespace"});
  g.api = api;
  g.created = r.time({"metadata", "creationTimestamp"}, "metadata.creationTimestamp");
  if (const json* m = r.at({"spec", "minMember"})) {
    if (!m->is_number_integer() || m->get<long long>() < 0 || m->get<long long>() > 1'000'000)
      r.fail("spec.minMember is not a whole number from 0 to 1000000");
    g.min_member = m->get<int>();
  }
  std::string phase = r.text({"status", "phase"});
  if (phase.empty()) return g;
  PhaseChange change{snapshot_time, phase, "snapshot"};
  // Volcano marks the gang's admission with a Scheduled condition; scheduler-plugins with scheduleStartTime.
  if (const json* conds = r.at({"status", "conditions"}); conds && conds->is_array()) {
    for (std::size_t i = 0; i < conds->size(); ++i) {
      const json& c = (*conds)[i];
      if (phase == "Running" && r.text({"type"}, &c) == "Scheduled" && r.text({"status"}, &c) == "True")
        if (Time t = r.time({"lastTransitionTime"}, fmt::format("status.conditions[{}].lastTransitionTime", i), &c))
          change = {*t, phase, "condition Scheduled"};
    }
  }
  if (phase == "Scheduling")
    if (Time t = r.time({"status", "scheduleStartTime"}, "status.scheduleStartTime")) change = {*t, phase, "scheduleStartTime"};
  g.phases.push_back(change);
  return g;
}

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

template <typename T>
T* find_by(std::vector<T>& v, const std::string& ns, const std::string& name) {
  for (auto& x : v)
    if (x.ns == ns && x.name == name) return &x;
  return nullptr;
}

void merge_pod(ClusterRecords& records, PodRecord p, double time) {
  p.last_seen = time;
  for (auto& old : records.pods) {
    if (old.uid != p.uid) continue;
    auto keep_first = [](Time& o, const Time& n) {
      if (!o) o = n;
    };
    keep_first(p.scheduled, old.scheduled);
    keep_first(p.initialized, old.initialized);
    keep_first(p.containers_ready, old.containers_ready);
    keep_first(p.ready, old.ready);
    keep_first(p.started, old.started);
    keep_first(p.deleted, old.deleted);
    if (old.failed && (!p.failed || *old.failed <= *p.failed)) {
      p.failed = old.failed;
      p.failed_reason = old.failed_reason;
    }
    if (old.ready && p.ready && *old.ready < *p.ready) p.ready = old.ready;  // the first time it was ready
    p.restarts = std::max(p.restarts, old.restarts);
    for (const auto& w : old.waiting_reasons)
      if (std::find(p.waiting_reasons.begin(), p.waiting_reasons.end(), w) == p.waiting_reasons.end()) p.waiting_reasons.push_back(w);
    if (p.gpus == 0) p.gpus = old.gpus;
    old = std::move(p);
    return;
  }
  records.pods.push_back(std::move(p));
}

void merge_event(ClusterRecords& records, EventRecord e) {
  for (auto& old : records.events)
    if (old.key == e.key) {
      old.first = std::min(old.first, e.first);
      old.last = std::max(old.last, e.last);
      old.count = std::max(old.count, e.count);
      return;
    }
  records.events.push_back(std::move(e));
}

void merge_podgroup(ClusterRecords& records, PodGroupRecord g) {
  PodGroupRecord* old = find_by(records.podgroups, g.ns, g.name);
  if (!old) {
    records.podgroups.push_back(std::move(g));
    return;
  }
  if (g.min_member) old->min_member = g.min_member;
  for (const auto& ch : g.phases)
    if (old->phases.empty() || old->phases.back().phase != ch.phase) old->phases.push_back(ch);
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
    if (kind == "Pod") {
      merge_pod(records, read_pod(r), time);
      ++pods_seen;
    } else if (kind == "Event") {
      merge_event(records, read_event(r));
    } else if (kind == "PodGroup") {
      if (api.empty()) api = str_of(root, "apiVersion");
      if (api != "scheduling.volcano.sh/v1beta1" && api != "scheduling.x-k8s.io/v1alpha1")
        records.warnings.push_back(fmt::format("{}: {}: PodGroup of apiVersion '{}' read as Volcano's or scheduler-plugins'", file, r.where(), api));
      merge_podgroup(records, read_podgroup(r, api, time));
    } else {
      records.warnings.push_back(fmt::format("{}: {}: kind '{}' ignored (read: Pod, Event, PodGroup)", file, r.where(), kind));
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
  if (records.podgroups.empty() && !records.pods.empty())
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
  std::vector<std::pair<double, bool>> pod_listings;  // (time, any pod listing at that time)
  for (const auto& f : files) {
    int pods = 0;
    add_items(records, f.root, f.file, *f.name_time, pods);
    if (records.snapshots.empty() || records.snapshots.back().time != *f.name_time) records.snapshots.push_back({*f.name_time, {}});
    records.snapshots.back().files.push_back(f.file);
    if (f.lists_pods) pod_listings.emplace_back(*f.name_time, true);
  }
  // A pod absent from a later pod listing was deleted by then (its deletion time is at most that snapshot's).
  for (auto& p : records.pods) {
    for (const auto& [t, listed] : pod_listings) {
      if (!listed || t <= p.last_seen) continue;
      p.gone = t;
      break;
    }
  }
  finish_records(records);
  return records;
}

}  // namespace placebench::harness::admission
