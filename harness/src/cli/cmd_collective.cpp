// `placebench collective`: collectives (MPI or NCCL) under a placement arm, one rank per device, run
// under mpirun. Options are checked on every rank before MPI starts; rank 0 alone prints.
#include <unistd.h>

#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <iterator>
#include <memory>
#include <string_view>

#include "placebench/collectives/bench.h"
#include "placebench/collectives/nccl_library.h"
#include "placebench/harness/cli/cli.h"
#include "placebench/harness/cli/json_output.h"
#include "placebench/harness/cli/options.h"
#include "placebench/harness/collectives_driver/backend_choice.h"
#include "placebench/harness/collectives_driver/collective_nccl_tests.h"
#include "placebench/harness/collectives_driver/collective_report.h"
#include "placebench/harness/collectives_driver/mpi_command.h"
#include "placebench/harness/collectives_driver/pace_report.h"
#include "placebench/harness/collectives_driver/rank_placement.h"
#include "placebench/harness/errors.h"
#include "placebench/harness/evidence.h"
#include "placebench/harness/units.h"
#include "placebench/hostpipe/process_limits.h"
#include "placebench/kernels/device_runtime.h"

namespace placebench::harness {
namespace {

namespace coll = placebench::collectives;

struct CollectiveOptions {
  PlanRequest placement;
  std::string backend = "auto", ops = "allreduce", types = "float32", redop = "sum", sizes = "8:1M:x4", mode = "both",
              arm = "local", stall_timeout, nccl_tests_json, slow_ranks, slow_doses, call_start = "instant";
  int root = 0, iters = 20, warmup = 5, blocks = 10, slow_rounds = 10;
  bool no_check = false, json = false, allow_single_rank = false, force = false, wide = false;
};

template <class T>
std::vector<T> parse_list(const std::string& text, const std::string& option, const std::vector<T>& all,
                          std::optional<T> (*parse)(const std::string&), const std::string& accepted) {
  if (text == "all") return all;
  std::vector<T> out;
  std::size_t start = 0;
  while (start <= text.size()) {
    std::size_t comma = text.find(',', start);
    std::string item = text.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    auto v = parse(item);
    if (!v) throw InputError(option + ": unknown '" + item + "'; accepted: " + accepted + ", or all");
    out.push_back(*v);
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return out;
}

// As staging and verify do before they allocate: the largest size's send and receive buffers (each rank
// holds both; fewer ranks on a node than that is the least it needs) above 80% of MemAvailable are
// refused (exit 2) instead of allocated until the process dies. MemAvailable unknown: no check.
void check_collective_memory(const std::vector<std::uint64_t>& sizes, const std::string& text) {
  constexpr double kShare = 0.8;
  if (sizes.empty()) return;
  const double largest = static_cast<double>(*std::max_element(sizes.begin(), sizes.end()));
  const std::uint64_t avail = hostpipe::mem_available_bytes();
  if (avail && 2 * largest > kShare * static_cast<double>(avail))
    throw InputError(fmt::format("--sizes {}: the largest size needs {:.1f} GiB per rank (send and receive buffers), more "
                                 "than {:.0f}% of the {:.1f} GiB this node has available (MemAvailable); give smaller sizes",
                                 text, 2 * largest / 1073741824.0, kShare * 100, static_cast<double>(avail) / 1073741824.0));
}

// Stragglers on purpose: the slowed ranks and the doses (the default doses when only ranks are given).
void parse_slowdown(const CollectiveOptions& opt, coll::CollectiveBenchConfig& cfg) {
  if (opt.slow_ranks.empty()) {
    if (!opt.slow_doses.empty()) throw InputError("--slow-doses: give the ranks to slow with --slow-ranks (e.g. 1)");
    return;
  }
  cfg.slow_ranks = parse_rank_list(opt.slow_ranks, "--slow-ranks");
  cfg.slow_doses = parse_slow_doses(opt.slow_doses.empty() ? "0,5,10,20%" : opt.slow_doses, "--slow-doses");
  cfg.slow_rounds = opt.slow_rounds;
}

// Everything that can be checked without MPI (identical on every rank).
coll::CollectiveBenchConfig parse_config(const CollectiveOptions& opt) {
  coll::CollectiveBenchConfig cfg;
  cfg.ops = parse_list<coll::Collective>(opt.ops, "--ops", coll::all_collectives(), coll::parse_collective,
                                         "allreduce, allgather, reducescatter, broadcast, reduce, alltoall, sendrecv");
  cfg.types = parse_list<coll::DataType>(opt.types, "--types", coll::all_types(), coll::parse_type,
                                         "int8, int32, float16 (half), bfloat16, float32 (float), float64 (double), f8e4m3, f8e5m2 (NCCL 2.24+)");
  cfg.redop = *coll::parse_redop(opt.redop);
  cfg.sizes = parse_size_sweep(opt.sizes, "--sizes", kMaxBufferBytes);
  check_collective_memory(cfg.sizes, opt.sizes);
  cfg.iters = opt.iters;
  cfg.blocks = opt.blocks;
  cfg.start_at_barrier = opt.call_start == "barrier";
  cfg.warmup_iters = opt.warmup;
  cfg.root = opt.root;
  cfg.check = !opt.no_check;
  cfg.in_place_modes = opt.mode == "both" ? std::vector<bool>{false, true} : std::vector<bool>{opt.mode == "in-place"};
  if (const char* c = std::getenv("PLACEBENCH_CORRUPT_RANK")) {  // test hook
    bool out_of_range = false;
    std::optional<long long> rank = parse_decimal(c, out_of_range);
    if (!rank || *rank < 0 || *rank > kMaxCount)
      throw InputError(std::string("PLACEBENCH_CORRUPT_RANK=") + c + ": not a rank; give a whole number in decimal or unset it");
    cfg.corrupt_rank = static_cast<int>(*rank);
  }
  parse_slowdown(opt, cfg);
  if (!opt.nccl_tests_json.empty() && cfg.ops.size() != 1)
    throw InputError("--nccl-tests-json: nccl-tests' layout holds one collective, and --ops names " +
                     std::to_string(cfg.ops.size()) + "; give one --ops per file (one run per collective)");
  return cfg;
}

// Rank 0, before any measurement and again before writing: the output rule (out_file.h).
OutputTarget nccl_tests_output(const CollectiveOptions& opt) { return check_output("--nccl-tests-json", opt.nccl_tests_json, opt.force); }

// This process's command line (/proc/self/cmdline, NUL-separated) for nccl-tests' "args".
std::vector<std::string> own_command_line() {
  std::ifstream in("/proc/self/cmdline", std::ios::binary);
  std::string all((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::vector<std::string> args;
  for (std::size_t start = 0; start < all.size();) {
    std::size_t end = all.find('\0', start);
    if (end == std::string::npos) end = all.size();
    args.push_back(all.substr(start, end - start));
    start = end + 1;
  }
  return args;
}

// NCCL_* variables only: nccl-tests records the whole environment, which may hold secrets.
std::vector<std::string> nccl_environment() {
  std::vector<std::string> out;
  for (char** e = environ; e && *e; ++e)
    if (std::string_view(*e).substr(0, 5) == "NCCL_") out.emplace_back(*e);
  return out;
}

void write_nccl_tests_json(const OutputTarget& out, const CollectiveReport& report, const std::string& start_time) {
  NcclTestsRunInfo info{start_time, nccl_tests_time_now(), own_command_line(), nccl_environment(), 0};
  if (report.result.backend == coll::Backend::kNccl) info.nccl_version = coll::nccl_availability().version;
  write_output(out, render_nccl_tests_json(report, info));
}

// Rank 0: the table or JSON (unless the nccl-tests JSON is this command's output), then the nccl-tests
// file; false when that file could not be written (the results are printed; the file alone is missing).
bool print_report(const CollectiveOptions& opt, CollectiveReport& report, const std::string& start_time) {
  report.evidence = current_evidence();  // one stamp for both records
  ReportTargets to = ReportTargets::printing(opt.json);
  to.stdout_taken = names_stdout(opt.nccl_tests_json);  // written below, its errors its own
  emit_report(to, {[&] { return json_text(collective_to_json(report)); }, [&] { return render_collective_table(report, opt.wide); }});
  try {
    if (!opt.nccl_tests_json.empty()) write_nccl_tests_json(nccl_tests_output(opt), report, start_time);
  } catch (const std::exception& e) {
    std::cerr << "placebench: " << e.what() << "\n";
    return false;
  }
  return true;
}

int run_collective_command(const CollectiveOptions& opt) {
  coll::CollectiveBenchConfig cfg;
  Arm arm = Arm::kLocal;
  double stall_s = 0;
  int status = check_before_mpi("collective", opt.stall_timeout, [&] {
    cfg = parse_config(opt);
    arm = parse_arm_list(opt.arm, "--arm").front();
  }, stall_s);
  if (status != 0) return status;

  coll::MpiSession session(stall_s);
  const RankIdentity who = rank_identity(session);
  std::unique_ptr<RankPlacement> placement;
  BackendChoice choice;
  status = run_setup_agreed(session, [&] {
    check_not_single_rank(session.size(), "collective", opt.allow_single_rank);
    if (session.rank() == 0) nccl_tests_output(opt);
    if (cfg.root < 0 || cfg.root >= session.size())
      throw InputError("--root " + std::to_string(cfg.root) + ": must be a rank, 0.." + std::to_string(session.size() - 1));
    for (int r : cfg.slow_ranks)
      if (r >= session.size())
        throw InputError("--slow-ranks: rank " + std::to_string(r) + " does not exist; this job has ranks 0.." +
                         std::to_string(session.size() - 1));
    Inventory inv = build_inventory(Topology::load_live());
    kernels::DeviceRuntime rt = kernels::query_device_runtime();
    cross_check_live(inv, rt);
    RankDevice dev = rank_device(inv, opt.placement.device, who, 1);
    choice = choose_collective_backend(opt.backend, nccl_support(dev, rt));
    cfg.backend = choice.backend;  // the buffer layout depends on it
    for (coll::DataType t : cfg.types)
      if (const char* why = coll::type_refusal(t, cfg.backend)) throw InputError("--types " + coll::type_name(t) + ": " + why);
    if (dev.device.gpu) cfg.gpu = *dev.device.gpu;
    placement = std::make_unique<RankPlacement>(
        place_rank(inv, opt.placement, arm, who, 1, coll::bench_host_bytes(cfg, session.size())));
  });
  if (status != 0) return status;
  choice = agree_on_backend(session, choice);
  cfg.backend = choice.backend;

  CollectiveReport report;
  std::string start_time = nccl_tests_time_now();
  try {
    report.result = coll::run_collective_bench(session, cfg, placement->placed.buffer.data(), placement->placed.buffer.size());
    nlohmann::json mine = rank_to_json(who, *placement);
    mine["pid"] = static_cast<long>(getpid());
    std::vector<std::string> ranks = session.gather_strings(mine.dump(), 0);
    for (const auto& r : ranks) report.ranks.push_back(nlohmann::json::parse(r));
  } catch (const std::exception& e) {
    abort_job(session, e.what());
  }
  int failed = report.result.wrong_total > 0 ? 1 : 0;
  if (session.rank() == 0) {
    report.config = cfg;
    report.backend_reason = choice.reason;
    report.arm = arm_name(arm);
    if (!print_report(opt, report, start_time)) failed = 1;
  }
  bool wrong = session.agree_max(failed) != 0;
  return wrong ? kExitFailed : kExitOk;
}

}  // namespace

void add_collective_command(CLI::App& app, CommandAction& action) {
  auto opt = std::make_shared<CollectiveOptions>();
  CLI::App* cmd = app.add_subcommand("collective", "Collectives (MPI, NCCL) per placement arm and size, under mpirun");
  cmd->preparse_callback([](std::size_t) { quiet_stderr_unless_rank0(); });
  cmd->add_option("--backend", opt->backend, "nccl (GPU buffers), mpi (host buffers), or auto (nccl when usable)")
      ->check(CLI::IsMember({"auto", "mpi", "nccl"}))
      ->type_name("auto|mpi|nccl")
      ->default_val("auto");
  cmd->add_option("--ops", opt->ops, "Collectives: allreduce, allgather, reducescatter, broadcast, reduce, alltoall, sendrecv, all")
      ->type_name("a,b")
      ->default_val("allreduce");
  cmd->add_option("--types", opt->types, "Types: int8, int32, float16, bfloat16, float32, float64, f8e4m3, f8e5m2 (NCCL 2.24+), all (no fp8)")
      ->type_name("t,u")
      ->default_val("float32");
  cmd->add_option("--redop", opt->redop, "Reduce operator")
      ->check(CLI::IsMember({"sum", "prod", "max", "min"}))
      ->type_name("sum|prod|max|min")
      ->default_val("sum");
  cmd->add_option("--root", opt->root, "Root rank of broadcast and reduce")->type_name("R")->transform(whole_number(0, 1'000'000))->default_val(0);
  cmd->add_option("--sizes", opt->sizes, "Sizes per rank buffer: START:END:xFACTOR or a list (8,1M)")
      ->type_name("SPEC")
      ->default_val("8:1M:x4");
  cmd->add_option("--iters", opt->iters, "Calls per timed block (pipelined), and single timed calls after them")
      ->type_name("N")->transform(whole_number(1, 1'000'000))->default_val(20);
  cmd->add_option("--blocks", opt->blocks, "Timed blocks of --iters calls per size; time is the median block")
      ->type_name("N")->transform(whole_number(1, 10'000))->default_val(10);
  cmd->add_option("--warmup", opt->warmup, "Untimed warm-up calls per size")->type_name("N")->transform(whole_number(0, 1'000'000))->default_val(5);
  cmd->add_option("--mode", opt->mode, "Out-of-place, in-place, or both")
      ->check(CLI::IsMember({"out-of-place", "in-place", "both"}))
      ->type_name("MODE")
      ->default_val("both");
  cmd->add_flag("--no-check", opt->no_check, "Skip the data check (wrong is then N/A)");
  cmd->add_option("--arm", opt->arm, "The arm every rank applies: " + arm_names_list())->type_name("A")->default_val("local");
  add_device_options(cmd, opt->placement.device);
  add_placement_options(cmd, opt->placement);
  cmd->add_flag("--json", opt->json, "Print one JSON object: rows (nccl-tests field names) and every rank's placement");
  cmd->add_flag("--wide", opt->wide, "Every column of the table (count, type, redop, root, p95, rank mean), wider than 100");
  cmd->add_option("--nccl-tests-json", opt->nccl_tests_json,
                  "Also write FILE in nccl-tests' -J layout (one --ops; an existing FILE only with --force)")
      ->type_name("FILE");
  cmd->add_option("--slow-ranks", opt->slow_ranks, "Stragglers on purpose: these ranks spin before each call of the dose rounds")
      ->type_name("R,S");
  cmd->add_option("--slow-doses", opt->slow_doses, "Their extra work per call: 0,5,10,20% of the step (default) or 0,50us,1ms")
      ->type_name("D,E");
  cmd->add_option("--slow-rounds", opt->slow_rounds, "Dose rounds (each runs every dose, in a random order): CIs are over rounds")
      ->type_name("N")->transform(whole_number(1, 10'000))->default_val(10);
  cmd->add_option("--call-start", opt->call_start,
                  "Single timed calls start at a common instant of the synchronized clock, or at a barrier's exit")
      ->check(CLI::IsMember({"instant", "barrier"}))
      ->type_name("WHEN")
      ->default_val("instant");
  add_force_flag(*cmd, opt->force);
  cmd->add_option("--stall-timeout", opt->stall_timeout,
                  "Abort the job when a wait makes no progress this long, plus the call's bytes at 100 MB/s (default "
                  "$PLACEBENCH_STALL_TIMEOUT, else 60s; at most 1h)")
      ->type_name("TIME");
  cmd->add_flag("--allow-single-rank", opt->allow_single_rank, "Run even as a single rank (no mpirun): nothing is measured between ranks");
  cmd->callback([opt, &action] { action = [opt] { return run_collective_command(*opt); }; });
}

}  // namespace placebench::harness
