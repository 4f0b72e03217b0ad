// Host, UTC time and version stamped on JSON outputs (see evidence.h).
#include "placebench/harness/evidence.h"

#include <unistd.h>

#include <chrono>
#include <ctime>

#include "placebench/harness/build_info.h"

namespace placebench::harness {

std::string utc_now(const char* format) {
  std::time_t t = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[64];
  std::strftime(buf, sizeof buf, format, &tm);
  return buf;
}

std::string utc_timestamp_now() { return utc_now("%Y-%m-%dT%H:%M:%SZ"); }

std::string local_host_name() {
  char host[256] = {};
  if (gethostname(host, sizeof host - 1) != 0 || host[0] == '\0') return "unknown";
  return host;
}

Evidence current_evidence() { return {local_host_name(), utc_timestamp_now(), placebench_version()}; }

void stamp_evidence(nlohmann::json& object, const Evidence& evidence) {
  if (!object.is_object()) return;
  if (!object.contains("host")) object["host"] = evidence.host;
  if (!object.contains("generated_at")) object["generated_at"] = evidence.generated_at;
  if (!object.contains("placebench_version")) object["placebench_version"] = evidence.placebench_version;
}

}  // namespace placebench::harness
