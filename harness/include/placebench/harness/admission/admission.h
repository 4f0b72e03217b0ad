// `placebench admission`: what the scheduler did with a gang job, from the cluster's own records —
// `kubectl get pods,events -o json` and `kubectl get podgroups -o json` (Volcano scheduling.volcano.sh/v1beta1,
// scheduler-plugins scheduling.x-k8s.io/v1alpha1), one snapshot or several over time, and optionally the
// placebench `gang` JSON of the same job. Records are read into plain structs (k8s_objects.cpp), the
// timeline and its figures derived from them (timeline.cpp), and printed separately (admission_report.cpp).
// Definitions of every figure: docs/admission.md.
#pragma once
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

namespace placebench::harness::admission {

inline constexpr int kAdmissionSchemaVersion = 1;

using Time = std::optional<double>;  // seconds since the Unix epoch (UTC); absent: not (yet) observed

// ---- what the snapshots say ----

struct PodRecord {
  std::string ns, name, uid, node, group, phase;
  std::vector<std::string> job_names;  // volcano.sh/job-name, batch.kubernetes.io/job-name, ... and owners
  double gpus = 0;                     // nvidia.com/gpu (HAMi: vGPUs), per pod
  double gpumem_mib = 0;               // HAMi nvidia.com/gpumem (MiB), summed over containers
  double gpumem_pct = 0, gpucores_pct = 0;  // HAMi nvidia.com/gpumem-percentage, nvidia.com/gpucores
  Time created, scheduled, initialized, containers_ready, ready, started, failed;
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
  std::string ns, name, api;  // api: "scheduling.volcano.sh/v1beta1" or "scheduling.x-k8s.io/v1alpha1"
  int min_member = 0;
  Time created;
  std::vector<PhaseChange> phases;
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
  std::vector<std::string> warnings;
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

struct JobTimeline {
  std::string ns, group, scheduler;  // scheduler: volcano, scheduler-plugins, none
  int min_member = 0;
  bool min_member_from_podgroup = false;
  std::vector<PodTimeline> pods;
  std::vector<PhaseChange> podgroup_phases;
  std::vector<EventRecord> events;
  Time first_created, full_gang_at, all_ready_at, first_step_at, failure_at, cleanup_done_at;
  std::string failure_reason;
  std::vector<Allocation> waiting;       // GPUs bound to pods of a gang not yet fully bound
  double stranded_gpu_s = 0;             // sum of waiting
  double idle_before_ready_gpu_s = 0;    // GPUs bound before the gang was all ready (or first step)
  int restarts = 0, recreated = 0;
  std::vector<Stage> stages;
  std::string delay_stage;               // the longest stage
  std::vector<std::string> failed_scheduling_reasons;  // FailedScheduling / Unschedulable messages, distinct
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

std::string render_admission_table(const AdmissionReport& report);
nlohmann::json admission_to_json(const AdmissionReport& report);  // without the evidence stamp

}  // namespace placebench::harness::admission
