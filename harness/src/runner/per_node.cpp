// Node names and the one writer per node of `run --per-node` (see per_node.h).
#include "placebench/harness/runner/per_node.h"

#include <cstdlib>
#include <map>
#include <nlohmann/json.hpp>
#include <set>

#include "placebench/collectives/mpi_session.h"
#include "placebench/harness/errors.h"
#include "placebench/harness/evidence.h"

namespace placebench::harness {

std::string node_name() { return local_host_name(); }

int launcher_local_rank() {
  for (const char* var : {"OMPI_COMM_WORLD_LOCAL_RANK", "MPI_LOCALRANKID", "PMI_LOCAL_RANK", "PALS_LOCAL_RANKID", "SLURM_LOCALID"}) {
    const char* v = std::getenv(var);
    if (v && *v && std::string(v).find_first_not_of("0123456789") == std::string::npos && std::string(v).size() < 9)
      return std::atoi(v);
  }
  return -1;
}

std::vector<bool> node_writers(const std::vector<std::string>& names) {
  std::set<std::string> seen;
  std::vector<bool> out;
  for (const auto& n : names) out.push_back(seen.insert(n).second);
  return out;
}

int node_count(const std::vector<std::string>& names) {
  return static_cast<int>(std::set<std::string>(names.begin(), names.end()).size());
}

NodeRole assign_node_roles(collectives::MpiSession* session) {
  NodeRole role;
  role.node = node_name();
  if (!session || session->size() <= 1) return role;
  std::vector<std::string> names = session->gather_strings(role.node, 0);
  nlohmann::json roles;
  if (session->rank() == 0) {
    std::vector<bool> writers = node_writers(names);
    std::map<std::string, int> per_node;
    for (const auto& n : names) ++per_node[n];
    roles["nodes"] = node_count(names);
    roles["writers"] = nlohmann::json::array();
    roles["ranks_on_node"] = nlohmann::json::array();
    for (std::size_t r = 0; r < names.size(); ++r) {
      roles["writers"].push_back(static_cast<bool>(writers[r]));
      roles["ranks_on_node"].push_back(per_node[names[r]]);
    }
  }
  roles = nlohmann::json::parse(session->broadcast_string(session->rank() == 0 ? roles.dump() : "", 0));
  auto me = static_cast<std::size_t>(session->rank());
  role.writer = roles["writers"][me].get<bool>();
  role.nodes = roles["nodes"].get<int>();
  role.ranks_on_node = roles["ranks_on_node"][me].get<int>();
  return role;
}

}  // namespace placebench::harness
