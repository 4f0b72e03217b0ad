// JSON of the sampler summary and the run context extras (documented in docs/system-metrics.md).
// NaN and absent values are null; percentages keep two decimals, rates and bytes whole numbers.
#pragma once
#include <nlohmann/json_fwd.hpp>

#include "placebench/hostpipe/sysmetrics/sysmetrics_context.h"
#include "placebench/hostpipe/sysmetrics/sample.h"

namespace placebench::hostpipe::sysmetrics {

// With include_series, "series" holds every sample as columns (one array per metric; per-CPU and
// per-NIC columns are arrays of rows in the order of "cpus" / "nics").
nlohmann::json sampler_summary_to_json(const SamplerSummary& summary, bool include_series);

nlohmann::json run_context_extras_to_json(const RunContextExtras& extras);

}  // namespace placebench::hostpipe::sysmetrics
