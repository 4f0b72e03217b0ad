// Host, UTC time and version stamped on JSON outputs (see evidence.h).
#include "placebench/harness/evidence.h"

#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <ctime>
#include <fstream>

#include "placebench/harness/build_info.h"
#include "placebench/harness/errors.h"

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

namespace {

// A node name names a directory (runs/<node>/): letters, digits, '.', '-', '_', not "." or "..".
std::string plain_node_name(const std::string& name, const std::string& from) {
  bool plain = !name.empty() && name.size() <= 255 && name != "." && name != ".." &&
               name.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789.-_") == std::string::npos;
  if (!plain)
    throw InputError(from + ": '" + name + "' is not a plain node name (letters, digits, '.', '-', '_'; "
                     "it names a directory); set a plain name or unset it to use the host name");
  return name;
}

}  // namespace

std::string local_host_name() {
  if (const char* forced = std::getenv("PLACEBENCH_HOST_NAME")) return plain_node_name(forced, "PLACEBENCH_HOST_NAME");
  if (const char* file = std::getenv("PLACEBENCH_HOST_NAME_FILE")) {
    std::ifstream in(file);
    std::string name;
    if (!in || !std::getline(in, name))
      throw InputError(std::string("PLACEBENCH_HOST_NAME_FILE: cannot read a node name from ") + file +
                       " (in a pod, the entrypoint writes spec.nodeName there from the downward API: scripts/k8s/); "
                       "write the file or unset the variable to use the host name");
    return plain_node_name(name, std::string("PLACEBENCH_HOST_NAME_FILE ") + file);
  }
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
