# Included by CTest after the GoogleTest discovery scripts of tests/mpi (list-valued properties cannot
# pass through gtest_discover_tests): Open MPI refuses to run as root without both variables.
set_tests_properties(${placebench_collective_mpi_test_TESTS} ${placebench_gang_mpi_test_TESTS}
                     ${placebench_stall_mpi_test_TESTS}
                     PROPERTIES ENVIRONMENT "OMPI_ALLOW_RUN_AS_ROOT=1;OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1")
if(placebench_nccl_gang_device_test_TESTS)
  set_tests_properties(${placebench_nccl_gang_device_test_TESTS}
                       PROPERTIES LABELS "mpi;device"
                                  ENVIRONMENT "OMPI_ALLOW_RUN_AS_ROOT=1;OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1;PLACEBENCH_REQUIRE_DEVICE=1")
endif()
