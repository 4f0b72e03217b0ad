// run --per-node's node names and writers (per_node.h): one writer per node name, the lowest rank of it.
#include <gtest/gtest.h>

#include <cstdlib>

#include "placebench/harness/errors.h"
#include "placebench/harness/runner/per_node.h"

using namespace placebench::harness;

TEST(PerNode, TheLowestRankOfEachNodeWrites) {
  EXPECT_EQ(node_writers({"a", "a", "b", "a", "c", "b"}), (std::vector<bool>{true, false, true, false, true, false}));
  EXPECT_EQ(node_writers({"b", "a"}), (std::vector<bool>{true, true}));
  EXPECT_EQ(node_count({"a", "a", "b", "a", "c", "b"}), 3);
  EXPECT_EQ(node_count({"x"}), 1);
}

TEST(PerNode, NodeNameFromTheEnvironmentMustBePlain) {
  setenv("PLACEBENCH_HOST_NAME", "gpu-017.rack_2", 1);
  EXPECT_EQ(node_name(), "gpu-017.rack_2");
  for (const char* bad : {"", ".", "..", "a/b", "a b", "x\n"}) {
    setenv("PLACEBENCH_HOST_NAME", bad, 1);
    EXPECT_THROW(node_name(), InputError) << bad;
  }
  unsetenv("PLACEBENCH_HOST_NAME");
  EXPECT_FALSE(node_name().empty());
  // Without mpirun: this process alone, its node's writer.
  NodeRole alone = assign_node_roles(nullptr);
  EXPECT_TRUE(alone.writer);
  EXPECT_EQ(alone.nodes, 1);
}

TEST(PerNode, LauncherLocalRankIsReadInOrder) {
  for (const char* v : {"OMPI_COMM_WORLD_LOCAL_RANK", "MPI_LOCALRANKID", "PMI_LOCAL_RANK", "PALS_LOCAL_RANKID", "SLURM_LOCALID"})
    unsetenv(v);
  EXPECT_EQ(launcher_local_rank(), -1);
  setenv("SLURM_LOCALID", "3", 1);
  EXPECT_EQ(launcher_local_rank(), 3);
  setenv("OMPI_COMM_WORLD_LOCAL_RANK", "1", 1);
  EXPECT_EQ(launcher_local_rank(), 1);
  setenv("OMPI_COMM_WORLD_LOCAL_RANK", "x", 1);  // not a number: the next one
  EXPECT_EQ(launcher_local_rank(), 3);
  unsetenv("OMPI_COMM_WORLD_LOCAL_RANK");
  unsetenv("SLURM_LOCALID");
}
