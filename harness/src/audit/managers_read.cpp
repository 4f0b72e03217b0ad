// Readers of the kubelet's state files and the downward API's files (see managers.h). Formats:
// cpu_manager_state {"policyName","defaultCpuSet","entries":{pod:{container:cpulist}},"checksum"};
// memory_manager_state {"policyName","machineState","entries":{pod:{container:[{"numaAffinity":[..],
// "type","size"}]}},"checksum"} (kubelet's checkpoint v2); downward API files: one key="value" a line,
// the value quoted as Go's strconv.Quote does.
#include <filesystem>
#include <fmt/format.h>
#include <nlohmann/json.hpp>
#include <regex>
#include <sstream>

#include "placebench/harness/audit/managers.h"
#include "placebench/harness/errors.h"
#include "placebench/harness/input_limits.h"
#include "placebench/hostpipe/cpulist.h"
#include "placebench/hostpipe/input_file.h"
#include "placebench/hostpipe/process_placement.h"
#include "placebench/hostpipe/sysmetrics/proc_readers.h"

namespace placebench::harness {
namespace {

using nlohmann::json;
namespace fs = std::filesystem;

// Ids far above any machine's (Linux's largest NR_CPUS is 8192, MAX_NUMNODES 1024): a range up to INT_MAX
// in a damaged file would otherwise expand to billions of ids.
constexpr long kMaxCpuId = 16383;  // twice the largest NR_CPUS Linux builds (8192)
constexpr long kMaxNodeId = 4095;
// Exclusive CPUs are disjoint across containers, so all entries together name at most a machine's CPUs.
constexpr std::size_t kMaxEntryIds = static_cast<std::size_t>(kMaxCpuId) + 1;

// A value quoted in a message, cut to its ends (a damaged file may hold one of megabytes; the end of a
// library's message says what is wrong).
std::string clip(const std::string& text) {
  return text.size() <= 160 ? text : text.substr(0, 70) + " ... " + text.substr(text.size() - 70);
}

json parse_json(const std::string& text) {
  try {
    return json::parse(text);
  } catch (const json::parse_error& e) {
    std::size_t line = 1, column = 1;
    for (std::size_t i = 0; i + 1 < e.byte && i < text.size(); ++i) {
      if (text[i] == '\n') ++line, column = 1;
      else ++column;
    }
    throw std::invalid_argument(fmt::format("line {}, column {}: not JSON", line, column));
  } catch (const json::exception& e) {  // out_of_range.406: a number beyond a double (1e999)
    std::string what = e.what();  // "[json.exception.out_of_range.406] number overflow parsing '1e999'"
    std::size_t close = what.find("] ");
    throw std::invalid_argument("not the JSON the kubelet writes: " + clip(close == std::string::npos ? what : what.substr(close + 2)));
  }
}

const json& member(const json& j, const std::string& key, const std::string& where) {
  if (!j.is_object() || !j.contains(key)) throw std::invalid_argument(where + ": no \"" + key + "\"");
  return j.at(key);
}

std::string string_at(const json& j, const std::string& where) {
  if (!j.is_string()) throw std::invalid_argument(where + ": expected a string, found " + std::string(j.type_name()));
  return j.get<std::string>();
}

std::vector<int> cpulist_at(const json& j, const std::string& where) {
  std::string text = string_at(j, where);
  for (std::size_t i = text.find_first_of("0123456789"); i != std::string::npos; i = text.find_first_of("0123456789", i)) {
    std::size_t end = std::min(text.find_first_not_of("0123456789", i), text.size());
    if (end - i > 6 || std::stol(text.substr(i, end - i)) > kMaxCpuId)
      throw std::invalid_argument(fmt::format("{}: CPU id {} is above {}; no machine has that many CPUs", where,
                                              clip(text.substr(i, end - i)), kMaxCpuId));
    i = end;
  }
  try {
    return hostpipe::parse_cpulist(text);
  } catch (const std::invalid_argument& e) {
    throw std::invalid_argument(where + ": " + clip(e.what()));
  }
}

template <typename Value>
void for_entries(const json& root, const std::string& what, Value value,
                 std::map<std::string, std::map<std::string, std::vector<int>>>& out) {
  if (!root.contains("entries") || root["entries"].is_null()) return;
  const json& entries = root["entries"];
  if (!entries.is_object()) throw std::invalid_argument(what + "entries: expected an object");
  std::size_t ids = 0;  // over every container: many "0-16383" entries must not add up to gigabytes
  for (const auto& [pod, containers] : entries.items()) {
    if (!containers.is_object()) throw std::invalid_argument(what + "entries." + pod + ": expected an object");
    for (const auto& [container, v] : containers.items()) {
      std::vector<int>& entry = out[pod][container] = value(v, "entries." + pod + "." + container);
      if ((ids += entry.size()) > kMaxEntryIds)
        throw std::invalid_argument(fmt::format("{}entries.{}.{}: the entries name more than {} ids in all; no node has that many",
                                                what, clip(pod), clip(container), kMaxEntryIds));
    }
  }
}

int hex_digit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

void append_utf8(std::string& out, std::uint32_t cp) {
  auto byte = [&](std::uint32_t b) { out += static_cast<char>(static_cast<unsigned char>(b)); };
  if (cp < 0x80) {
    byte(cp);
  } else if (cp < 0x800) {
    byte(0xC0 | (cp >> 6)), byte(0x80 | (cp & 0x3F));
  } else if (cp < 0x10000) {
    byte(0xE0 | (cp >> 12)), byte(0x80 | ((cp >> 6) & 0x3F)), byte(0x80 | (cp & 0x3F));
  } else {
    byte(0xF0 | (cp >> 18)), byte(0x80 | ((cp >> 12) & 0x3F)), byte(0x80 | ((cp >> 6) & 0x3F)), byte(0x80 | (cp & 0x3F));
  }
}

// Go's strconv.Quote output (the kubelet writes each value with %q): "..." with the escapes \\ \" \a \b \f
// \n \r \t \v, \xHH for a byte that is not UTF-8, \uHHHH and \UHHHHHHHH for a character that is not printable.
std::string unquote(const std::string& q, std::size_t line) {
  auto bad = [&](const std::string& what) { return std::invalid_argument(fmt::format("line {}: {}", line, what)); };
  if (q.size() < 2 || q.front() != '"' || q.back() != '"') throw bad("the value is not a quoted string (key=\"value\")");
  std::string out;
  for (std::size_t i = 1; i + 1 < q.size(); ++i) {
    char c = q[i];
    if (c != '\\') {
      out += c;
      continue;
    }
    if (i + 2 >= q.size()) throw bad("a backslash ends the value");
    char e = q[++i];
    switch (e) {
      case 'a': out += '\a'; break;
      case 'b': out += '\b'; break;
      case 'f': out += '\f'; break;
      case 'n': out += '\n'; break;
      case 'r': out += '\r'; break;
      case 't': out += '\t'; break;
      case 'v': out += '\v'; break;
      case '"': out += '"'; break;
      case '\\': out += '\\'; break;
      case 'x':
      case 'u':
      case 'U': {
        const std::size_t digits = e == 'x' ? 2 : e == 'u' ? 4 : 8;
        std::uint32_t value = 0;
        for (std::size_t k = 1; k <= digits; ++k) {
          int h = i + k + 1 < q.size() ? hex_digit(q[i + k]) : -1;
          if (h < 0) throw bad(fmt::format("\\{} needs {} hex digits", e, digits));
          value = value * 16 + static_cast<std::uint32_t>(h);
        }
        i += digits;
        if (e == 'x') {
          out += static_cast<char>(static_cast<unsigned char>(value));
        } else if (value > 0x10FFFF || (value >= 0xD800 && value <= 0xDFFF)) {
          throw bad(fmt::format("\\{}{:0{}X} is not a Unicode character", e, value, digits));
        } else {
          append_utf8(out, value);
        }
        break;
      }
      default: throw bad(std::string("unknown escape \\") + e);
    }
  }
  return out;
}

std::vector<std::string> split(const std::string& s, char sep) {
  std::vector<std::string> out;
  std::istringstream in(s);
  for (std::string part; std::getline(in, part, sep);) {
    while (!part.empty() && part.front() == ' ') part.erase(part.begin());
    while (!part.empty() && part.back() == ' ') part.pop_back();
    if (!part.empty()) out.push_back(part);
  }
  return out;
}

// Reads one manager file: "absent" when it does not exist (unless the user named it), "malformed"
// with a warning when parse throws. Returns the text when it was read.
std::optional<std::string> read_manager_file(ManagerFile& file, const std::string& option,
                                             const ManagersOptions& opt, const std::string& fix) {
  bool given = std::find(opt.given.begin(), opt.given.end(), option) != opt.given.end();
  std::error_code ec;
  if (!fs::exists(file.path, ec)) {
    if (given) throw InputError(option + " " + file.path + ": no such file; give the path of the file, or leave the option out");
    return std::nullopt;
  }
  try {
    return read_input_file(file.path, fix, kMaxConfigBytes);
  } catch (const InputError& e) {  // not a regular file, too large, not UTF-8: the rest is still usable
    file.status = "malformed";
    file.detail = e.what();
    return std::nullopt;
  }
}

template <typename Parse>
void parse_into(ManagerFile& file, const std::optional<std::string>& text, Parse parse, const std::string& fix,
                std::vector<std::string>& warnings) {
  if (!text) {
    if (file.status == "malformed") warnings.push_back(file.detail);
    return;
  }
  try {
    parse(*text);
    file.status = "read";
  } catch (const std::exception& e) {  // the parsers' std::invalid_argument, and any JSON type error
    file.status = "malformed";
    file.detail = one_line_message(file.path + ": " + e.what() + "; " + fix);
    warnings.push_back(file.detail);
  }
}

std::string uid_from_cgroup(const std::string& proc_dir) {
  std::optional<std::string> text = hostpipe::read_proc_text(proc_dir + "/cgroup", hostpipe::kMaxProcTextBytes);
  if (!text) return "";
  static const std::regex kPod("pod([0-9a-f]{8}[-_][0-9a-f]{4}[-_][0-9a-f]{4}[-_][0-9a-f]{4}[-_][0-9a-f]{12})");
  std::smatch m;
  if (!std::regex_search(*text, m, kPod)) return "";
  std::string uid = m[1];
  std::replace(uid.begin(), uid.end(), '_', '-');
  return uid;
}

std::string env_or(const std::string& value, const char* name) {
  if (!value.empty()) return value;
  const char* v = std::getenv(name);
  return v ? hostpipe::valid_utf8(v) : "";
}

// The audited process's pod: POD_NAME, POD_NAMESPACE, POD_UID and CONTAINER_NAME are placebench's own (the
// downward API's, on the container that audits its own pod's process: scripts/k8s/audit-pod.yaml), --pod-uid
// and --container first; the UID else from the process's cgroup path. When that path names another pod than
// POD_UID, placebench's variables and downward API files describe its own pod, not the process's: the name,
// namespace, container, annotations and labels are then unknown (a warning), and the UID is the cgroup's.
void identify_pod(const ManagersOptions& opt, int pid, PodIdentity& pod, std::vector<std::string>& warnings) {
  pod.name = env_or("", "POD_NAME");
  pod.namespace_name = env_or("", "POD_NAMESPACE");
  pod.uid = env_or(opt.pod_uid, "POD_UID");
  pod.container = env_or(opt.container, "CONTAINER_NAME");
  const std::string cgroup_uid = uid_from_cgroup(hostpipe::proc_dir(pid, opt.proc_root));
  if (pod.uid.empty()) pod.uid = cgroup_uid;
  if (pid == 0 || cgroup_uid.empty() || !opt.pod_uid.empty() || pod.uid == cgroup_uid) return;
  warnings.push_back(fmt::format(
      "process {} is in pod {} (its cgroup path), and POD_UID names pod {}: POD_NAME, POD_NAMESPACE, CONTAINER_NAME and "
      "the downward API files are this pod's, so the process's pod is judged by its UID alone; run the audit in the "
      "process's own pod (scripts/k8s/audit-pod.yaml), or give --pod-uid and --container", pid, cgroup_uid, pod.uid));
  pod.uid = cgroup_uid;
  pod.name.clear();
  pod.namespace_name.clear();
  if (opt.container.empty()) pod.container.clear();
  pod.annotations.clear();
  pod.labels.clear();
}

MemoryManagerState memory_state_of(const std::string& text) {
  json root = parse_json(text);
  MemoryManagerState s;
  s.policy = string_at(member(root, "policyName", "top level"), "policyName");
  auto blocks = [](const json& v, const std::string& where) {
    if (!v.is_array()) throw std::invalid_argument(where + ": expected a list of memory blocks");
    std::vector<int> nodes;
    for (std::size_t i = 0; i < v.size(); ++i) {
      std::string at = fmt::format("{}[{}]", where, i);
      const json& affinity = member(v[i], "numaAffinity", at);
      if (!affinity.is_array()) throw std::invalid_argument(at + ".numaAffinity: expected a list of node ids");
      for (const json& n : affinity) {
        if (!n.is_number_integer()) throw std::invalid_argument(at + ".numaAffinity: expected node ids (integers)");
        bool in_range = n.is_number_unsigned() ? n.get<std::uint64_t>() <= std::uint64_t{kMaxNodeId}
                                               : n.get<std::int64_t>() >= 0 && n.get<std::int64_t>() <= kMaxNodeId;
        if (!in_range)
          throw std::invalid_argument(fmt::format("{}.numaAffinity: node id {} is not between 0 and {}", at, n.dump(), kMaxNodeId));
        nodes.push_back(n.get<int>());
      }
    }
    std::sort(nodes.begin(), nodes.end());
    nodes.erase(std::unique(nodes.begin(), nodes.end()), nodes.end());
    return nodes;
  };
  for_entries(root, "", blocks, s.entries);
  return s;
}

// Messages are one line: a key of the file may hold a newline ("entries.POD\nFAKE.main: ..."), so what a
// parser says passes through one_line_message (\n spelled out), as every message does.
template <typename Parse>
auto one_line_parse(Parse parse) {
  try {
    return parse();
  } catch (const std::invalid_argument& e) {
    throw std::invalid_argument(one_line_message(e.what()));
  }
}

}  // namespace

CpuManagerState parse_cpu_manager_state(const std::string& text) {
  return one_line_parse([&] {
    json root = parse_json(text);
    CpuManagerState s;
    s.policy = string_at(member(root, "policyName", "top level"), "policyName");
    if (root.contains("defaultCpuSet")) s.default_cpus = cpulist_at(root["defaultCpuSet"], "defaultCpuSet");
    for_entries(root, "", [](const json& v, const std::string& where) { return cpulist_at(v, where); }, s.entries);
    return s;
  });
}

MemoryManagerState parse_memory_manager_state(const std::string& text) {
  return one_line_parse([&] { return memory_state_of(text); });
}

std::map<std::string, std::string> parse_downward_api_file(const std::string& text) {
  // The audit's JSON must hold every key and value, so bytes that are not UTF-8 make the file malformed.
  if (std::optional<std::size_t> bad = hostpipe::invalid_utf8_at(text)) {
    std::size_t line = 1 + static_cast<std::size_t>(std::count(text.begin(), text.begin() + static_cast<long>(*bad), '\n'));
    throw std::invalid_argument(fmt::format("line {}: bytes that are not UTF-8", line));
  }
  std::map<std::string, std::string> out;
  std::istringstream in(text);
  std::size_t line_no = 0;
  for (std::string line; std::getline(in, line);) {
    ++line_no;
    if (line.empty()) continue;
    std::size_t eq = line.find('=');
    if (eq == std::string::npos || eq == 0)
      throw std::invalid_argument(fmt::format("line {}: expected key=\"value\"", line_no));
    out[line.substr(0, eq)] = unquote(line.substr(eq + 1), line_no);
  }
  return out;
}

HamiAnnotations read_hami_annotations(const std::map<std::string, std::string>& a) {
  HamiAnnotations h;
  auto get = [&](const char* key) {
    auto it = a.find(key);
    return it == a.end() ? std::string() : it->second;
  };
  // "UUID,type,memory MiB,cores:" per device, ";" between containers (HAMi pkg/device/devices.go).
  for (const std::string& container : split(get("hami.io/vgpu-devices-allocated"), ';')) {
    std::vector<std::string> uuids;
    for (const std::string& device : split(container, ':')) uuids.push_back(split(device, ',').empty() ? "" : split(device, ',').front());
    h.allocated.push_back(uuids);
  }
  h.use_uuids = split(get("nvidia.com/use-gpuuuid"), ',');
  h.nouse_uuids = split(get("nvidia.com/nouse-gpuuuid"), ',');
  std::string bind = get("nvidia.com/numa-bind");
  if (bind == "true" || bind == "1" || bind == "True") h.numa_bind = true;
  else if (bind == "false" || bind == "0" || bind == "False") h.numa_bind = false;
  h.numa_alignment = get("hami.io/numa-alignment");
  h.node = get("hami.io/vgpu-node");
  h.bind_phase = get("hami.io/bind-phase");
  return h;
}

// The container's DRA device metadata files: --dra-metadata, else the well-known directory (for --pid, as
// the audited process sees it, under /proc/PID/root).
static std::vector<DraGpu> read_dra_metadata(const ManagersOptions& opt, const AuditObservation& o, ManagersReport& r) {
  const bool given = std::find(opt.given.begin(), opt.given.end(), "--dra-metadata") != opt.given.end();
  std::string dir = opt.dra_metadata_dir;
  if (!given && o.pid != 0) dir = hostpipe::proc_dir(o.pid, opt.proc_root) + "/root" + kDraMetadataDir;
  std::error_code ec;
  if (given && !std::filesystem::is_directory(dir, ec))
    throw InputError("--dra-metadata " + dir + ": no such directory; give the DRA device metadata directory (" + kDraMetadataDir +
                     " in the container), or leave the option out");
  return read_dra_metadata_dir(dir, r.warnings, r.notes);
}

ManagersReport read_managers(const ManagersOptions& opt, const AuditObservation& o) {
  ManagersReport r;
  r.cpu.file.path = opt.cpu_manager_state;
  parse_into(r.cpu.file, read_manager_file(r.cpu.file, "--cpu-manager-state", opt, "give the kubelet's cpu_manager_state"),
             [&](const std::string& t) { ManagerFile f = r.cpu.file; r.cpu = parse_cpu_manager_state(t); r.cpu.file = f; },
             "the kubelet rewrites it at start; compare with /var/lib/kubelet/cpu_manager_state", r.warnings);
  r.memory.file.path = opt.memory_manager_state;
  parse_into(r.memory.file,
             read_manager_file(r.memory.file, "--memory-manager-state", opt, "give the kubelet's memory_manager_state"),
             [&](const std::string& t) { ManagerFile f = r.memory.file; r.memory = parse_memory_manager_state(t); r.memory.file = f; },
             "the kubelet rewrites it at start; compare with /var/lib/kubelet/memory_manager_state", r.warnings);
  {
    ManagerFile kubelet{opt.kubelet_config, "absent", ""};
    read_manager_file(kubelet, "--kubelet-config", opt, "give the kubelet's config.yaml");  // throws only if named and missing
    r.kubelet = hostpipe::sysmetrics::read_kubelet_policies(opt.kubelet_config);
    if (r.kubelet.status == "malformed" || r.kubelet.status == "unreadable")
      r.warnings.push_back(one_line_message(opt.kubelet_config + ": " + r.kubelet.detail +
                                            "; the Topology Manager policy is reported as unknown"));
  }
  r.pod.annotations_file.path = opt.annotations;
  parse_into(r.pod.annotations_file,
             read_manager_file(r.pod.annotations_file, "--annotations", opt, "give the downward API's annotations file"),
             [&](const std::string& t) { r.pod.annotations = parse_downward_api_file(t); },
             "mount metadata.annotations through a downwardAPI volume (scripts/k8s/audit-pod.yaml)", r.warnings);
  r.pod.labels_file.path = opt.labels;
  parse_into(r.pod.labels_file, read_manager_file(r.pod.labels_file, "--labels", opt, "give the downward API's labels file"),
             [&](const std::string& t) { r.pod.labels = parse_downward_api_file(t); },
             "mount metadata.labels through a downwardAPI volume (scripts/k8s/audit-pod.yaml)", r.warnings);
  identify_pod(opt, o.pid, r.pod, r.warnings);
  r.pod_resources = read_pod_resources(opt, r.pod);
  if (!opt.dra_file.empty())
    r.dra = parse_dra_records(read_input_file(opt.dra_file, "give `kubectl get resourceclaims,resourceslices -A -o json` output",
                                              kMaxResultsBytes), opt.dra_file);
  merge_dra_records(r.dra, read_dra_metadata(opt, o, r));
  if (r.pod_resources.status == "read") r.assignment_source = "PodResources API";
  else if (r.cpu.file.status == "read" || r.memory.file.status == "read") r.assignment_source = "state files";
  r.hami = read_hami_annotations(r.pod.annotations);
  for (const char* key : {"scheduling.k8s.io/group-name", "scheduling.x-k8s.io/pod-group", "pod-group.scheduling.sigs.k8s.io"}) {
    for (const auto* m : {&r.pod.annotations, &r.pod.labels}) {
      auto it = m->find(key);
      if (it != m->end() && r.pod_group.empty()) {
        r.pod_group = it->second;
        r.pod_group_key = key;
      }
    }
  }
  return r;
}

}  // namespace placebench::harness
