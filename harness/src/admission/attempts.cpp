// A gang job's attempts and the figures of each (docs/admission.md, "Attempts" and "Figures"). An attempt
// holds the pods created from its start (the job's first creation, or the failure that ended the attempt
// before) up to its own failure: a failed container (OOMKilled, a non-zero exit, now or before a restart) or
// Failed pod of its own, a failure event (BackoffLimitExceeded, DeadlineExceeded, ...) about one of its pods
// or about the job, a Kueue eviction; for an attempt never all Ready, also its first Killing event or
// deletion. Pods created after the failure are the next attempt, with the pods of this one still running
// (neither released, deleted nor failed) when the first of them appeared: a controller that replaces only the
// failed pod (Volcano RestartTask, a Kubeflow replica restart) makes a new gang of survivors and replacements.
// GPUs bound while the gang is not yet whole (waiting) and GPUs held from the failure to their release (or to
// the failed pods being Ready again in place) are stranded.
#include <fmt/format.h>

#include <algorithm>
#include <limits>
#include <map>

#include "timeline_parts.h"

namespace placebench::harness::admission::detail {
namespace {

// Reasons that mean the job (or a worker) has failed and cleanup begins.
const std::set<std::string> kFailureReasons = {"BackoffLimitExceeded", "DeadlineExceeded", "JobFailed", "PodFailed",
                                               "Evicted", "Preempted", "PodGroupFailed"};

struct Failure {
  double at = 0;
  std::string why;
};

void consider(std::optional<Failure>& f, double t, std::string why) {
  if (!f || t < f->at) f = Failure{t, std::move(why)};
}

// The job's events about each pod name, and the rest (job, PodGroup), indexed once.
struct EventIndex {
  std::map<std::string, std::vector<const EventRecord*>> by_pod;
  std::vector<const EventRecord*> other;
  explicit EventIndex(const JobTimeline& job) {
    for (const auto& e : job.events) (e.kind == "Pod" ? by_pod[e.object] : other).push_back(&e);
  }
  const std::vector<const EventRecord*>& of_pod(const std::string& name) const {
    static const std::vector<const EventRecord*> kNone;
    auto it = by_pod.find(name);
    return it == by_pod.end() ? kNone : it->second;
  }
};

// A failure about the job itself (not one pod) after `after`; for a later attempt, only once its first pod exists
// (the controller's events about the failure before, such as PodFailed, belong to that failure).
std::optional<Failure> job_failure(const JobTimeline& job, const EventIndex& events, double after, double first_pod_created) {
  if (after > -std::numeric_limits<double>::infinity()) after = std::max(after, first_pod_created);
  std::optional<Failure> f;
  for (const EventRecord* e : events.other)
    if (e->first > after && kFailureReasons.count(e->reason)) consider(f, e->first, fmt::format("{} {} {}: {}", e->kind, e->object, e->reason, e->message));
  for (const auto& c : job.workload_conditions)
    if (c.time > after && c.phase.rfind("Evicted", 0) == 0) consider(f, c.time, fmt::format("{} {}", c.source, c.phase));
  return f;
}

// A failure of one member: its failed container or phase, a failure event about this incarnation.
void pod_failure(std::optional<Failure>& f, const PodRecord& p, const EventIndex& events, double after) {
  if (p.failed && *p.failed > after) consider(f, *p.failed, fmt::format("pod {}: {}", p.name, p.failed_reason));
  for (const EventRecord* e : events.of_pod(p.name))
    if (e->first > after && e->first >= *p.created && kFailureReasons.count(e->reason))
      consider(f, e->first, fmt::format("Pod {} {}: {}", p.name, e->reason, e->message));
}

// Torn down before it was ever all Ready: the first kill or deletion of a member.
void teardown(std::optional<Failure>& f, const PodRecord& p, const EventIndex& events, double after) {
  if (p.deleted && *p.deleted > after) consider(f, *p.deleted, fmt::format("pod {} deleted before the gang was ready", p.name));
  for (const EventRecord* e : events.of_pod(p.name))
    if (e->first > after && e->first >= *p.created && e->reason == "Killing")
      consider(f, e->first, fmt::format("Pod {} Killing: {}", p.name, e->message));
}

std::vector<const PodRecord*> records_of(const JobTimeline& job, const Attempt& a) {
  std::vector<const PodRecord*> out;
  for (std::size_t i : a.pods) out.push_back(&job.pods[i].pod);
  return out;
}

// At or after the attempt's start (carried pods were bound and Ready before it).
Time from_start(Time t, double start) { return t ? Time(std::max(*t, start)) : t; }

bool contains(const std::vector<std::size_t>& v, std::size_t i) { return std::find(v.begin(), v.end(), i) != v.end(); }

void gang_marks(const JobTimeline& job, Attempt& a) {
  auto members = records_of(job, a);
  a.min_gang_at = from_start(first_time_with(members, job.min_member, &PodRecord::scheduled), a.start);
  a.full_gang_at = from_start(first_time_with(members, job.pod_count, &PodRecord::scheduled), a.start);
  a.all_ready_at = from_start(first_time_with(members, job.pod_count, &PodRecord::ready), a.start);
  int ranked = 0, stepped = 0;
  double latest = 0;
  for (std::size_t i : a.pods) {
    const PodTimeline& p = job.pods[i];
    if (!p.rank) continue;
    ++ranked;
    if (p.first_step) ++stepped, latest = std::max(latest, *p.first_step);
  }
  if (ranked > 0 && stepped == ranked && ranked >= job.pod_count) a.first_step_at = latest;
}

// The members of the attempt that starts at `order[next]`, taken while they were created before its failure.
Attempt take_attempt(const JobTimeline& job, const EventIndex& events, const std::vector<std::size_t>& order, std::size_t& next,
                     double start, double after, const std::vector<std::size_t>& carried) {
  Attempt a;
  a.start = start;
  a.pods = a.carried_in = carried;
  std::optional<Failure> f = job_failure(job, events, after, next < order.size() ? *job.pods[order[next]].pod.created : after);
  for (std::size_t i : carried) pod_failure(f, job.pods[i].pod, events, after);
  for (; next < order.size() && (!f || *job.pods[order[next]].pod.created <= f->at); ++next) {
    a.pods.push_back(order[next]);
    pod_failure(f, job.pods[order[next]].pod, events, after);
  }
  gang_marks(job, a);
  if (!a.all_ready_at) {
    for (std::size_t i : a.pods) teardown(f, job.pods[i].pod, events, after);
    bool dropped = false;
    while (f && !a.pods.empty() && *job.pods[a.pods.back()].pod.created > f->at) a.pods.pop_back(), --next, dropped = true;
    if (dropped) gang_marks(job, a);
  }
  if (f) a.failure_at = f->at, a.failure_reason = f->why;
  return a;
}

// Cleanup (the last release of the members), or recovery in place (every failed member Ready again).
void derive_cleanup(const JobTimeline& job, Attempt& a, double until) {
  if (!a.failure_at) return;
  const double f = *a.failure_at;
  double done = f, recovered = f;
  bool unfinished = false, any_failed = false, all_back = true;
  for (std::size_t i : a.pods) {
    const PodRecord& p = job.pods[i].pod;
    const Time r = released(p);
    if (contains(a.carried_on, i)) continue;  // part of the next attempt, not of this cleanup
    if (!r) unfinished = true;
    else done = std::max(done, *r);
    if (!p.failed || *p.failed < f || r) continue;  // a failed member still held: restarted in place?
    any_failed = true;
    if (p.last_ready && *p.last_ready > f) recovered = std::max(recovered, *p.last_ready);
    else all_back = false;
  }
  if (any_failed && all_back) a.recovered_at = recovered;
  else if (!unfinished && done <= until) a.cleanup_done_at = done;
}

void derive_allocations(const JobTimeline& job, Attempt& a, double until) {
  Time ready_mark = a.first_step_at ? a.first_step_at : a.all_ready_at;
  const double inf = std::numeric_limits<double>::infinity();
  for (std::size_t i : a.pods) {
    const PodRecord& p = job.pods[i].pod;
    if (!p.scheduled || p.gpus <= 0) continue;
    const double from = std::max(*p.scheduled, a.start);
    double end = until;
    if (Time r = released(p)) end = std::min(end, *r);
    else ++a.bound_at_end;
    const double wait_end = std::min({end, a.full_gang_at.value_or(inf), a.failure_at.value_or(inf)});
    if (wait_end > from) a.waiting.push_back({p.name, p.gpus, from, wait_end});
    if (a.failure_at && !contains(a.carried_on, i)) {
      const double held_from = std::max(from, *a.failure_at), held_end = std::min(end, a.recovered_at.value_or(inf));
      if (held_end > held_from) a.held_after_failure.push_back({p.name, p.gpus, held_from, held_end});
    }
    const double idle_until = ready_mark ? std::min(end, *ready_mark) : end;
    if (idle_until > from) a.idle_before_ready_gpu_s += p.gpus * (idle_until - from);
  }
  for (const auto* list : {&a.waiting, &a.held_after_failure})
    for (const auto& w : *list) a.stranded_gpu_s += w.gpu_s();
}

// scheduling: the attempt's start -> the whole gang bound; image pull and start: -> every container started
// (with the gang JSON: the rank processes exist) or, without it, -> all Ready; rendezvous: -> the first step.
void derive_stages(const JobTimeline& job, Attempt& a, double until, bool have_gang) {
  auto add = [&](const char* name, double from, Time to) {
    a.stages.push_back({name, from, to ? *to : std::max(from, until), static_cast<bool>(to)});
  };
  Time started_all;
  if (have_gang) {
    int n = 0;
    for (std::size_t i : a.pods) {
      const PodTimeline& p = job.pods[i];
      if (!p.rank || !p.pod.started) continue;
      ++n;
      started_all = started_all ? std::max(*started_all, *p.pod.started) : *p.pod.started;
    }
    if (n < job.pod_count) started_all.reset();
  }
  add("scheduling", a.start, a.full_gang_at);
  if (a.full_gang_at) add("image pull and start", *a.full_gang_at, have_gang ? started_all : a.all_ready_at);
  if (have_gang && started_all) add("rendezvous", *started_all, a.first_step_at);
  const Stage* longest = nullptr;
  for (const auto& s : a.stages)
    if (!longest || s.until - s.from > longest->until - longest->from) longest = &s;
  if (longest) a.delay_stage = longest->name;
}

void sum_into_job(JobTimeline& job, double until) {
  const Attempt& first = job.attempts.front();
  job.min_gang_at = first.min_gang_at, job.full_gang_at = first.full_gang_at, job.all_ready_at = first.all_ready_at;
  job.first_step_at = first.first_step_at, job.failure_at = first.failure_at, job.cleanup_done_at = first.cleanup_done_at;
  job.failure_reason = first.failure_reason, job.stages = first.stages, job.delay_stage = first.delay_stage;
  for (const auto& a : job.attempts) {
    job.waiting.insert(job.waiting.end(), a.waiting.begin(), a.waiting.end());
    job.held_after_failure.insert(job.held_after_failure.end(), a.held_after_failure.begin(), a.held_after_failure.end());
    job.stranded_gpu_s += a.stranded_gpu_s;
    job.idle_before_ready_gpu_s += a.idle_before_ready_gpu_s;
    if (a.pending)
      job.warnings.push_back(fmt::format("{}/{}: attempt {} still pending at the last snapshot, {:.0f} s after it began ({} of {} pods "
                                         "bound{})", job.ns, job.group, a.number, until - a.start, a.bound_at_end, job.pod_count,
                                         a.min_gang_at ? ", the minimum reached" : ""));
  }
}

// The attempt's pods still running (not released, deleted or failed) at `t`, when the next attempt's first pod appeared.
std::vector<std::size_t> survivors(const JobTimeline& job, const Attempt& a, double t) {
  std::vector<std::size_t> out;
  for (std::size_t i : a.pods) {
    const PodRecord& p = job.pods[i].pod;
    const Time r = released(p);
    if ((r && *r <= t) || (p.deleted && *p.deleted <= t) || (p.failed && *p.failed <= t)) continue;
    out.push_back(i);
  }
  return out;
}

}  // namespace

Time released(const PodRecord& p) {
  if (p.phase == "Failed" || p.phase == "Succeeded") {  // terminated: the kubelet frees its devices
    double end = p.failed ? *p.failed : p.last_seen;
    return p.gone ? std::min(end, *p.gone) : end;
  }
  if (p.gone) return p.gone;
  if (p.deleted) return p.deleted;
  return std::nullopt;
}

Time first_time_with(const std::vector<const PodRecord*>& pods, int need, Time PodRecord::*mark) {
  if (need <= 0) return std::nullopt;
  std::vector<std::pair<double, int>> steps;  // (time, +1 reached / -1 released); a release sorts first at a tie
  for (const PodRecord* p : pods) {
    if (!(p->*mark)) continue;
    const double at = *(p->*mark);
    Time r = released(*p);
    if (r && *r <= at) continue;
    steps.emplace_back(at, 1);
    if (r) steps.emplace_back(*r, -1);
  }
  std::sort(steps.begin(), steps.end());
  int n = 0;
  for (std::size_t i = 0; i < steps.size(); ++i) {
    n += steps[i].second;
    if ((i + 1 == steps.size() || steps[i + 1].first != steps[i].first) && n >= need) return steps[i].first;
  }
  return std::nullopt;
}

void derive_attempts(JobTimeline& job, double until, bool have_gang) {
  if (job.pods.empty() || !job.first_created) return;
  std::vector<std::size_t> order(job.pods.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return *job.pods[a].pod.created < *job.pods[b].pod.created; });
  const EventIndex events(job);
  double start = *job.first_created, after = -std::numeric_limits<double>::infinity();
  std::vector<std::size_t> carried;
  for (std::size_t next = 0; next < order.size();) {
    Attempt a = take_attempt(job, events, order, next, start, after, carried);
    const Time failure = a.failure_at;
    carried.clear();
    if (failure && next < order.size()) carried = a.carried_on = survivors(job, a, *job.pods[order[next]].pod.created);
    if (!a.pods.empty()) {
      a.number = static_cast<int>(job.attempts.size()) + 1;
      derive_cleanup(job, a, until);
      derive_allocations(job, a, until);
      derive_stages(job, a, until, have_gang);
      a.pending = !a.full_gang_at && !a.failure_at;
      job.attempts.push_back(std::move(a));
    }
    if (!failure) break;  // every pod taken
    start = after = *failure;
  }
  if (!job.attempts.empty()) sum_into_job(job, until);
}

}  // namespace placebench::harness::admission::detail
