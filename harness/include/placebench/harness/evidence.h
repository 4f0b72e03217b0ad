// Evidence that identifies itself: the host, the UTC time and the placebench version that every JSON output
// carries beside its own schema_version, so files gathered from many nodes can be told apart.
#pragma once
#include <nlohmann/json.hpp>
#include <string>

namespace placebench::harness {

struct Evidence {
  std::string host;                // local_host_name()
  std::string generated_at;        // UTC, ISO 8601 with a Z ("2026-12-01T14:05:00Z")
  std::string placebench_version;  // placebench_version()
};

// Now, on this host.
Evidence current_evidence();

// The current UTC time as ISO 8601 with seconds and a Z.
std::string utc_timestamp_now();

// The current UTC time in a strftime format (run directory names use "%Y%m%d-%H%M%S").
std::string utc_now(const char* format);

// This node's name, the host every record carries: PLACEBENCH_HOST_NAME when set, else the first line of
// the file PLACEBENCH_HOST_NAME_FILE names (a pod's entrypoint writes spec.nodeName there, for processes
// started over ssh, which do not inherit the pod's environment), else gethostname() ("unknown" when it cannot
// be read). A name from either variable must be plain (letters, digits, '.', '-', '_': it names a
// directory) and a named file must be readable, else InputError.
std::string local_host_name();

// Adds "host", "generated_at" and "placebench_version" to a JSON object (keys it already has are kept).
void stamp_evidence(nlohmann::json& object, const Evidence& evidence = current_evidence());

}  // namespace placebench::harness
