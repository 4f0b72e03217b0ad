// Test hooks of the collectives (environment variables the integration tests set; nothing else reads them).
#pragma once

namespace placebench::collectives::detail {

// The rank PLACEBENCH_TEST_PID_RANK writes its pid to PLACEBENCH_TEST_PID_FILE (written whole, then
// renamed into place) when its collectives or its gang start, so that a test can freeze it with
// kill -STOP in the middle of the work (tests/mpi/stall_mpi_test.cpp). With PLACEBENCH_TEST_STOP_SELF=1
// it then stops itself (SIGSTOP) right there, to freeze at a known point.
void write_test_pid_file(int rank);

}  // namespace placebench::collectives::detail
