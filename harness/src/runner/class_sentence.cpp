// The first screen of `compare` and `run` (issue 30): one sentence per class saying what the run decided, or
// why it decided nothing and what would settle it. The same rules as the report's first screen
// (scripts/placebench_report/first_screen.py, from_summary), so that the terminal and the page agree.
#include <fmt/format.h>

#include <algorithm>
#include <map>

#include "placebench/harness/runner/analysis.h"
#include "placebench/harness/terminal_text.h"

namespace placebench::harness {
namespace {

const std::map<std::string, std::string> kVerdictWords = {
    {"faster", "faster than"}, {"slower", "slower than"}, {"equivalent", "equivalent to"}};

std::string arm_names(const std::vector<const ArmAnalysis*>& arms) {
  std::string out;
  for (const ArmAnalysis* a : arms) out += (out.empty() ? "" : ", ") + escape_control(a->arm);
  return out;
}

}  // namespace

std::string class_sentence(const ClassAnalysis& c) {
  std::vector<const ArmAnalysis*> compared, not_apart;
  for (const ArmAnalysis& a : c.arms) {
    if (a.role == "baseline" || a.arm == c.baseline) continue;
    (a.role == "control" || a.role == "unrealised" ? not_apart : compared).push_back(&a);
  }
  const std::string name = escape_control(c.name), baseline = escape_control(c.baseline);
  const std::string apart = not_apart.empty() ? "" : fmt::format("{} could not be placed apart from {} on this node; a "
                                                                 "node with two NUMA nodes would measure it",
                                                                 arm_names(not_apart), baseline);
  if (compared.empty())
    return fmt::format("{}: no policy: {}.", name, apart.empty() ? "no arm is compared with the baseline" : apart);
  if (c.stop_reason == "continue" || c.stop_reason == "before_first_look")
    return name + ": no policy yet: the run stopped before its plan decided; let it run to its last look.";
  std::vector<const ArmAnalysis*> open;
  std::optional<double> detect;
  for (const ArmAnalysis* a : compared)
    if (!kVerdictWords.count(a->verdict)) {
      open.push_back(a);
      if (a->detectable_pct) detect = std::max(detect.value_or(*a->detectable_pct), *a->detectable_pct);
    }
  const std::string tail = apart.empty() ? "." : "; " + apart + ".";
  if (!open.empty())
    return fmt::format("{}: no policy: {} against {} is undecided{}; settle it with more rounds{}", name, arm_names(open),
                       baseline, detect ? fmt::format(" (this run detects only effects beyond ±{:.1f}%)", *detect) : "",
                       tail);
  std::string said;
  for (const ArmAnalysis* a : compared)
    said += fmt::format("{}{} is {} {} ({:+.2f}%)", said.empty() ? "" : "; ", escape_control(a->arm),
                        kVerdictWords.at(a->verdict), baseline, a->ratio_pct);
  return fmt::format("{}: no policy yet, the measurement is decided: {}; `placebench decide` turns it into a policy once "
                     "the class's config has a decision block{}", name, said, tail);
}

}  // namespace placebench::harness
