// The gang rendezvous: N ranks must all join before useful work starts. Attempts run in windows of one
// schedule on one clock (rank 0's; see clock_sync.h): attempt a is open from S_a = T0 + a(D + B) to
// E_a = S_a + D (D = deadline, B = backoff). A rank becomes ready (acquires its resources) at the
// start of the first window it can reach, joins that attempt, and polls the rendezvous until E_a plus
// a short grace; on timeout it abandons the attempt (NCCL: ncclCommAbort), frees its resources and
// retries in the next window. Nothing waits without a deadline. `late` ranks become ready only after
// the delay; `missing` ranks never join (they wake after the schedule only to let the job end cleanly).
#pragma once
#include <cstddef>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "placebench/collectives/collective.h"
#include "placebench/collectives/mpi_session.h"
#include "placebench/collectives/pace.h"

namespace placebench::collectives {

// Each attempt has its own MPI communicator, created at setup and held to the end (a rank that never
// joins must still post on it, see mpi_transport.cpp): --retries is bounded so they cannot run out.
constexpr int kMaxGangRetries = 1000;

struct GangConfig {
  Backend backend = Backend::kMpi;
  std::vector<int> late_ranks;
  double late_delay_s = 0;
  std::vector<int> missing_ranks;
  double deadline_s = 10;
  int retries = 0;
  double backoff_s = 1;
  int gpus_per_rank = 1;
  int steps = 10;
  std::size_t step_bytes = 1 << 20;  // each step is an allreduce of this many bytes (float sum)
  int gpu = -1;                      // NCCL: this rank's first GPU (it holds gpu .. gpu + gpus_per_rank - 1)
  double grace_s = 0.25;             // after E_a, for a rendezvous whose last member arrived before E_a
  std::vector<int> slow_ranks;       // stragglers on purpose: these ranks spin slow_s before each step
  double slow_s = 0;
  double work_s = 0;                 // every rank's own work (a spin) before each step: a step with compute
  // Stragglers by a CPU share cap (the caller caps slow_ranks, hostpipe/cpu_cap.h): then every rank's
  // work is counted, not timed: work_s x work_units_per_s units (measured before any cap), so a capped
  // rank's takes longer. 0: timed work (a spin that ends on the clock).
  double slow_cap = 0;               // the slowed ranks' share of a CPU (0: no cap)
  double work_units_per_s = 0;
};

// Counted work: units of a dependent integer chain (about a microsecond each), the rate this process
// reaches now (the best of three 20 ms samples). Measure it before a cap, as the gang's work is then
// a count of units.
double measure_work_units_per_s();

// Times in seconds since the earliest process start of the job (the zero of every timeline).
struct GangAttempt {
  int attempt = 0;
  std::optional<double> ready_s;       // resources acquired (buffers allocated, device context)
  std::optional<double> joined_s;      // rendezvous complete (communicator initialised)
  std::optional<double> first_step_s;  // first useful step done
  std::optional<double> released_s;    // resources freed
};

struct GangRank {
  int rank = 0;
  std::string host;
  bool late = false, missing = false;
  bool reported = false;               // the reporter received this rank's timeline
  double process_start_s = 0;
  double clock_offset_s = 0, clock_rtt_s = 0;
  std::vector<GangAttempt> attempts;   // only the attempts the rank took part in
  // The steps of the attempt that joined: start (the previous step done, or joined), arrival (after its
  // own work before the step), departure (the step's allreduce complete on this rank).
  std::vector<RankBlockTimes> steps;
};

struct GangResult {
  std::string outcome;                 // "complete" or "failed_deadline"
  int reporter = 0;                    // the rank that holds the full result
  double schedule_start_s = 0;         // T0
  std::optional<int> completed_attempt;
  std::optional<double> group_ready_s;         // all ranks joined (latest joined_s of the completed attempt)
  std::optional<double> time_to_first_step_s;  // latest first_step_s of the completed attempt
  double stranded_gpu_s = 0;           // sum over ranks and attempts of G x (group ready or release - own ready)
  double cleanup_s = 0;                // max over ranks and failed attempts of (release - E_a)
  int retries = 0;                     // attempts after the first that were used
  double bound_s = 0;                  // deadline x (K + 1) + K x backoff (+ late delay beyond the schedule)
  std::vector<GangRank> ranks;
  TrialPace step_pace;                 // who set the pace per step (complete gangs; pace.h)
};

// The rank that reports: rank 0, or the lowest rank not in missing_ranks.
int gang_reporter(const GangConfig& config, int nranks);

namespace detail {
class GangTransport;
}

// One rank's part of the gang. Every rank constructs it (collective: clock sync, communicators, the
// schedule), then calls run(), then — after the reporter has written the results — drain().
class Gang {
 public:
  // process_start_local_s: steady_now_s() when this process started.
  Gang(MpiSession& session, const GangConfig& config, double process_start_local_s);
  ~Gang();
  Gang(const Gang&) = delete;
  Gang& operator=(const Gang&) = delete;

  // The attempts, then the timelines sent to the reporter (which waits for them until the schedule's
  // end plus a margin). The full result on the reporter; others get their own rank only.
  GangResult run();

  // Lets every outstanding request complete so that MPI can finalize: missing ranks wake here, after
  // the reporter's deadline, and post what they never joined. False when that did not happen within a
  // few seconds: the caller must then abort the job (results are already written).
  bool drain();

 private:
  double now_global() const;
  void sleep_until_global(double t) const;
  GangRank run_attempts();
  template <class PollUntil>
  bool run_steps(GangRank& me, GangAttempt& at, PollUntil& poll_until);
  // Timelines to the reporter, then (there) rebased and summarised.
  GangResult collect(const GangRank& mine);
  // The reporter: every rank's timeline, or a silent rank for one that never arrived; others: their own.
  std::vector<GangRank> exchange_timelines(const GangRank& mine);
  double job_start_global() const;  // the earliest process start of the job (the reporter only)
  // Fills host, roles, clock and start from setup; times become seconds since `zero`.
  void identify_and_rebase(std::vector<GangRank>& ranks, double zero) const;
  void name_step_pace(GangResult& res) const;

  MpiSession& session_;
  GangConfig config_;
  double process_start_global_ = 0, offset_ = 0, rtt_ = 0;
  double t0_ = 0;          // schedule start (global clock)
  double report_by_ = 0;   // the reporter stops waiting for timelines then
  std::vector<double> starts_;  // every rank's process start (global), gathered at setup
  std::vector<std::string> hosts_;
  std::unique_ptr<detail::GangTransport> transport_;  // the backend, and the timelines' way to the reporter
};

}  // namespace placebench::collectives
