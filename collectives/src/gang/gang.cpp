// The gang schedule, timelines and summary (see gang.h). Every wait here is a poll against a deadline
// on the common clock: the rendezvous until E_a + grace, each step until joined + D, the reporter's
// collection until report_by_, the drain a few seconds after that.
#include "placebench/collectives/gang.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <thread>

#include "placebench/collectives/clock_sync.h"
#include "../pace_timing.h"
#include "../test_hooks.h"
#include "transport.h"

namespace placebench::collectives {

namespace {

constexpr double kNone = std::numeric_limits<double>::quiet_NaN();
constexpr double kPollSleepS = 200e-6;
constexpr double kCollectPollS = 1e-3;  // the reporter's collection and the drain
constexpr double kDrainS = 4.0;        // after report_by_ + the missing ranks' wake-up
constexpr double kMissingWakeS = 0.5;  // missing ranks wake this long after report_by_

bool contains(const std::vector<int>& v, int x) { return std::find(v.begin(), v.end(), x) != v.end(); }

// Timeline wire format: rank, start, then per attempt (ready, joined, first_step, released), then per
// step of the joined attempt (start, arrive, depart); NaN = none.
constexpr std::size_t kFieldsPerAttempt = 4, kFieldsPerStep = 3;

std::size_t wire_size(int attempts, int steps) {
  return 2 + kFieldsPerAttempt * static_cast<std::size_t>(attempts) + kFieldsPerStep * static_cast<std::size_t>(steps);
}

std::vector<double> encode(const GangRank& r, int attempts, int steps) {
  std::vector<double> v(wire_size(attempts, steps), kNone);
  v[0] = r.rank;
  v[1] = r.process_start_s;
  for (const GangAttempt& a : r.attempts) {
    double* p = &v[2 + kFieldsPerAttempt * static_cast<std::size_t>(a.attempt)];
    p[0] = a.ready_s.value_or(kNone);
    p[1] = a.joined_s.value_or(kNone);
    p[2] = a.first_step_s.value_or(kNone);
    p[3] = a.released_s.value_or(kNone);
  }
  double* q = &v[wire_size(attempts, 0)];
  for (std::size_t i = 0; i < r.steps.size() && i < static_cast<std::size_t>(steps); ++i, q += kFieldsPerStep) {
    q[0] = r.steps[i].start_s;
    q[1] = r.steps[i].arrive_s;
    q[2] = r.steps[i].depart_s;
  }
  return v;
}

std::optional<double> opt(double x) { return std::isnan(x) ? std::nullopt : std::optional<double>(x); }

GangRank decode(const std::vector<double>& v, int attempts, int steps) {
  GangRank r;
  r.rank = static_cast<int>(v[0]);
  r.process_start_s = v[1];
  for (int a = 0; a < attempts; ++a) {
    const double* p = &v[2 + kFieldsPerAttempt * static_cast<std::size_t>(a)];
    if (std::isnan(p[0])) continue;
    r.attempts.push_back({a, opt(p[0]), opt(p[1]), opt(p[2]), opt(p[3])});
  }
  for (const double* q = &v[wire_size(attempts, 0)]; q < v.data() + wire_size(attempts, steps); q += kFieldsPerStep)
    if (!std::isnan(q[2])) r.steps.push_back({q[0], q[1], q[2]});
  return r;
}

// Complete: every rank reported, and all joined and stepped in the same attempt (the first such).
void find_completed_attempt(GangResult& res, int retries) {
  for (int a = 0; a <= retries && !res.completed_attempt; ++a) {
    bool all = true;
    double ready = 0, first = 0;
    for (const GangRank& g : res.ranks) {
      auto it = std::find_if(g.attempts.begin(), g.attempts.end(), [&](const GangAttempt& x) { return x.attempt == a; });
      if (it == g.attempts.end() || !it->joined_s || !it->first_step_s) {
        all = false;
        break;
      }
      ready = std::max(ready, *it->joined_s);
      first = std::max(first, *it->first_step_s);
    }
    if (all && !res.ranks.empty()) {
      res.completed_attempt = a;
      res.group_ready_s = ready;
      res.time_to_first_step_s = first;
      res.outcome = "complete";
    }
  }
}

// stranded = sum of G x (group ready, or release for attempts that never formed, - own ready);
// cleanup = max over failed attempts of (release - E_a); retries = the last attempt any rank used.
void add_stranded_and_cleanup(GangResult& res, const GangConfig& config) {
  for (const GangRank& g : res.ranks)
    for (const GangAttempt& a : g.attempts) {
      res.retries = std::max(res.retries, a.attempt);
      if (!a.ready_s) continue;
      bool in_group = res.completed_attempt && a.attempt == *res.completed_attempt;
      double until = in_group ? *res.group_ready_s : a.released_s.value_or(*a.ready_s);
      res.stranded_gpu_s += config.gpus_per_rank * std::max(0.0, until - *a.ready_s);
      if (!in_group && a.released_s) {
        double deadline = res.schedule_start_s + a.attempt * (config.deadline_s + config.backoff_s) + config.deadline_s;
        res.cleanup_s = std::max(res.cleanup_s, *a.released_s - deadline);
      }
    }
}

}  // namespace

int gang_reporter(const GangConfig& config, int nranks) {
  for (int r = 0; r < nranks; ++r)
    if (!contains(config.missing_ranks, r)) return r;
  return 0;
}

Gang::Gang(MpiSession& session, const GangConfig& config, double process_start_local_s)
    : session_(session), config_(config) {
  detail::write_test_pid_file(session.rank());
  ClockSync sync = sync_clock_to_rank0(session);
  offset_ = sync.offset_s;
  rtt_ = sync.rtt_s;
  process_start_global_ = process_start_local_s + offset_;
  int reporter = gang_reporter(config, session.size());
  starts_ = session.gather_doubles({process_start_global_, offset_, rtt_}, reporter);
  hosts_ = session.gather_strings(session.host(), reporter);
  transport_ = config.backend == Backend::kMpi ? detail::make_mpi_gang_transport(session, config)
                                               : detail::make_nccl_gang_transport(session, config);
  // The schedule starts shortly after setup, the same instant for every rank.
  t0_ = session.broadcast(steady_now_s() + offset_ + 0.2, 0);
  double schedule_end = t0_ + config.retries * (config.deadline_s + config.backoff_s) + config.deadline_s + config.grace_s;
  // A late rank is waited for until it arrives, but never past the schedule: one that would arrive after
  // the last window is as good as missing (it stops waiting when the last window closes).
  double late_end = config.late_ranks.empty() ? 0 : std::min(t0_ + config.late_delay_s + config.grace_s, schedule_end);
  report_by_ = std::max(schedule_end, late_end) + 0.5;
}

Gang::~Gang() = default;

double Gang::now_global() const { return steady_now_s() + offset_; }

void Gang::sleep_until_global(double t) const {
  double left = t - now_global();
  if (left > 0) std::this_thread::sleep_for(std::chrono::duration<double>(left));
}

// The steps of a joined attempt, each recorded on the common clock; false when one missed its deadline.
template <class PollUntil>
bool Gang::run_steps(GangRank& me, GangAttempt& at, PollUntil& poll_until) {
  double step_deadline = *at.joined_s + config_.deadline_s, step_start = *at.joined_s;
  double spin_s = config_.work_s + (contains(config_.slow_ranks, me.rank) ? config_.slow_s : 0);
  auto work_units = static_cast<std::uint64_t>(std::llround(config_.work_s * config_.work_units_per_s));
  me.steps.reserve(static_cast<std::size_t>(config_.steps));  // no allocation between a step's marks
  for (int s = 0; s < config_.steps; ++s) {
    if (work_units > 0)
      detail::run_work_units(work_units);  // counted work: a capped rank's takes longer
    else if (spin_s > 0)
      detail::spin_for_s(spin_s);  // its own work before the step (a straggler's: more)
    double arrive = now_global();
    transport_->begin_step();
    if (!poll_until(step_deadline, [&] { return transport_->poll_step(); })) return false;
    double depart = now_global();
    if (s == 0) at.first_step_s = depart;
    me.steps.push_back({step_start, arrive, depart});
    step_start = depart;
  }
  return true;
}

GangRank Gang::run_attempts() {
  GangRank me;
  me.rank = session_.rank();
  me.process_start_s = process_start_global_;
  if (contains(config_.missing_ranks, me.rank)) return me;
  bool late = contains(config_.late_ranks, me.rank);
  double ready_at = t0_ + (late ? config_.late_delay_s : 0);
  auto poll_until = [&](double deadline, auto&& done) {
    while (!done()) {
      if (now_global() >= deadline) return false;
      std::this_thread::sleep_for(std::chrono::duration<double>(kPollSleepS));
    }
    return true;
  };
  for (int a = 0; a <= config_.retries; ++a) {
    double start = t0_ + a * (config_.deadline_s + config_.backoff_s), end = start + config_.deadline_s;
    sleep_until_global(std::min(std::max(ready_at, start), end));
    if (now_global() >= end || ready_at >= end) continue;  // this window closed before the rank could reach it
    GangAttempt at;
    at.attempt = a;
    transport_->acquire();
    at.ready_s = now_global();
    transport_->begin_join(a);
    bool joined = poll_until(end + config_.grace_s, [&] { return transport_->poll_join(); });
    if (joined) {
      at.joined_s = now_global();
      joined = run_steps(me, at, poll_until);
    }
    if (!joined) {
      transport_->abandon();
      me.steps.clear();
    }
    transport_->release();
    at.released_s = now_global();
    me.attempts.push_back(at);
    if (joined) break;
  }
  return me;
}

GangResult Gang::run() {
  GangRank mine = run_attempts();
  return collect(mine);
}

GangResult Gang::collect(const GangRank& mine) {
  GangResult res;
  res.reporter = gang_reporter(config_, session_.size());
  res.outcome = "failed_deadline";
  res.ranks = exchange_timelines(mine);
  if (session_.rank() != res.reporter) return res;
  double zero = job_start_global();
  identify_and_rebase(res.ranks, zero);
  res.schedule_start_s = t0_ - zero;
  res.bound_s = (config_.retries + 1) * config_.deadline_s + config_.retries * config_.backoff_s;
  find_completed_attempt(res, config_.retries);
  add_stranded_and_cleanup(res, config_);
  name_step_pace(res);
  return res;
}

std::vector<GangRank> Gang::exchange_timelines(const GangRank& mine) {
  int n = session_.size(), attempts = config_.retries + 1;
  int reporter = gang_reporter(config_, n);
  std::vector<double> wire = encode(mine, attempts, config_.steps);
  if (session_.rank() != reporter) {
    if (!contains(config_.missing_ranks, session_.rank())) transport_->send_timeline(wire, reporter);
    return {mine};
  }
  transport_->receive_timelines(n, reporter, wire);
  while (!transport_->poll_timelines() && now_global() < report_by_)
    std::this_thread::sleep_for(std::chrono::duration<double>(kCollectPollS));
  std::vector<std::optional<std::vector<double>>> timelines = transport_->take_timelines();
  std::vector<GangRank> ranks;
  for (int r = 0; r < n; ++r) {
    const auto& timeline = timelines[static_cast<std::size_t>(r)];
    GangRank g;
    if (timeline) {
      g = decode(*timeline, attempts, config_.steps);
      g.reported = true;
    } else {
      g.rank = r;  // never reported: recorded as silent
    }
    ranks.push_back(g);
  }
  return ranks;
}

// Who set the pace per step: only a complete gang, every rank with every step (pace.h).
void Gang::name_step_pace(GangResult& res) const {
  if (!res.completed_attempt) return;
  std::vector<double> rtt;
  for (const GangRank& g : res.ranks) {
    if (g.steps.size() != static_cast<std::size_t>(config_.steps)) return;
    rtt.push_back(g.clock_rtt_s);
  }
  PaceTimeline t(static_cast<std::size_t>(config_.steps));
  for (std::size_t s = 0; s < t.size(); ++s)
    for (const GangRank& g : res.ranks) t[s].push_back(g.steps[s]);
  res.step_pace = name_trial_pace(t, clock_uncertainty_s(rtt));
}

double Gang::job_start_global() const {
  double zero = std::numeric_limits<double>::infinity();
  for (int r = 0; r < session_.size(); ++r) zero = std::min(zero, starts_[3 * static_cast<std::size_t>(r)]);
  return zero;
}

void Gang::identify_and_rebase(std::vector<GangRank>& ranks, double zero) const {
  auto rebase = [&](std::optional<double>& t) {
    if (t) *t -= zero;
  };
  for (GangRank& g : ranks) {
    auto i = static_cast<std::size_t>(g.rank);
    g.process_start_s = starts_[3 * i] - zero;
    g.clock_offset_s = starts_[3 * i + 1];
    g.clock_rtt_s = starts_[3 * i + 2];
    g.host = hosts_[i];
    g.late = contains(config_.late_ranks, g.rank);
    g.missing = contains(config_.missing_ranks, g.rank);
    for (GangAttempt& a : g.attempts) {
      rebase(a.ready_s);
      rebase(a.joined_s);
      rebase(a.first_step_s);
      rebase(a.released_s);
    }
    for (RankBlockTimes& t : g.steps) {
      t.start_s -= zero;
      t.arrive_s -= zero;
      t.depart_s -= zero;
    }
  }
}

bool Gang::drain() {
  bool missing = contains(config_.missing_ranks, session_.rank());
  if (missing) sleep_until_global(report_by_ + kMissingWakeS);
  transport_->post_catch_up();
  double deadline = report_by_ + kMissingWakeS + kDrainS;
  while (now_global() < deadline) {
    bool backend_done = transport_->poll_drained();
    bool timeline_sent = transport_->poll_timeline_sent();
    if (backend_done && timeline_sent) return true;
    std::this_thread::sleep_for(std::chrono::duration<double>(kCollectPollS));
  }
  return false;
}

}  // namespace placebench::collectives
