// Internal to the run analysis: the analysis of plain classes (analysis.cpp), which analyze_run
// (analysis_conditions.cpp) runs on every class, and on every (class, condition) of a class with
// interference conditions as a class of its own.
#pragma once
#include <vector>

#include "placebench/harness/runner/analysis.h"

namespace placebench::harness::detail {

// Every class of `config` as if it had no conditions: its trials by class name, arm and round.
std::vector<ClassAnalysis> analyze_classes(const ExperimentConfig& config, const std::vector<TrialRecord>& trials);

}  // namespace placebench::harness::detail
