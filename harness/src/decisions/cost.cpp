// Stranded GPU time of partial gangs (see cost.h): arithmetic, reading gang results, printers.
#include "placebench/harness/decisions/cost.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <filesystem>

#include "placebench/harness/admission/admission.h"
#include "placebench/harness/errors.h"
#include "placebench/harness/evidence.h"
#include "placebench/harness/input_limits.h"
#include "placebench/harness/collectives_driver/gang_report.h"
#include "placebench/harness/results_json.h"

namespace placebench::harness::decisions {
namespace {

using nlohmann::json;
namespace fs = std::filesystem;

// Appends the incident in `obj` (stranded_gpu_s at the top or under summary); false when it has none.
// Gang JSON goes through its one reader (gang_report.h); other objects (trial lines, admission jobs,
// hand-made files) hold a stranded_gpu_s checked by the same rule.
bool take_incident(const json& obj, const std::string& where, std::vector<GangIncident>& out) {
  if (!obj.is_object()) return false;
  if (looks_like_gang_json(obj)) {
    const collectives::GangResult r = gang_result_from_json(obj, where);
    out.push_back({where, r.stranded_gpu_s, r.outcome});
    return true;
  }
  const json* holder = &obj;
  if (!obj.contains("stranded_gpu_s") && obj.contains("summary") && obj["summary"].is_object()) holder = &obj["summary"];
  if (!holder->contains("stranded_gpu_s")) return false;
  const double stranded = stranded_gpu_s_from_json((*holder)["stranded_gpu_s"], where);
  // outcome: the holder's, else the record's; informative only, so a non-string one is left out.
  std::string outcome;
  for (const json* o : {holder, &obj})
    if (outcome.empty() && o->contains("outcome") && (*o)["outcome"].is_string()) outcome = (*o)["outcome"].get<std::string>();
  out.push_back({where, stranded, outcome});
  return true;
}

constexpr const char* kGiveGangResults = "give a run directory, the JSON of `placebench gang --json` or of `placebench admission --json`";
constexpr const char* kGiveOther = "restore it, or give --from another file (a run directory or `placebench gang --json` output)";

void read_jsonl(const fs::path& path, std::vector<GangIncident>& out, std::vector<std::string>* warnings) {
  const std::string text = read_input_file(path.string(), kGiveGangResults, kMaxResultsBytes);
  // A truncated last line (a run killed mid-write) is skipped, by the rule of every JSON Lines reader.
  JsonLines lines = parse_json_lines(text, path.string(), "valid JSON", [&](std::size_t n, json line) {
    take_incident(line, fmt::format("{}:{}", path.string(), n), out);
  });
  if (lines.cut_line && warnings)
    warnings->push_back(fmt::format("{}:{}: truncated last line (interrupted while being written) ignored", path.string(),
                                    *lines.cut_line));
}

// `placebench admission --json` (or its --out file): one incident per job, its stranded_gpu_s over every
// attempt; the outcome says whether the gang was whole, is still pending, or failed.
bool take_admission(const json& j, const std::string& where, std::vector<GangIncident>& out) {
  if (!admission::looks_like_admission_json(j)) return false;
  for (const admission::JobTimeline& job : admission::admission_from_json(j, where).jobs) {
    const std::string name = fmt::format("{}: job {}/{}", where, job.ns, job.group);
    const double stranded = stranded_gpu_s_from_json(job.stranded_gpu_s, name);
    const bool pending = std::any_of(job.attempts.begin(), job.attempts.end(), [](const auto& a) { return a.pending; });
    out.push_back({name, stranded, pending ? "pending" : job.failure_at ? "failed" : "admitted"});
  }
  return true;
}

void read_json(const fs::path& path, std::vector<GangIncident>& out) {
  const std::string text = read_input_file(path.string(), kGiveGangResults, kMaxResultsBytes);
  json j = parse_results_json(text, path.string(), kGiveOther);
  if (take_admission(j, path.string(), out)) return;
  if (take_incident(j, path.string(), out)) return;
  const json* list = j.is_array() ? &j : (j.is_object() && j.contains("gangs") ? &j["gangs"] : nullptr);
  if (list && list->is_array())
    for (std::size_t i = 0; i < list->size(); ++i)
      take_incident((*list)[i], fmt::format("{}: [{}]", path.string(), i), out);
}

double round4(double v) { return std::round(v * 1e4) / 1e4; }

}  // namespace

CostResult compute_cost(const CostInput& input) {
  CostResult r;
  r.input = input;
  r.stranded_gpu_min = input.stranded_gpu_s_per_incident / 60.0;
  r.stranded_gpu_h = input.stranded_gpu_s_per_incident / 3600.0;
  r.per_day_gpu_h = r.stranded_gpu_h * input.incidents_per_day;
  if (input.rate_per_gpu_hour) {
    r.cost = r.stranded_gpu_h * *input.rate_per_gpu_hour;
    r.per_day_cost = r.per_day_gpu_h * *input.rate_per_gpu_hour;
  }
  return r;
}

void set_measured_incidents(CostInput& input, const std::vector<GangIncident>& gangs) {
  input.incidents.clear();
  input.on_time_gangs = 0;
  double total = 0;
  for (const auto& g : gangs) {
    if (g.stranded_gpu_s > 0) {
      input.incidents.push_back(g);
      total += g.stranded_gpu_s;
    } else {
      ++input.on_time_gangs;
    }
  }
  input.stranded_gpu_s_per_incident = input.incidents.empty() ? 0.0 : total / static_cast<double>(input.incidents.size());
}

std::vector<GangIncident> read_gang_incidents(const std::string& path_text, std::vector<std::string>* warnings) {
  fs::path path(path_text);
  std::vector<GangIncident> out;
  if (!fs::exists(path))
    throw InputError(fmt::format("--from {}: no such file or directory; give a run directory or the JSON of "
                                 "`placebench gang --json`", path_text));
  if (fs::is_directory(path)) {
    if (fs::exists(path / "trials.jsonl")) read_jsonl(path / "trials.jsonl", out, warnings);
    // A summary.json is searched for a gang incident, not read as a run's summary: a run's (RunSummary,
    // runner/summary_table.h) has no stranded_gpu_s and adds nothing, while the summary.json of other
    // tools beside gang results (a hand-made gang summary, scripts' outputs) may hold one.
    if (out.empty() && fs::exists(path / "summary.json")) read_json(path / "summary.json", out);
    if (out.empty()) {
      std::vector<fs::path> files;
      for (const auto& e : fs::directory_iterator(path))
        if (e.path().extension() == ".json" && e.path().filename() != "run.json" && e.path().filename() != "summary.json")
          files.push_back(e.path());
      std::sort(files.begin(), files.end());
      for (const auto& f : files) {
        // One empty or damaged file (a step that failed before writing) must not hide the others.
        try {
          read_json(f, out);
        } catch (const InputError& e) {
          if (!warnings) throw;
          warnings->push_back(f.string() + ": skipped (" + e.what() + ")");
        }
      }
    }
  } else if (path.extension() == ".jsonl") {
    read_jsonl(path, out, warnings);
  } else {
    read_json(path, out);
  }
  if (out.empty())
    throw InputError(fmt::format("--from {}: no gang result with stranded_gpu_s found; point it at a run with gang "
                                 "trials or at `placebench gang --json` output", path_text));
  return out;
}

std::string render_cost_text(const CostResult& r) {
  const CostInput& in = r.input;
  std::string out = "Stranded capacity of a partly admitted gang\n";
  if (in.gpus && in.wait_s)
    out += fmt::format("  {:g} GPUs allocated and idle for {:.1f} min per incident\n", *in.gpus, *in.wait_s / 60.0);
  std::string on_time = in.on_time_gangs ? fmt::format(" ({} gang(s) on time, stranding nothing: not counted)", in.on_time_gangs) : "";
  if (!in.incidents.empty()) {
    double total = 0, worst = 0;
    for (const auto& i : in.incidents) total += i.stranded_gpu_s, worst = std::max(worst, i.stranded_gpu_s);
    out += fmt::format("  from {}: {} gang incident(s), {:.1f} GPU-s stranded in total, mean {:.1f}, worst {:.1f}{}\n",
                       in.source, in.incidents.size(), total, total / static_cast<double>(in.incidents.size()), worst, on_time);
  } else if (in.on_time_gangs) {
    out += fmt::format("  from {}: no gang stranded GPU time{}\n", in.source, on_time);
  }
  std::string rate = in.rate_per_gpu_hour ? fmt::format(" (at {:g} per GPU-hour)", *in.rate_per_gpu_hour) : "";
  out += fmt::format("  per incident: {:.1f} GPU-min = {:.2f} GPU-h{}\n", r.stranded_gpu_min, r.stranded_gpu_h,
                     r.cost ? fmt::format("   cost {:.2f}{}", *r.cost, rate) : "   (no --rate: no cost)");
  out += fmt::format("  per day ({:g} incident{}{}): {:.2f} GPU-h{}\n", in.incidents_per_day,
                     in.incidents_per_day == 1 ? "" : "s", in.incidents_per_day_given ? "" : ", assumed: set --incidents-per-day",
                     r.per_day_gpu_h, r.per_day_cost ? fmt::format("   cost {:.2f}", *r.per_day_cost) : "");
  out += fmt::format("Note: {}\n", kInternalCostNote);
  return out;
}

nlohmann::json cost_to_json(const CostResult& r) {
  const CostInput& in = r.input;
  json j;
  j["schema_version"] = 1;
  j["source"] = in.source;
  j["gpus"] = in.gpus ? json(*in.gpus) : json(nullptr);
  j["wait_min"] = in.wait_s ? json(round4(*in.wait_s / 60.0)) : json(nullptr);
  j["rate_per_gpu_hour"] = in.rate_per_gpu_hour ? json(*in.rate_per_gpu_hour) : json(nullptr);
  j["stranded_gpu_min"] = round4(r.stranded_gpu_min);
  j["stranded_gpu_h"] = round4(r.stranded_gpu_h);
  j["cost"] = r.cost ? json(round4(*r.cost)) : json(nullptr);
  j["per_day"] = {{"incidents", in.incidents_per_day},
                  {"incidents_assumed", !in.incidents_per_day_given},
                  {"gpu_h", round4(r.per_day_gpu_h)},
                  {"cost", r.per_day_cost ? json(round4(*r.per_day_cost)) : json(nullptr)}};
  j["incidents"] = json::array();
  for (const auto& i : in.incidents)
    j["incidents"].push_back({{"source", i.source}, {"stranded_gpu_s", i.stranded_gpu_s},
                              {"outcome", i.outcome.empty() ? json(nullptr) : json(i.outcome)}});
  j["on_time_gangs"] = in.on_time_gangs;
  j["note"] = kInternalCostNote;
  stamp_evidence(j);
  return j;
}

}  // namespace placebench::harness::decisions
