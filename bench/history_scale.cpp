// placebench-history-scale: the results store at fleet scale (docs/performance.md, "History store"; target:
// 1,000 nodes x 100 runs of 2 classes x 3 arms added in under 60 s on the development VM, memory stated).
//   1. The store alone: NODES x RUNS typed run records (what read_stored_run gives: 10 figures per run, each
//      arm's statistic and each compared arm's ratio), added through Store::add 256 runs per transaction,
//      as `history add` adds them; then the open check (quick_check) and the queries of list and show.
//   2. The full path on DIRS run directories (one real 2-class, 3-arm run written through the runner's
//      writers, copied under other nodes and start times): read alone, then `history add`'s work
//      (add_run_dirs: read and add) with one reader and with one per core, wall and CPU time per directory.
// Usage: placebench-history-scale [--nodes N] [--runs R] [--dirs D] [--rounds K] [--steps S] [--keep-store FILE];
// prints one line per measurement and the peak resident memory after each part (the store part runs first);
// --keep-store copies the typed store to FILE (for `placebench history changes FILE` by hand).
#include <sys/resource.h>
#include <unistd.h>

#include <fmt/format.h>

#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <iostream>

#include "fleet_fixtures.h"
#include "history_run_writer.h"
#include "placebench/harness/admission/admission.h"
#include "placebench/harness/history/changes.h"
#include "placebench/harness/history/history.h"

namespace {

namespace fs = std::filesystem;
namespace history = placebench::harness::history;
using Clock = std::chrono::steady_clock;

struct ScaleOptions {
  int nodes = 1000, runs = 100, dirs = 2000, rounds = 10, steps = 40;
};

double seconds_since(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }

double peak_rss_mib() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return static_cast<double>(u.ru_maxrss) / 1024.0;  // KiB on Linux
}

// One run's figures as read_stored_run gives them for 2 classes x 3 arms (local baseline, unpinned and
// remote compared): 3 statistics and 2 ratios per class.
history::StoredRun typed_run(int node, int run, std::uint64_t& noise) {
  history::StoredRun r;
  r.node = fmt::format("node-{:04}", node);
  r.key = fmt::format("{:08x}{:08x}", static_cast<unsigned>(node), static_cast<unsigned>(run));
  r.dir = fmt::format("/results/{}/run-{:03}", r.node, run);
  r.start_epoch_s = 1764547200.0 + run * 86400.0 + node;
  r.start_time = placebench::harness::admission::format_rfc3339(*r.start_epoch_s);
  r.complete = true;
  r.trials = 120;
  r.config_name = "history-scale";
  r.evidence.placebench_version = "0.1.0";
  r.evidence.cuda_driver = run < 50 ? "12.4" : "12.6";
  r.evidence.numa_nodes = 2;
  for (const char* cls : {"staging-gpu0", "staging-gpu1"})
    for (const char* arm : {"local", "unpinned", "remote"}) {
      const double level = std::strcmp(arm, "local") == 0 ? 1e6 : std::strcmp(arm, "remote") == 0 ? 1.25e6 : 1.05e6;
      const double v = level * (1 + 0.02 * placebench::testing::synthetic_noise(noise));
      const bool baseline = std::strcmp(arm, "local") == 0;
      history::StoredResult s{cls, arm, "median", "ns", baseline ? "baseline" : "compared", v, v * 0.99, v * 1.01,
                              0.95, 10, baseline ? "baseline" : "slower", std::nullopt, std::nullopt, ""};
      r.results.push_back(s);
      if (baseline) continue;
      history::StoredResult x{cls, arm, "ratio_pct", "%", "compared", v / 1e4 - 100, v / 1e4 - 101, v / 1e4 - 99,
                              0.99, 10, "slower", 1, 0.001, ""};
      r.results.push_back(x);
    }
  return r;
}

void store_part(const ScaleOptions& o, const std::string& tmp) {
  const std::string db = tmp + "/typed.db";
  std::uint64_t noise = 1;
  auto t0 = Clock::now();
  {
    history::Store store = history::Store::open_for_writing(db);
    std::vector<history::StoredRun> batch;
    for (int n = 0; n < o.nodes; ++n)
      for (int r = 0; r < o.runs; ++r) {
        batch.push_back(typed_run(n, r, noise));
        if (batch.size() == 256) {
          store.add(batch);
          batch.clear();
        }
      }
    store.add(batch);
  }
  const double add_s = seconds_since(t0), runs = static_cast<double>(o.nodes) * o.runs;
  std::cout << fmt::format("store: {} runs ({} nodes x {}), {} figures, added in {:.2f} s: {:.0f} runs/s; file {:.1f} MiB; "
                           "peak RSS {:.1f} MiB\n", runs, o.nodes, o.runs, runs * 10, add_s, runs / add_s,
                           static_cast<double>(fs::file_size(db)) / 1048576.0, peak_rss_mib());
  t0 = Clock::now();
  history::Store::open_for_writing(db);  // a second add's open: the read-only look and quick_check
  std::cout << fmt::format("store: open for writing (quick_check of every page): {:.2f} s\n", seconds_since(t0));
  history::Store reader = history::Store::open_for_reading(db);
  t0 = Clock::now();
  std::size_t listed = reader.list({}).size();
  std::cout << fmt::format("store: list of all {} runs: {:.2f} s\n", listed, seconds_since(t0));
  history::HistoryFilter one;
  one.node = "node-0007";
  t0 = Clock::now();
  std::size_t shown = reader.show(one).size();
  std::cout << fmt::format("store: show --node (one node, {} runs with figures): {:.3f} s\n", shown, seconds_since(t0));
  t0 = Clock::now();  // `history changes` over the whole store: read, series built, detected, fleet-marked
  const history::ChangesReport changes = history::find_changes(reader, {});
  std::cout << fmt::format("store: history changes over {} series: {:.2f} s ({} changes, {} fleet changes); peak RSS "
                           "{:.1f} MiB\n", changes.series.size(), seconds_since(t0), changes.change_count(),
                           changes.fleet_changes.size(), peak_rss_mib());
}

// A real run directory of 2 classes x 3 arms (staging: local, unpinned, remote) written by the runner's writers.
void write_template_run(const std::string& dir, const ScaleOptions& o) {
  placebench::bench::RunDirSpec spec;
  spec.name = "history-scale";
  spec.command_line = "placebench-history-scale";
  spec.rounds = o.rounds;
  spec.steps = o.steps;
  std::uint64_t state = 7;
  placebench::bench::write_run_dir(dir, spec, [&](int, int, int position) {
    const double base = 1e6 * (1 + 0.1 * position);
    std::vector<std::int64_t> steps;
    for (int s = 0; s < o.steps; ++s)
      steps.push_back(static_cast<std::int64_t>(base * (1 + 0.02 * placebench::testing::synthetic_noise(state))));
    return steps;
  });
}

// DIRS copies of the template, 100 runs per node, each with its own host and start time (so its own identity).
std::vector<std::string> write_run_dirs(const ScaleOptions& o, const std::string& tmp) {
  const std::string root = tmp + "/runs", first = root + "/node-0000/run-000";
  fs::create_directories(root + "/node-0000");
  write_template_run(first, o);
  nlohmann::json run = placebench::harness::RunDirectory::open(first).run();
  std::vector<std::string> dirs;
  for (int i = 0; i < o.dirs; ++i) {
    std::string host = fmt::format("node-{:04}", i / 100), dir = fmt::format("{}/{}/run-{:03}", root, host, i % 100);
    fs::create_directories(dir);
    if (dir != first)
      for (const char* file : {"trials.jsonl", "summary.json"}) fs::copy_file(first + "/" + file, dir + "/" + file);
    run["host"] = host;
    run["start_time"] = fmt::format("2026-{:02}-{:02}T10:00:00Z", 1 + (i % 100) / 28, 1 + (i % 100) % 28);
    placebench::harness::write_file_atomically(dir + "/run.json", run.dump(2) + "\n");
    dirs.push_back(dir);
  }
  return dirs;
}

double cpu_seconds() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return static_cast<double>(u.ru_utime.tv_sec + u.ru_stime.tv_sec) + 1e-6 * static_cast<double>(u.ru_utime.tv_usec + u.ru_stime.tv_usec);
}

void directory_part(const ScaleOptions& o, const std::string& tmp) {
  std::vector<std::string> dirs = write_run_dirs(o, tmp);
  auto t0 = Clock::now();
  double cpu0 = cpu_seconds();
  for (const std::string& d : dirs) history::read_stored_run(d);
  const double read_s = seconds_since(t0), read_cpu = cpu_seconds() - cpu0, n = static_cast<double>(dirs.size());
  std::cout << fmt::format("dirs: {} run directories ({} rounds x {} steps), read alone in {:.2f} s: {:.2f} ms each "
                           "({:.2f} ms CPU)\n", dirs.size(), o.rounds, o.steps, read_s, 1e3 * read_s / n, 1e3 * read_cpu / n);
  for (std::size_t threads : {std::size_t{1}, std::size_t{0}}) {  // one reader, then one per core (history add's)
    history::Store store = history::Store::open_for_writing(fmt::format("{}/dirs-{}.db", tmp, threads));
    t0 = Clock::now();
    cpu0 = cpu_seconds();
    history::AddReport report = history::add_run_dirs(store, history::find_run_dirs({tmp + "/runs"}), 256, threads);
    const double add_s = seconds_since(t0), add_cpu = cpu_seconds() - cpu0;
    std::cout << fmt::format("dirs: history add of {} directories ({} added, {} not), {} reader{}: {:.2f} s, {:.2f} ms each "
                             "({:.2f} ms CPU); 1,000 x 100 at this rate: {:.0f} s; peak RSS {:.1f} MiB\n", dirs.size(),
                             report.outcomes.size(), report.not_added.size(), threads ? "1" : "a", threads ? "" : " per core",
                             add_s, 1e3 * add_s / n, 1e3 * add_cpu / n, add_s / n * 1e5, peak_rss_mib());
  }
}

const char* text_option(int argc, char** argv, const char* name) {
  for (int i = 1; i + 1 < argc; ++i)
    if (std::strcmp(argv[i], name) == 0) return argv[i + 1];
  return nullptr;
}

int option_value(int argc, char** argv, const char* name, int fallback) {
  for (int i = 1; i + 1 < argc; ++i)
    if (std::strcmp(argv[i], name) == 0) return std::atoi(argv[i + 1]);
  return fallback;
}

}  // namespace

int main(int argc, char** argv) {
  ScaleOptions o;
  o.nodes = option_value(argc, argv, "--nodes", o.nodes);
  o.runs = option_value(argc, argv, "--runs", o.runs);
  o.dirs = option_value(argc, argv, "--dirs", o.dirs);
  o.rounds = option_value(argc, argv, "--rounds", o.rounds);
  o.steps = option_value(argc, argv, "--steps", o.steps);
  const std::string tmp = fs::temp_directory_path().string() + "/placebench-history-scale-" + std::to_string(::getpid());
  fs::remove_all(tmp);
  fs::create_directories(tmp);
  int status = 0;
  try {
    store_part(o, tmp);
    if (const char* keep = text_option(argc, argv, "--keep-store")) fs::copy_file(tmp + "/typed.db", keep);
    if (o.dirs > 0) directory_part(o, tmp);
  } catch (const std::exception& e) {
    std::cerr << "placebench-history-scale: " << e.what() << "\n";
    status = 1;
  }
  fs::remove_all(tmp);
  return status;
}
