// The per-node layout of `run --per-node`: every node of an mpirun/srun/MPIJob/Volcano job measures its
// node-local classes itself and writes its own run directory, <out>/<node>/<timestamp>-<node>/, while
// collective classes run across all ranks (and are recorded in every node's directory). One rank per node
// writes: the lowest rank of each node name, found by gathering every rank's node name (so it holds
// whatever the launcher sets, or fails to set, for the local rank).
#pragma once
#include <string>
#include <vector>

namespace placebench::collectives {
class MpiSession;
}

namespace placebench::harness {

// This process's node name for directory names: local_host_name() (evidence.h): PLACEBENCH_HOST_NAME when
// set (tests simulate several hosts on one machine with it; pods set it from spec.nodeName; nothing is
// measured differently), else PLACEBENCH_HOST_NAME_FILE's first line, else the host name. Throws InputError
// when the name is empty or not plain (letters, digits, '.', '-', '_'; not "." or "..").
std::string node_name();

// The rank within its node that the launcher gave this process (OMPI_COMM_WORLD_LOCAL_RANK, MPI_LOCALRANKID,
// PMI_LOCAL_RANK, PALS_LOCAL_RANKID, SLURM_LOCALID, in that order); -1 when none is set. Recorded, not relied on.
int launcher_local_rank();

// For every rank's node name (index = rank): whether that rank is its node's writer (the lowest rank
// of the name).
std::vector<bool> node_writers(const std::vector<std::string>& names);

// How many distinct node names.
int node_count(const std::vector<std::string>& names);

// Where this rank stands among the nodes of the job.
struct NodeRole {
  std::string node;   // node_name()
  bool writer = true; // the one rank of its node that measures node-local classes and writes
  int nodes = 1;      // nodes in the job
  int ranks_on_node = 1;
};

// Every rank's node name gathered on rank 0, the roles sent back (a collective call: every rank calls it).
// Without a session (no mpirun): this process alone, the writer of its node.
NodeRole assign_node_roles(collectives::MpiSession* session);

}  // namespace placebench::harness
