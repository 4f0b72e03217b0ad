// `placebench admission`: what the scheduler did with a gang job, from the cluster's own records —
// `kubectl get pods,events -o json` and `kubectl get podgroups -o json` (Volcano scheduling.volcano.sh/v1beta1,
// scheduler-plugins scheduling.x-k8s.io/v1alpha1), one snapshot or several over time, and optionally the
// placebench `gang` JSON of the same job. Records are read into plain structs (k8s_objects.cpp), the
// timeline and its figures derived from them (timeline.cpp), and printed separately (admission_report.cpp).
// Definitions of every figure: docs/admission.md.
#pragma once
#include <cstddef>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

namespace placebench::harness::admission {

inline constexpr int kAdmissionSchemaVersion = 1;

using Time = std::optional<double>;  // seconds since the Unix epoch (UTC); absent: not (yet) observed

// ---- what the snapshots say ----

struct PodRecord {
  std::string ns, name, uid, node, group, phase;
  std::string group_source;            // volcano, scheduler-plugins, kueue, lws (the key the group came from); "" for a job label
  std::vector<std::string> job_names;  // jobset-name, volcano.sh/job-name, batch.kubernetes.io/job-name, ... and owners
  std::optional<int> group_total_count;  // kueue.x-k8s.io/pod-group-total-count, leaderworkerset.sigs.k8s.io/size
  double gpus = 0;                     // nvidia.com/gpu (HAMi: vGPUs), per pod
  double gpumem_mib = 0;               // HAMi nvidia.com/gpumem (MiB), summed over containers
  double gpumem_pct = 0, gpucores_pct = 0;  // HAMi nvidia.com/gpumem-percentage, nvidia.com/gpucores
  Time created, scheduled, initialized, containers_ready, ready, started, failed;
  Time last_ready;                     // the latest Ready True lastTransitionTime seen (Ready again after a restart)
  Time deleted;                        // metadata.deletionTimestamp (when the kubelet may kill it)
  std::string failed_reason;           // "exit code 1", "OOMKilled", ...
  std::vector<std::string> waiting_reasons;  // containerStatuses[].state.waiting.reason seen (ImagePullBackOff, ...)
  int restarts = 0;                    // sum of containerStatuses[].restartCount (largest seen)
  Time gone;                           // the first later pod listing without it (an upper bound of its end)
  double last_seen = 0;                // time of the last snapshot that held it
};

struct EventRecord {
  std::string ns, kind, object, reason, message, type, key;
  double first = 0, last = 0;
  int count = 1;
};

struct PhaseChange {
  double time = 0;
  std::string phase;
  std::string source;  // "condition Scheduled", "scheduleStartTime", "snapshot" (first snapshot showing it)
};

struct PodGroupRecord {
  std::string ns, name, api, uid;  // api: "scheduling.volcano.sh/v1beta1" or "scheduling.x-k8s.io/v1alpha1"
  int min_member = 0;
  Time created;
  std::vector<PhaseChange> phases;
  std::string where;      // file and item of its first appearance (messages)
  double last_seen = -1;  // the snapshot time it was last read at
};

// A workload controller's object, read for the job's pod count (and, Volcano's Job, its minimum): Volcano
// `Job` (sum of spec.tasks[].replicas; spec.minAvailable), Kubeflow `MPIJob` and `PyTorchJob` (sum of the
// replica specs), `JobSet` (replicatedJobs[].replicas x parallelism), `LeaderWorkerSet` (size per group).
struct OwnerRecord {
  std::string ns, kind, name;
  int pods = 0;
  std::optional<int> min_available;  // Volcano Job spec.minAvailable
};

// A Kueue Workload: the admission record of a job or pod group (conditions first seen True, with reasons).
struct WorkloadRecord {
  std::string ns, name;
  std::vector<std::string> owners;  // ownerReferences names (the job, or the pods of a pod group)
  int pods = 0;                     // sum of spec.podSets[].count
  std::map<std::string, double> first_true;  // QuotaReserved, Admitted, PodsReady, Evicted, Requeued
  std::vector<PhaseChange> changes;          // each condition's True transitions seen (time, "Type: reason")
};

struct Snapshot {
  double time = 0;
  std::vector<std::string> files;
};

struct ClusterRecords {
  std::vector<Snapshot> snapshots;  // in time order
  std::vector<PodRecord> pods;      // one per uid (a recreated pod is a second record of the same name)
  std::vector<EventRecord> events;  // one per event (repeats folded by count)
  std::vector<PodGroupRecord> podgroups;
  std::vector<OwnerRecord> owners;
  std::vector<WorkloadRecord> workloads;
  std::vector<std::string> warnings;
  // Indexes of the merge (uid -> pods[i] and the file and item it was last read from; event key -> events[i]).
  struct PodSeen {
    std::size_t index = 0;
    std::string file, where;
  };
  std::unordered_map<std::string, PodSeen> pod_by_uid;
  std::unordered_map<std::string, std::size_t> event_by_key;
};

// Reads snapshot files and directories (docs/admission.md, "Snapshots"). Malformed input (not JSON, not a
// kubectl List, an object without metadata.name, a timestamp that is not RFC 3339) is an InputError naming
// the file and the object; partial input (no Pods, no PodGroup, a pod without status) gives warnings.
ClusterRecords read_snapshots(const std::vector<std::string>& paths);
// One snapshot's text (tests); `file` names it in messages.
void add_snapshot_text(ClusterRecords& records, const std::string& text, const std::string& file, double time);
void finish_records(ClusterRecords& records);

// RFC 3339 ("2026-12-01T14:00:00Z", "...00.123456Z", "...00+02:00") to epoch seconds; nullopt when malformed.
std::optional<double> parse_rfc3339(const std::string& text);
std::string format_rfc3339(double epoch_s);  // UTC with a Z; milliseconds when not whole seconds

// ---- the gang JSON, matched to pods ----

struct GangRankTimes {
  int rank = 0;
  std::string host;
  Time ready, joined, first_step;  // absolute (epoch) after alignment
};

// Reads `placebench gang --json` output; times stay relative (seconds since the job's earliest process start).
struct GangTimeline {
  std::string file;
  std::vector<GangRankTimes> ranks;  // relative seconds in ready/joined/first_step
};
GangTimeline read_gang_timeline(const std::string& path);

// ---- derived ----

struct Allocation {
  std::string pod;
  double gpus = 0, from = 0, until = 0;
  double gpu_s() const { return gpus * (until - from); }
};

struct Stage {
  std::string name;  // scheduling, image pull and start, rendezvous
  double from = 0, until = 0;
  bool finished = true;  // false: still open at the end of observation
};

struct PodTimeline {
  PodRecord pod;
  std::optional<int> rank;
  Time rank_ready, rank_joined, first_step;
};

// One attempt of a gang: the pods created from its start (the job's first creation, or the failure that ended
// the attempt before) to its own failure; docs/admission.md, "Attempts".
struct Attempt {
  int number = 1;
  double start = 0;
  std::vector<std::size_t> pods;  // indexes into JobTimeline::pods, the carried ones first
  std::vector<std::size_t> carried_in;   // pods of the attempt before, still running when this one's first pod appeared
  std::vector<std::size_t> carried_on;   // this attempt's pods that carry on into the next (their wait is counted there)
  Time min_gang_at, full_gang_at, all_ready_at, first_step_at, failure_at, cleanup_done_at;
  Time recovered_at;  // the failed pods Ready again in place (container restarts; nothing released)
  std::string failure_reason;
  std::vector<Allocation> waiting;  // GPUs bound to pods of a gang not yet fully bound
  std::vector<Allocation> held_after_failure;  // GPUs held from the failure to their release (or Ready again)
  double stranded_gpu_s = 0;           // waiting + held after failure
  double idle_before_ready_gpu_s = 0;  // GPUs bound before the gang was all ready (or first step)
  std::vector<Stage> stages;
  std::string delay_stage;  // the longest stage
  int bound_at_end = 0;     // pods of the attempt bound and not released at the end of observation
  bool pending = false;     // never fully bound (nor failed) by the end of observation
};

struct JobTimeline {
  std::string ns, group, scheduler;  // scheduler: volcano, scheduler-plugins, kueue, none
  int min_member = 0;                // what the scheduler waits for before binding
  std::string min_member_source;     // podgroup, job minAvailable, kueue total count, pod count
  int pod_count = 0;                 // the pods the job runs: every one must be bound for the gang to be whole
  std::string pod_count_source;      // Job, MPIJob, PyTorchJob, JobSet, LeaderWorkerSet, Workload, annotation, pods seen
  std::vector<PodTimeline> pods;
  std::vector<PhaseChange> podgroup_phases;
  std::vector<PhaseChange> workload_conditions;  // Kueue Workload conditions seen True, in time order
  std::string workload;                          // its name ("" when none)
  std::vector<EventRecord> events;
  Time first_created;
  std::vector<Attempt> attempts;  // at least one when the job has pods
  // The first attempt's figures, and totals over every attempt (stranded, idle) for one-line consumers.
  Time min_gang_at, full_gang_at, all_ready_at, first_step_at, failure_at, cleanup_done_at;
  std::string failure_reason;
  std::vector<Allocation> waiting, held_after_failure;  // every attempt's
  double stranded_gpu_s = 0;
  double idle_before_ready_gpu_s = 0;
  int restarts = 0, recreated = 0;
  std::vector<Stage> stages;
  std::string delay_stage;
  std::vector<std::string> failed_scheduling_reasons;  // FailedScheduling / Unschedulable messages, distinct
  std::vector<std::string> warnings;                   // minimum below the pod count, a pending attempt, ...
};

struct AdmissionReport {
  std::vector<Snapshot> snapshots;
  double observed_until = 0;
  std::vector<JobTimeline> jobs;
  std::vector<std::string> warnings;
  std::string gang_file;
};

struct AnalysisOptions {
  std::string only_group;        // empty: every group
  std::optional<double> gang_zero;  // epoch of the gang JSON's time zero; default: earliest container start
};

AdmissionReport analyze_admission(const ClusterRecords& records, const GangTimeline* gang, const AnalysisOptions& options);

// ---- gates for CI (admission --max-stranded, --max-time-to-gang, --max-cleanup; docs/admission.md, "Gates") ----

struct AdmissionGates {
  std::optional<double> max_stranded_gpu_s, max_time_to_gang_s, max_cleanup_s;
  bool any() const { return max_stranded_gpu_s || max_time_to_gang_s || max_cleanup_s; }
};

// One gate judged on one job: "ok", "exceeded", or "unknown" (not yet exceeded, but the figure can still
// grow: a gang still pending, a cleanup unfinished). Only "ok" passes.
struct GateFinding {
  std::string gate, job, verdict, detail;
  double limit = 0;
  std::optional<double> value;
};
std::vector<GateFinding> judge_gates(const AdmissionReport& report, const AdmissionGates& gates);
nlohmann::json gates_to_json(const std::vector<GateFinding>& findings);
std::string render_gates_table(const std::vector<GateFinding>& findings);

std::string render_admission_table(const AdmissionReport& report);
// Admission JSON (admission_json.cpp: the job's, attempt's and pod's keys in field tables walked by both):
// the writer, without the evidence stamp, and the typed reader (`cost --from`). The reader checks kind,
// schema_version 1 and jobs[], then every key of each job's and each attempt's tables (times RFC 3339 or null)
// and gives those fields; pods, events, allocations and stages stay empty. InputError "WHERE: jobs[I].KEY:
// expected ...; write it again with `placebench admission --json`".
nlohmann::json admission_to_json(const AdmissionReport& report);
bool looks_like_admission_json(const nlohmann::json& j);  // an object of kind "admission"
AdmissionReport admission_from_json(const nlohmann::json& j, const std::string& where);

}  // namespace placebench::harness::admission
