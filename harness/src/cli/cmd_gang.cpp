// `placebench gang`: what a partly admitted gang costs. Every rank of an mpirun job joins a rendezvous
// with a deadline (late and missing ranks simulated), retries with backoff, and the reporter (rank 0,
// or the lowest rank not missing) prints the timelines and summary and writes --out before anyone exits.
#include <unistd.h>

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <iostream>
#include <memory>

#include "placebench/collectives/clock_sync.h"
#include "placebench/collectives/gang.h"
#include "placebench/harness/cli/cli.h"
#include "placebench/harness/cli/json_output.h"
#include "placebench/harness/cli/options.h"
#include "placebench/harness/collectives_driver/backend_choice.h"
#include "placebench/harness/collectives_driver/gang_report.h"
#include "placebench/harness/collectives_driver/mpi_command.h"
#include "placebench/harness/collectives_driver/pace_report.h"
#include "placebench/harness/collectives_driver/rank_placement.h"
#include "placebench/harness/errors.h"
#include "placebench/harness/units.h"
#include "placebench/hostpipe/cpu_cap.h"
#include "placebench/kernels/device_runtime.h"

namespace placebench::harness {
namespace {

namespace coll = placebench::collectives;

// No attempt waits for more than an hour and no pause between attempts exceeds 10 minutes. A late rank is
// waited for only until the schedule ends, so --late-delay is bounded only to stay finite (8760h).
constexpr double kMaxDeadlineS = 3600, kMaxBackoffS = 600;

struct GangOptions {
  PlanRequest placement;
  std::string backend = "auto", late, late_delay = "0s", missing, deadline = "10s", backoff = "1s", step_bytes = "1M",
              arm = "local", stall_timeout, slow_ranks, slow_step, slow_cap, step_work;
  int retries = 0, gpus_per_rank = 1, steps = 10;
  bool allow_single_rank = false;
  ReportOutput output;
};

// The cap's period: a tenth of the step's work (1-100 ms), as the kernel will use it (raised until the
// quota is its least, 1 ms). The cap is an average over a period, so a period longer than the work
// would let the work run uncapped while the period's quota lasts.
std::uint64_t cap_period_us(const coll::GangConfig& c) {
  return hostpipe::cpu_cap_period_us(c.slow_cap, static_cast<std::uint64_t>(std::llround(std::clamp(c.work_s / 10, 1e-3, 0.1) * 1e6)));
}

// --slow-cap slows the ranks' own work: there must be some, spanning at least 4 of the cap's periods
// (less fits in one period's quota and runs uncapped), and no missing rank (the caps are gathered after
// the run, when a missing rank would wait for the reporter for the whole schedule).
void check_cap_fits(const coll::GangConfig& c) {
  if (c.work_s == 0)
    throw InputError("--slow-cap needs --step-work: a cap slows a rank's own work, and without it there is none (e.g. --step-work 20ms)");
  double period_s = static_cast<double>(cap_period_us(c)) * 1e-6;
  if (c.work_s < 4 * period_s)
    throw InputError(fmt::format("--step-work {:g}ms is too short for --slow-cap {:g}%: the kernel caps over periods of {:g} ms "
                                 "here, and work shorter than 4 of them can run uncapped; give at least --step-work {:g}ms",
                                 c.work_s * 1e3, c.slow_cap * 100, period_s * 1e3, 4 * period_s * 1e3));
  if (!c.missing_ranks.empty())
    throw InputError("--slow-cap and --missing: run stragglers and missing ranks as separate gangs (a missing rank "
                     "would wait for the caps' report for the whole schedule)");
}

coll::GangConfig parse_config(const GangOptions& opt) {
  coll::GangConfig c;
  c.late_ranks = parse_rank_list(opt.late, "--late");
  c.late_delay_s = parse_duration_s(opt.late_delay, "--late-delay", kSecondsPerYear);
  c.missing_ranks = parse_rank_list(opt.missing, "--missing");
  c.slow_ranks = parse_rank_list(opt.slow_ranks, "--slow-ranks");
  if (!opt.slow_step.empty()) c.slow_s = parse_duration_s(opt.slow_step, "--slow-step", 1.0);
  if (!opt.step_work.empty()) c.work_s = parse_duration_s(opt.step_work, "--step-work", 1.0);
  if (!opt.slow_cap.empty()) c.slow_cap = parse_cpu_share(opt.slow_cap, "--slow-cap");
  if (c.slow_s > 0 && c.slow_cap > 0)
    throw InputError("--slow-step and --slow-cap are two ways to slow the ranks; give one");
  if (c.slow_ranks.empty() != (c.slow_s == 0 && c.slow_cap == 0))
    throw InputError("--slow-ranks goes with --slow-step or --slow-cap: the ranks to slow and their extra work per step "
                     "(e.g. 200us) or their share of a CPU (e.g. 50%)");
  if (c.slow_cap > 0) check_cap_fits(c);
  c.deadline_s = parse_duration_s(opt.deadline, "--deadline", kMaxDeadlineS);
  c.backoff_s = parse_duration_s(opt.backoff, "--backoff", kMaxBackoffS);
  c.retries = opt.retries;
  if (c.retries > coll::kMaxGangRetries)
    throw InputError("--retries " + std::to_string(c.retries) + ": at most " + std::to_string(coll::kMaxGangRetries) +
                     " (each attempt holds an MPI communicator for the whole job); use a longer --deadline or --backoff");
  c.gpus_per_rank = opt.gpus_per_rank;
  c.steps = opt.steps;
  c.step_bytes = parse_size(opt.step_bytes, "--step-bytes");
  if (c.deadline_s <= 0) throw InputError("--deadline must be positive (e.g. 10s)");
  if (c.late_delay_s < 0 || c.backoff_s < 0) throw InputError("--late-delay and --backoff cannot be negative");
  if (!c.late_ranks.empty() && c.late_delay_s == 0) throw InputError("--late needs --late-delay TIME (e.g. 2s)");
  for (int r : c.late_ranks)
    for (int m : c.missing_ranks)
      if (r == m) throw InputError("--late and --missing both name rank " + std::to_string(r) + "; a rank is one or the other");
  return c;
}

bool is_missing(const coll::GangConfig& cfg, int rank) {
  return std::find(cfg.missing_ranks.begin(), cfg.missing_ranks.end(), rank) != cfg.missing_ranks.end();
}

// The checks that need the job's size.
void check_ranks_exist(const coll::GangConfig& cfg, int nranks) {
  for (const auto* list : {&cfg.late_ranks, &cfg.missing_ranks, &cfg.slow_ranks})
    for (int r : *list)
      if (r >= nranks)
        throw InputError(std::string(list == &cfg.late_ranks ? "--late" : list == &cfg.slow_ranks ? "--slow-ranks" : "--missing") +
                         ": rank " + std::to_string(r) +
                         " does not exist; this job has ranks 0.." + std::to_string(nranks - 1));
  if (static_cast<int>(cfg.missing_ranks.size()) >= nranks) throw InputError("--missing names every rank; leave one to report");
}

// A missing rank never touches a device: it takes no GPU (so one GPU can host a survivor and it).
PlanRequest rank_request(const Inventory& inv, const PlanRequest& requested, bool missing) {
  PlanRequest request = requested;
  if (missing && !request.device.device_numa) {
    request.device.gpu.reset();
    request.device.device_numa = inv.numa_nodes.empty() ? 0 : static_cast<int>(inv.numa_nodes.front().os_index);
  }
  return request;
}

// This rank once set up: where it runs, why its backend, and (the reporter) where --out goes.
struct RankSetup {
  RankIdentity who;
  std::unique_ptr<RankPlacement> placement;
  std::string backend_reason;
  OutputTarget out;
};

// Everything that can still be bad input once MPI runs (agreed on by all ranks): the job's size, --out
// on the reporter, the rank's device and backend; then the rank places itself.
void set_up_rank(coll::MpiSession& session, const GangOptions& opt, Arm arm, coll::GangConfig& cfg, RankSetup& rank) {
  check_not_single_rank(session.size(), "gang", opt.allow_single_rank);
  check_ranks_exist(cfg, session.size());
  // --out is written only after the whole gang has run: checked now, on the rank that will write it.
  if (session.rank() == coll::gang_reporter(cfg, session.size())) rank.out = check_report_out(opt.output);
  Inventory inv = build_inventory(Topology::load_live());
  kernels::DeviceRuntime rt = kernels::query_device_runtime();
  cross_check_live(inv, rt);
  bool missing = is_missing(cfg, rank.who.rank);
  PlanRequest request = rank_request(inv, opt.placement, missing);
  RankDevice dev = rank_device(inv, request.device, rank.who, cfg.gpus_per_rank);
  BackendChoice choice = choose_gang_backend(opt.backend, nccl_support(dev, rt), missing);
  cfg.backend = choice.backend;
  rank.backend_reason = choice.reason;
  if (dev.device.gpu) cfg.gpu = *dev.device.gpu;
  rank.placement = std::make_unique<RankPlacement>(place_rank(inv, request, arm, rank.who, cfg.gpus_per_rank, cfg.step_bytes));
}

// --slow-cap, before the gang is set up: every rank measures its rate of counted work, and the job
// takes the fastest (the same count of units is then every rank's work).
void measure_work_rate(coll::MpiSession& session, coll::GangConfig& cfg) {
  cfg.work_units_per_s = session.max(coll::measure_work_units_per_s());
}

// --slow-cap, once the gang is set up (its clock sync and setup run uncapped): the slowed ranks cap
// themselves (cgroup v2 cpu.max). A cap this node cannot apply is bad input (exit 2, agreed by all
// ranks), never a silent uncapped run.
std::unique_ptr<hostpipe::CpuCap> cap_if_slowed(const coll::MpiSession& session, const coll::GangConfig& cfg) {
  if (std::find(cfg.slow_ranks.begin(), cfg.slow_ranks.end(), session.rank()) == cfg.slow_ranks.end()) return nullptr;
  try {
    return hostpipe::CpuCap::apply(cfg.slow_cap, cap_period_us(cfg));
  } catch (const hostpipe::CpuCapError& e) {
    throw InputError(std::string("--slow-cap: ") + e.what());
  }
}

// A rank's CPU cap (what was written, and cpu.stat after the run), "" for a rank without one.
std::string cap_to_json(const hostpipe::CpuCap* cap) {
  if (!cap) return "";
  hostpipe::CpuCapStats st = cap->stats();
  return nlohmann::json{{"cgroup", cap->cgroup_dir()}, {"cpu_max", cap->cpu_max()}, {"periods", st.periods},
                        {"throttled_periods", st.throttled}, {"throttled_us", st.throttled_us}, {"usage_us", st.usage_us}}
      .dump();
}

// The reporter: each capped rank's cap into its placement record, as `cpu_cap`.
void add_caps(std::vector<std::string>& placements, const std::vector<std::string>& caps) {
  for (std::size_t r = 0; r < caps.size() && r < placements.size(); ++r) {
    if (caps[r].empty()) continue;
    nlohmann::json j = nlohmann::json::parse(placements[r]);
    j["cpu_cap"] = nlohmann::json::parse(caps[r]);
    placements[r] = j.dump();
  }
}

// The reporter prints the result and writes --out, before any rank exits.
void report(const GangOptions& opt, const RankSetup& rank, const coll::GangConfig& cfg, const coll::GangResult& result,
            Arm arm, const std::vector<std::string>& placements) {
  GangReport report{cfg, result, rank.backend_reason, arm_name(arm), {}};
  for (const auto& p : placements) report.placements.push_back(nlohmann::json::parse(p));
  emit_report(ReportTargets::with_out(rank.out, opt.output.json),
              {[&] { return json_text(gang_to_json(report)); }, [&] { return render_gang_table(report); }});
}

// 0 when this rank stepped in some attempt (the reporter: when the whole gang completed), else 1.
int rank_status(const coll::MpiSession& session, const coll::GangResult& result) {
  if (session.rank() == result.reporter) return result.outcome == "complete" ? kExitOk : kExitFailed;
  bool stepped = false;
  for (const auto& g : result.ranks)
    if (g.rank == session.rank())
      for (const auto& a : g.attempts) stepped = stepped || a.first_step_s.has_value();
  return stepped ? kExitOk : kExitFailed;
}

// Lets every outstanding request complete, then all ranks agree on the worst status. A rank whose
// requests never drained ends the job instead of waiting in MPI_Finalize (results are written).
int drain_and_agree(coll::MpiSession& session, coll::Gang& gang, int mine, int reporter) {
  if (!gang.drain()) {
    if (session.rank() == reporter) std::cerr << "placebench gang: outstanding requests did not drain; aborting the job\n";
    std::cerr.flush();
    session.abort(mine == kExitOk ? kExitFailed : mine);
  }
  return session.agree_max(mine);
}

int run_gang_command(const GangOptions& opt) {
  double started = coll::process_start_steady_s();
  coll::GangConfig cfg;
  Arm arm = Arm::kLocal;
  double stall_s = 0;
  int status = check_before_mpi("gang", opt.stall_timeout, [&] {
    cfg = parse_config(opt);
    arm = parse_arm_list(opt.arm, "--arm").front();
  }, stall_s);
  if (status != 0) return status;

  coll::MpiSession session(stall_s);
  RankSetup rank{rank_identity(session), nullptr, "", {}};
  status = run_setup_agreed(session, [&] { set_up_rank(session, opt, arm, cfg, rank); });
  if (status != 0) return status;
  cfg.backend = agree_on_backend(session, cfg.backend);  // the reason stays the rank's own, as it always has

  if (cfg.slow_cap > 0) measure_work_rate(session, cfg);

  int reporter = coll::gang_reporter(cfg, session.size());
  std::unique_ptr<coll::Gang> gang;
  std::unique_ptr<hostpipe::CpuCap> cap;
  coll::GangResult result;
  try {
    std::vector<std::string> placements = session.gather_strings(rank_to_json(rank.who, *rank.placement).dump(), reporter);
    gang = std::make_unique<coll::Gang>(session, cfg, started);
    if (cfg.slow_cap > 0) {
      status = run_setup_agreed(session, [&] { cap = cap_if_slowed(session, cfg); });
      if (status != 0) return status;
    }
    result = gang->run();
    if (cfg.slow_cap > 0) add_caps(placements, session.gather_strings(cap_to_json(cap.get()), reporter));
    if (session.rank() == reporter) report(opt, rank, cfg, result, arm, placements);
  } catch (const std::exception& e) {
    abort_job(session, e.what());
  }
  return drain_and_agree(session, *gang, rank_status(session, result), reporter);
}

}  // namespace

void add_gang_command(CLI::App& app, CommandAction& action) {
  auto opt = std::make_shared<GangOptions>();
  CLI::App* cmd = app.add_subcommand("gang", "Partial-gang cost under mpirun: late and missing ranks, deadlines, retries");
  cmd->preparse_callback([](std::size_t) { quiet_stderr_unless_rank0(); });
  cmd->add_option("--backend", opt->backend, "nccl (communicator init and allreduce on GPUs), mpi (barrier and allreduce), or auto")
      ->check(CLI::IsMember({"auto", "mpi", "nccl"}))
      ->type_name("auto|mpi|nccl")
      ->default_val("auto");
  cmd->add_option("--late", opt->late, "Ranks that become ready only after --late-delay")->type_name("RANKS");
  cmd->add_option("--late-delay", opt->late_delay, "How late they are (500ms, 2s; at most 8760h; waited for only until the schedule ends)")->type_name("TIME")->default_val("0s");
  cmd->add_option("--missing", opt->missing, "Ranks that never join (they wake after the schedule so the job can end)")
      ->type_name("RANKS");
  cmd->add_option("--deadline", opt->deadline, "How long each attempt waits for the whole gang (at most 1h)")->type_name("TIME")->default_val("10s");
  cmd->add_option("--retries", opt->retries, "Attempts after the first (at most 1000)")
      ->type_name("K")
      ->transform(whole_number(0, 1'000'000'000))
      ->default_val(0);
  cmd->add_option("--backoff", opt->backoff, "Pause between attempts (at most 10m)")->type_name("TIME")->default_val("1s");
  cmd->add_option("--gpus-per-rank", opt->gpus_per_rank, "GPUs each rank holds (counts in stranded GPU-seconds)")
      ->type_name("G")->transform(whole_number(1, 1024))->default_val(1);
  cmd->add_option("--steps", opt->steps, "Useful steps (allreduces) once the gang is complete")
      ->type_name("S")->transform(whole_number(1, 1'000'000))->default_val(10);
  cmd->add_option("--step-bytes", opt->step_bytes, "Bytes each step allreduces")->type_name("SIZE")->default_val("1M");
  cmd->add_option("--step-work", opt->step_work, "Every rank's own work before each step: a spin (counted work under --slow-cap); 2ms, at most 1s")
      ->type_name("TIME");
  cmd->add_option("--slow-ranks", opt->slow_ranks, "Stragglers on purpose: these ranks spin --slow-step more before each step, or run capped")
      ->type_name("RANKS");
  cmd->add_option("--slow-step", opt->slow_step, "Their extra work per step (200us, 1ms; at most 1s)")->type_name("TIME");
  cmd->add_option("--slow-cap", opt->slow_cap,
                  "Or cap their CPU share (cgroup v2 cpu.max, e.g. 50%); every rank's --step-work is then counted work")
      ->type_name("SHARE");
  cmd->add_option("--arm", opt->arm, "The arm every rank applies: " + arm_names_list())->type_name("A")->default_val("local");
  add_device_options(cmd, opt->placement.device);
  add_placement_options(cmd, opt->placement);
  cmd->add_option("--out", opt->output.out, "Also write the JSON result to this file (before any rank exits)")->type_name("FILE");
  add_force_flag(*cmd, opt->output.force);
  cmd->add_flag("--json", opt->output.json, "Print the JSON result instead of the summary");
  cmd->add_option("--stall-timeout", opt->stall_timeout,
                  "Abort the job when a wait outside the schedule's deadlines makes no progress this long (default "
                  "$PLACEBENCH_STALL_TIMEOUT, else 60s; at most 1h)")
      ->type_name("TIME");
  cmd->add_flag("--allow-single-rank", opt->allow_single_rank, "Run even as a single rank (no mpirun): the gang is that rank alone");
  cmd->callback([opt, &action] { action = [opt] { return run_gang_command(*opt); }; });
}

}  // namespace placebench::harness
