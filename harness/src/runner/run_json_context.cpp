// run.json: schema version, versions, host, topology, the config copy, seed, start time.
#include "run_json_context.h"

#include "placebench/harness/build_info.h"
#include "placebench/harness/evidence.h"
#include "placebench/harness/runner/run_directory.h"
#include "placebench/harness/topology/inventory_format.h"
#include "placebench/hostpipe/sysmetrics/sysmetrics_json.h"
#include "placebench/hostpipe/sysmetrics/sysmetrics_context.h"

namespace placebench::harness::detail {

nlohmann::json make_run_context(const ExperimentConfig& config, const Inventory& inv, const std::string& command_line) {
  VersionReport v = collect_versions();
  return {{"schema_version", kResultsSchemaVersion},
          {"placebench_version", v.placebench},
          {"git_revision", v.git_revision},
          {"command_line", command_line},
          {"start_time", utc_timestamp_now()},
          {"host", inv.host},
          {"seed", config.seed},
          {"order", order_name(config.order)},
          {"versions", versions_to_json(v)},
          {"topology", inventory_to_json(inv)},
          {"config", config_to_json(config)},
          {"system", hostpipe::sysmetrics::run_context_extras_to_json(hostpipe::sysmetrics::collect_run_context_extras())}};
}

}  // namespace placebench::harness::detail
