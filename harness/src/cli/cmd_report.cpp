// `placebench report INPUT... [-o FILE]`: a thin wrapper that runs scripts/report.py (the HTML report,
// docs/reports.md) with the project's Python environment. The scripts are found under PLACEBENCH_HOME;
// else in an installed tree beside the binary (<prefix>/bin/placebench -> <prefix>/share/placebench, as
// `cmake --install` lays it out); else in the directory above the binary's (build/placebench -> the
// checkout). Python is PLACEBENCH_PYTHON; else HOME/.venv/bin/python (made by scripts/setup.sh); else, where
// HOME is not a checkout (an installed tree has no setup.sh to make .venv), python3 from PATH: report.py says
// in one line when that one lacks matplotlib.
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <memory>

#include "placebench/harness/cli/cli.h"
#include "placebench/harness/cli/out_file.h"
#include "placebench/harness/errors.h"

namespace placebench::harness {
namespace {

namespace fs = std::filesystem;

struct ReportOptions {
  std::vector<std::string> inputs;
  std::string output = "report.html";
  std::string title;
};

std::string env_or_empty(const char* name) {
  const char* v = std::getenv(name);
  return v ? v : "";
}

// Where an installed tree keeps the report, relative to the binary's directory: from GNUInstallDirs
// (cmake/PlacebenchInstall.cmake), by default bin/ -> share/placebench.
#ifndef PLACEBENCH_INSTALL_HOME_FROM_BIN
#define PLACEBENCH_INSTALL_HOME_FROM_BIN "../share/placebench"
#endif

bool has_report(const fs::path& home) {
  std::error_code ec;
  return !home.empty() && fs::exists(home / "scripts" / "report.py", ec);
}

// The directory holding scripts/report.py.
fs::path find_home() {
  std::string home = env_or_empty("PLACEBENCH_HOME");
  if (!home.empty()) {
    if (!has_report(home))
      throw InputError("PLACEBENCH_HOME=" + home + ": no scripts/report.py there; set it to the placebench checkout "
                       "(or to an installed share/placebench)");
    return home;
  }
  std::error_code ec;
  fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  if (!ec) {
    fs::path bin_dir = exe.parent_path();
    fs::path installed = (bin_dir / PLACEBENCH_INSTALL_HOME_FROM_BIN).lexically_normal();
    if (has_report(installed)) return installed;
    if (has_report(bin_dir.parent_path())) return bin_dir.parent_path();
  }
  throw InputError("cannot find scripts/report.py beside the binary (" + (ec ? std::string("unknown") : exe.string()) +
                   ": neither an installed " PLACEBENCH_INSTALL_HOME_FROM_BIN " nor a checkout above it); "
                   "set PLACEBENCH_HOME to the placebench checkout");
}

int run_report(const ReportOptions& o) {
  // The output rule (out_file.h) for what the path is; report.py then replaces an existing regular file
  // only when it is a report that report.py wrote (docs/reports.md).
  const OutputTarget out = check_output("-o", o.output, true);
  const std::string output = out.to_stdout ? "-" : out.file;
  fs::path home = find_home();
  std::string python = env_or_empty("PLACEBENCH_PYTHON");
  bool from_path = false;
  if (python.empty()) {
    python = (home / ".venv" / "bin" / "python").string();
    if (!fs::exists(python)) {
      if (fs::exists(home / "scripts" / "setup.sh"))  // a checkout: its .venv is what setup.sh makes
        throw InputError("no report environment at " + python +
                         "; create it with scripts/setup.sh (or set PLACEBENCH_PYTHON to a Python with matplotlib)");
      python = "python3";
      from_path = true;
    }
  }
  std::vector<std::string> args = {python, (home / "scripts" / "report.py").string()};
  args.insert(args.end(), o.inputs.begin(), o.inputs.end());
  args.insert(args.end(), {"-o", output});
  if (!o.title.empty()) args.insert(args.end(), {"--title", o.title});
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  std::cout.flush();
  if (from_path) {
    execvp(python.c_str(), argv.data());
    if (errno == ENOENT)
      throw InputError("no python3 on PATH to run " + args[1] +
                       "; install python3 with matplotlib, or set PLACEBENCH_PYTHON to a Python that has it");
  } else {
    execv(python.c_str(), argv.data());
  }
  throw std::runtime_error("cannot run " + python + ": " + std::strerror(errno));
}

}  // namespace

void add_report_command(CLI::App& app, CommandAction& action) {
  auto o = std::make_shared<ReportOptions>();
  CLI::App* cmd = app.add_subcommand("report", "One self-contained HTML report with plots of runs and result files (scripts/report.py)");
  cmd->add_option("inputs", o->inputs, "Run directories and JSON results (staging, pipeline, collective, gang, decide)")
      ->required()
      ->type_name("INPUT");
  cmd->add_option("-o,--output", o->output, "The HTML file to write (- for standard output; an existing file only when it is an earlier report)")->type_name("FILE")->capture_default_str();
  cmd->add_option("--title", o->title, "Title of the report (default: from the inputs)");
  cmd->callback([o, &action] { action = [o] { return run_report(*o); }; });
}

}  // namespace placebench::harness
