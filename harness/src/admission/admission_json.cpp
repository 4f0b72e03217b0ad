// Admission JSON (`placebench admission --json`; fields in docs/admission.md): the job's, attempt's and pod's
// keys spelled once in field tables that the writer walks and the typed reader beside it (`cost --from`)
// walks again. Derived figures (spans, counts) and nested lists are written here beside the tables.
#include <fmt/format.h>

#include "placebench/harness/admission/admission.h"
#include "placebench/harness/errors.h"
#include "placebench/harness/json_fields.h"

namespace placebench::harness::admission {
namespace {

using nlohmann::json;

json when(const Time& t) { return t ? json(format_rfc3339(*t)) : json(nullptr); }
json span(const Time& a, const Time& b) { return a && b ? json(*b - *a) : json(nullptr); }

// Times are RFC 3339 text in the JSON, or null (not observed): their own tables.
constexpr Field<JobTimeline, std::string> kJobTexts[] = {
    {"namespace", &JobTimeline::ns},         {"group", &JobTimeline::group},
    {"scheduler", &JobTimeline::scheduler},  {"min_member_source", &JobTimeline::min_member_source},
    {"pod_count_source", &JobTimeline::pod_count_source}, {"failure_reason", &JobTimeline::failure_reason},
    {"delay_stage", &JobTimeline::delay_stage}};
constexpr Field<JobTimeline, int> kJobIntegers[] = {{"min_member", &JobTimeline::min_member},
                                                    {"pod_count", &JobTimeline::pod_count}};
constexpr Field<JobTimeline, double> kJobNumbers[] = {{"stranded_gpu_s", &JobTimeline::stranded_gpu_s},
                                                      {"idle_before_ready_gpu_s", &JobTimeline::idle_before_ready_gpu_s}};
constexpr Field<JobTimeline, std::vector<std::string>> kJobLists[] = {
    {"warnings", &JobTimeline::warnings}, {"failed_scheduling_reasons", &JobTimeline::failed_scheduling_reasons}};
constexpr Field<JobTimeline, Time> kJobTimes[] = {
    {"first_created", &JobTimeline::first_created}, {"min_gang_at", &JobTimeline::min_gang_at},
    {"full_gang_at", &JobTimeline::full_gang_at},   {"all_ready_at", &JobTimeline::all_ready_at},
    {"first_step_at", &JobTimeline::first_step_at}, {"failure_at", &JobTimeline::failure_at},
    {"cleanup_done_at", &JobTimeline::cleanup_done_at}};
constexpr Field<Attempt, int> kAttemptIntegers[] = {{"attempt", &Attempt::number}, {"bound_at_end", &Attempt::bound_at_end}};
constexpr Field<Attempt, double> kAttemptNumbers[] = {{"stranded_gpu_s", &Attempt::stranded_gpu_s},
                                                      {"idle_before_ready_gpu_s", &Attempt::idle_before_ready_gpu_s}};
constexpr Field<Attempt, std::string> kAttemptTexts[] = {{"failure_reason", &Attempt::failure_reason},
                                                         {"delay_stage", &Attempt::delay_stage}};
constexpr Field<Attempt, bool> kAttemptFlags[] = {{"pending", &Attempt::pending}};
constexpr Field<Attempt, Time> kAttemptTimes[] = {
    {"min_gang_at", &Attempt::min_gang_at},     {"full_gang_at", &Attempt::full_gang_at},
    {"all_ready_at", &Attempt::all_ready_at},   {"first_step_at", &Attempt::first_step_at},
    {"failure_at", &Attempt::failure_at},       {"cleanup_done_at", &Attempt::cleanup_done_at},
    {"recovered_at", &Attempt::recovered_at}};
constexpr Field<PodRecord, std::string> kPodTexts[] = {{"name", &PodRecord::name},   {"uid", &PodRecord::uid},
                                                       {"node", &PodRecord::node},   {"phase", &PodRecord::phase},
                                                       {"failed_reason", &PodRecord::failed_reason}};
constexpr Field<PodRecord, double> kPodNumbers[] = {{"gpus", &PodRecord::gpus},
                                                    {"gpumem_mib", &PodRecord::gpumem_mib},
                                                    {"gpumem_pct", &PodRecord::gpumem_pct},
                                                    {"gpucores_pct", &PodRecord::gpucores_pct}};
constexpr Field<PodRecord, int> kPodIntegers[] = {{"restarts", &PodRecord::restarts}};
constexpr Field<PodRecord, std::vector<std::string>> kPodLists[] = {{"waiting_reasons", &PodRecord::waiting_reasons}};
constexpr Field<PodRecord, Time> kPodTimes[] = {
    {"created", &PodRecord::created}, {"scheduled", &PodRecord::scheduled}, {"initialized", &PodRecord::initialized},
    {"containers_ready", &PodRecord::containers_ready}, {"ready", &PodRecord::ready}, {"started", &PodRecord::started},
    {"deleted", &PodRecord::deleted}, {"gone", &PodRecord::gone}, {"failed", &PodRecord::failed}};
constexpr Field<PodTimeline, Time> kPodRankTimes[] = {{"rank_ready", &PodTimeline::rank_ready},
                                                      {"rank_joined", &PodTimeline::rank_joined},
                                                      {"first_step", &PodTimeline::first_step}};
constexpr const char* kJobs = "jobs";
constexpr const char* kAttempts = "attempts";
constexpr const char* kFix = "write it again with `placebench admission --json`";

template <class Record, std::size_t N>
void write_times(json& j, const Record& r, const Field<Record, Time> (&fields)[N]) {
  for (const auto& f : fields) j[f.key] = when(r.*f.member);
}

json pod_json(const PodTimeline& p) {
  json j = record_to_json(p.pod, kPodTexts, kPodNumbers, kPodIntegers, kPodLists);
  write_times(j, p.pod, kPodTimes);
  write_times(j, p, kPodRankTimes);
  j["rank"] = p.rank ? json(*p.rank) : json(nullptr);
  return j;
}
json allocations_json(const std::vector<Allocation>& list) {
  json out = json::array();
  for (const auto& a : list)
    out.push_back({{"pod", a.pod}, {"gpus", a.gpus}, {"from", format_rfc3339(a.from)}, {"until", format_rfc3339(a.until)}, {"gpu_s", a.gpu_s()}});
  return out;
}

json stages_json(const std::vector<Stage>& list) {
  json out = json::array();
  for (const auto& s : list)
    out.push_back({{"name", s.name}, {"from", format_rfc3339(s.from)}, {"until", format_rfc3339(s.until)}, {"seconds", s.until - s.from},
                   {"finished", s.finished}});
  return out;
}

json changes_json(const std::vector<PhaseChange>& list, const char* what) {
  json out = json::array();
  for (const auto& ph : list) out.push_back({{"time", format_rfc3339(ph.time)}, {what, ph.phase}, {"source", ph.source}});
  return out;
}

json attempt_json(const JobTimeline& job, const Attempt& a, double until) {
  json pods = json::array(), carried = json::array();
  for (std::size_t i : a.pods) pods.push_back(job.pods[i].pod.name);
  for (std::size_t i : a.carried_in) carried.push_back(job.pods[i].pod.name);
  json j = record_to_json(a, kAttemptIntegers, kAttemptNumbers, kAttemptTexts, kAttemptFlags);
  write_times(j, a, kAttemptTimes);
  j["start"] = format_rfc3339(a.start);
  j["pods"] = pods;
  j["carried_from_previous"] = carried;
  j["time_to_full_gang_s"] = a.full_gang_at ? json(*a.full_gang_at - a.start) : json(nullptr);
  j["cleanup_s"] = span(a.failure_at, a.cleanup_done_at);
  j["waiting_allocations"] = allocations_json(a.waiting);
  j["held_after_failure"] = allocations_json(a.held_after_failure);
  j["stages"] = stages_json(a.stages);
  j["pending_age_s"] = a.pending ? json(until - a.start) : json(nullptr);
  return j;
}

json job_json(const JobTimeline& job, double until) {
  json pods = json::array(), events = json::array(), attempts = json::array();
  for (const auto& p : job.pods) pods.push_back(pod_json(p));
  for (const auto& e : job.events)
    events.push_back({{"first", format_rfc3339(e.first)}, {"last", format_rfc3339(e.last)}, {"count", e.count}, {"kind", e.kind},
                      {"object", e.object}, {"type", e.type}, {"reason", e.reason}, {"message", e.message}});
  for (const auto& a : job.attempts) attempts.push_back(attempt_json(job, a, until));
  json j = record_to_json(job, kJobTexts, kJobIntegers, kJobNumbers, kJobLists);
  write_times(j, job, kJobTimes);
  j["min_below_pod_count"] = job.min_member < job.pod_count;
  j["workload"] = job.workload.empty() ? json(nullptr) : json(job.workload);
  j["workload_conditions"] = changes_json(job.workload_conditions, "condition");
  j["time_to_min_gang_s"] = span(job.first_created, job.min_gang_at);
  j["time_to_full_gang_s"] = span(job.first_created, job.full_gang_at);
  j["time_to_all_ready_s"] = span(job.first_created, job.all_ready_at);
  j["time_to_first_step_s"] = span(job.first_created, job.first_step_at);
  j["waiting_allocations"] = allocations_json(job.waiting);
  j["held_after_failure"] = allocations_json(job.held_after_failure);
  j["cleanup_s"] = span(job.failure_at, job.cleanup_done_at);
  j["retries"] = {{"restarts", job.restarts}, {"recreated_pods", job.recreated}};
  j["stages"] = stages_json(job.stages);
  j[kAttempts] = attempts;
  j["podgroup_phases"] = changes_json(job.podgroup_phases, "phase");
  j["events"] = events;
  j["pods"] = pods;
  return j;
}

// The JSON at `where` read back, or InputError "WHERE: PATH.KEY: expected ...; FIX".
struct Reader {
  const std::string& where;
  [[noreturn]] void fail(const std::string& at, const std::string& problem) const {
    throw InputError(fmt::format("{}: {}: {}; {}", where, at, problem, kFix));
  }
  auto failing(const std::string& at) const {
    return [this, at](const char* key, const char* expected) { fail(at + "." + key, std::string("expected ") + expected); };
  }
  template <class Record, std::size_t N>
  void times(const json& o, Record& r, const Field<Record, Time> (&fields)[N], const std::string& at) const {
    for (const auto& f : fields) {
      auto it = o.find(f.key);
      if (it != o.end() && it->is_null()) continue;
      std::optional<double> t = it != o.end() && it->is_string() ? parse_rfc3339(it->template get<std::string>()) : std::nullopt;
      if (!t) fail(at + "." + f.key, "expected an RFC 3339 time or null");
      r.*f.member = t;
    }
  }
};

Attempt attempt_from_json(const json& a, const std::string& at, const Reader& r) {
  if (!a.is_object()) r.fail(at, "expected a map");
  Attempt out;
  read_all_fields(a, out, r.failing(at), kAttemptIntegers, kAttemptNumbers, kAttemptTexts, kAttemptFlags);
  r.times(a, out, kAttemptTimes, at);
  return out;
}

JobTimeline job_from_json(const json& j, const std::string& at, const Reader& r) {
  if (!j.is_object()) r.fail(at, "expected a map");
  JobTimeline job;
  read_all_fields(j, job, r.failing(at), kJobTexts, kJobIntegers, kJobNumbers, kJobLists);
  r.times(j, job, kJobTimes, at);
  auto it = j.find(kAttempts);
  if (it == j.end() || !it->is_array()) r.fail(at + "." + kAttempts, "expected a list");
  for (std::size_t i = 0; i < it->size(); ++i)
    job.attempts.push_back(attempt_from_json((*it)[i], fmt::format("{}.attempts[{}]", at, i), r));
  return job;
}

}  // namespace

json admission_to_json(const AdmissionReport& report) {
  json snaps = json::array(), jobs = json::array();
  for (const auto& s : report.snapshots) snaps.push_back({{"time", format_rfc3339(s.time)}, {"files", s.files}});
  for (const auto& j : report.jobs) jobs.push_back(job_json(j, report.observed_until));
  return {{kSchemaVersionKey, kAdmissionSchemaVersion},
          {kKindKey, "admission"},
          {"snapshots", snaps},
          {"observed_until", format_rfc3339(report.observed_until)},
          {"gang_file", report.gang_file.empty() ? json(nullptr) : json(report.gang_file)},
          {"warnings", report.warnings},
          {kJobs, jobs}};
}

bool looks_like_admission_json(const json& j) {
  auto it = j.is_object() ? j.find(kKindKey) : j.end();
  return j.is_object() && it != j.end() && *it == "admission";
}

AdmissionReport admission_from_json(const json& j, const std::string& where) {
  const Reader r{where};
  auto v = j.is_object() ? j.find(kSchemaVersionKey) : j.end();
  auto jobs = j.is_object() ? j.find(kJobs) : j.end();
  if (!looks_like_admission_json(j) || v == j.end() || *v != kAdmissionSchemaVersion || jobs == j.end() || !jobs->is_array())
    throw InputError(fmt::format("{}: admission JSON needs schema_version 1 and jobs[]; write it again with `placebench admission "
                                 "--json` of this version", where));
  AdmissionReport report;
  for (std::size_t i = 0; i < jobs->size(); ++i) report.jobs.push_back(job_from_json((*jobs)[i], fmt::format("jobs[{}]", i), r));
  return report;
}

}  // namespace placebench::harness::admission
