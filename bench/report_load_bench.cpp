// The report's loader (scripts/placebench_report/load.py) over 2000 run directories (target: < 10 s,
// docs/performance.md#report-loader): copies of the committed tiny run (8 trials each) in one folder, with
// a `latest` link to one of them and a link back up to the folder (before: a run reached by two paths was
// listed twice, a link back up re-read the tree at every depth). Each iteration runs the project's Python
// (.venv) on the folder and checks that it found exactly 2000 runs; without .venv the benchmark is skipped.
// BM_Report2000Runs makes the whole page of the same folder.
#include <benchmark/benchmark.h>
#include <fmt/format.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>

namespace {

namespace fs = std::filesystem;

const std::string kSource = PLACEBENCH_SOURCE_DIR;

// <tmp>/placebench-report-bench-<pid>/runs: made on first use, removed at exit.
const std::string& folder_of_2000_runs() {
  static const std::string dir = [] {
    const std::string root = fs::temp_directory_path().string() + "/placebench-report-bench-" + std::to_string(::getpid());
    fs::remove_all(root);
    const std::string runs = root + "/runs";
    for (int i = 0; i < 2000; ++i) {
      const std::string run = fmt::format("{}/run-{:04}", runs, i);
      fs::create_directories(run);
      for (const char* file : {"run.json", "trials.jsonl", "summary.json"})
        fs::copy_file(kSource + "/tests/fixtures/results/tiny-run/" + file, run + "/" + file);
    }
    fs::create_directory_symlink("run-0000", runs + "/latest");
    fs::create_directory_symlink("..", runs + "/run-0001/up");  // a link back up the tree
    std::atexit([] {
      fs::remove_all(fs::temp_directory_path().string() + "/placebench-report-bench-" + std::to_string(::getpid()));
    });
    return runs;
  }();
  return dir;
}

// How many runs the loader found, or -1 when Python could not run it.
int runs_found(const std::string& python, const std::string& dir) {
  const std::string cmd = fmt::format("'{}' -c \"import sys; sys.path.insert(0, '{}/scripts'); from placebench_report import load; "
                                      "print(len(load.load_inputs(['{}']).runs))\"",
                                      python, kSource, dir);
  FILE* p = ::popen(cmd.c_str(), "r");
  if (!p) return -1;
  int n = -1;
  if (std::fscanf(p, "%d", &n) != 1) n = -1;
  return ::pclose(p) == 0 ? n : -1;
}

// The checkout's report Python, or "" (and the benchmark skipped) without .venv.
std::string report_python(benchmark::State& state) {
  std::string python = kSource + "/.venv/bin/python";
  if (fs::exists(python)) return python;
  state.SkipWithError("no .venv (scripts/setup.sh makes it): the report's Python is not there");
  return "";
}

void BM_ReportLoad2000Runs(benchmark::State& state) {
  const std::string python = report_python(state);
  if (python.empty()) return;
  const std::string& dir = folder_of_2000_runs();
  int found = 0;
  for (auto _ : state) {
    found = runs_found(python, dir);
    if (found != 2000) {
      state.SkipWithError(fmt::format("the loader found {} runs, not 2000", found).c_str());
      return;
    }
  }
  state.counters["runs"] = found;
}
BENCHMARK(BM_ReportLoad2000Runs)->Unit(benchmark::kMillisecond)->UseRealTime()->Iterations(1);

// The whole page (scripts/report.py) over the same 2000 runs: loaded, tabulated, the first runs' figures
// drawn (page.MAX_DRAWN_RUNS), written.
void BM_Report2000Runs(benchmark::State& state) {
  const std::string python = report_python(state);
  if (python.empty()) return;
  const std::string& dir = folder_of_2000_runs();
  const std::string out = fs::path(dir).parent_path().string() + "/report.html";
  for (auto _ : state) {
    const std::string cmd = fmt::format("'{}' '{}/scripts/report.py' '{}' -o '{}' > /dev/null 2>&1", python, kSource, dir, out);
    if (std::system(cmd.c_str()) != 0) {
      state.SkipWithError("scripts/report.py failed on the 2000 runs");
      return;
    }
  }
  state.counters["runs"] = 2000;
  state.counters["html_bytes"] = static_cast<double>(fs::file_size(out));
}
BENCHMARK(BM_Report2000Runs)->Unit(benchmark::kMillisecond)->UseRealTime()->Iterations(1);

}  // namespace
