# Every build switch of placebench, in one place.
# AUTO: build the backend when its toolchain is found; ON: a configure error when it is not; OFF: never.
set(PLACEBENCH_ENABLE_CUDA AUTO CACHE STRING "Build the CUDA backend and kernels (AUTO/ON/OFF)")
set(PLACEBENCH_ENABLE_NCCL AUTO CACHE STRING "Build the NCCL collectives backend (AUTO/ON/OFF; needs CUDA)")
set(PLACEBENCH_ENABLE_MPI AUTO CACHE STRING "Build the MPI collectives backend and gang launcher (AUTO/ON/OFF)")
set(PLACEBENCH_ENABLE_PODRESOURCES AUTO CACHE STRING "Build the kubelet PodResources API client with gRPC (AUTO/ON/OFF)")
foreach(opt CUDA NCCL MPI PODRESOURCES)
  set_property(CACHE PLACEBENCH_ENABLE_${opt} PROPERTY STRINGS AUTO ON OFF)
  string(TOUPPER "${PLACEBENCH_ENABLE_${opt}}" _v)
  if(NOT _v MATCHES "^(AUTO|ON|OFF)$")
    message(FATAL_ERROR "PLACEBENCH_ENABLE_${opt}=${PLACEBENCH_ENABLE_${opt}}: use AUTO, ON or OFF")
  endif()
  set(PLACEBENCH_ENABLE_${opt} "${_v}" CACHE STRING "" FORCE)
endforeach()
option(PLACEBENCH_ENABLE_TESTING "Build the unit and integration tests" ${PLACEBENCH_TOPLEVEL})
option(PLACEBENCH_ENABLE_BENCHMARKS "Build placebench-micro (Google Benchmark)" ${PLACEBENCH_TOPLEVEL})
option(PLACEBENCH_ENABLE_DEVICE_TESTING "Register tests that need a real GPU" OFF)
option(PLACEBENCH_ENABLE_WERROR "Treat compiler warnings as errors, host and nvcc's host compiler (.ci/run turns it on)" OFF)
# Hardening builds (docs/testing.md). Sanitizers apply to every placebench target (libraries, tests, CLI):
# a list of address, undefined (e.g. "address;undefined"); UB stops the program (-fno-sanitize-recover).
set(PLACEBENCH_ENABLE_SANITIZERS "" CACHE STRING "Sanitizers for every target: a list of address, undefined (empty: none)")
foreach(_san IN LISTS PLACEBENCH_ENABLE_SANITIZERS)
  if(NOT _san MATCHES "^(address|undefined)$")
    message(FATAL_ERROR "PLACEBENCH_ENABLE_SANITIZERS=${PLACEBENCH_ENABLE_SANITIZERS}: '${_san}' is not one of "
                        "address, undefined; give a list such as \"address;undefined\"")
  endif()
endforeach()
# Fuzzing: tests/fuzz's targets as libFuzzer binaries, everything instrumented for coverage. Needs clang;
# without the option the same targets are plain executables that replay their inputs (label fuzz-regression).
option(PLACEBENCH_ENABLE_FUZZING "Build the fuzz targets with clang's libFuzzer (tests/fuzz; needs clang)" OFF)
if(PLACEBENCH_ENABLE_FUZZING)
  if(NOT CMAKE_CXX_COMPILER_ID MATCHES "Clang")
    message(FATAL_ERROR "PLACEBENCH_ENABLE_FUZZING=ON needs clang (libFuzzer), but the C++ compiler is "
                        "${CMAKE_CXX_COMPILER_ID} ${CMAKE_CXX_COMPILER}: configure a new build folder with "
                        "-DCMAKE_CXX_COMPILER=clang++ -DCMAKE_C_COMPILER=clang (apt: clang libclang-rt-14-dev), "
                        "or turn the option off")
  endif()
  if(NOT PLACEBENCH_ENABLE_SANITIZERS)
    set(PLACEBENCH_ENABLE_SANITIZERS "address;undefined" CACHE STRING "" FORCE)
    message(STATUS "PLACEBENCH_ENABLE_FUZZING: sanitizers address;undefined (PLACEBENCH_ENABLE_SANITIZERS)")
  endif()
endif()
# Precompiled headers for the heavy third-party headers (nlohmann/json, fmt, GoogleTest, <regex>, <filesystem>):
# the harness library's, and with clang one shared by every GoogleTest executable (cmake/Targets.cmake,
# docs/testing.md "Build time"). OFF compiles each header in every source.
option(PLACEBENCH_ENABLE_PCH "Precompile the heavy third-party headers (target_precompile_headers; clang builds)" ON)
# Only clang builds use them: with a PCH, gcc 12 at -O2 inlines differently and reports false -Warray-bounds
# on std::string concatenations (errors under -Werror), in the harness as in the tests (two fresh-clone CI
# runs found them). PLACEBENCH_USE_PCH is what the build does.
if(PLACEBENCH_ENABLE_PCH AND CMAKE_CXX_COMPILER_ID MATCHES "Clang")
  set(PLACEBENCH_USE_PCH ON)
else()
  set(PLACEBENCH_USE_PCH OFF)
endif()
# Debug information of the host code: full (what the build type gives: -g in RelWithDebInfo), lines (-g1:
# line tables and function names only, enough for backtraces, perf and addr2line) or none (-g0). The
# optimisation (-O2) is the build type's either way. scripts/setup.sh builds the operator's binary with
# "lines" (less compile and link CPU time; docs/performance.md "Build time of the first command");
# developers' and CI builds keep "full". C and C++ only: nvcc's few objects keep the build type's flags.
set(PLACEBENCH_DEBUG_INFO full CACHE STRING "Host debug information: full (build type's -g), lines (-g1) or none (-g0)")
set_property(CACHE PLACEBENCH_DEBUG_INFO PROPERTY STRINGS full lines none)
if(PLACEBENCH_DEBUG_INFO STREQUAL "lines")
  add_compile_options($<$<COMPILE_LANGUAGE:C,CXX>:-g1>)
elseif(PLACEBENCH_DEBUG_INFO STREQUAL "none")
  add_compile_options($<$<COMPILE_LANGUAGE:C,CXX>:-g0>)
elseif(NOT PLACEBENCH_DEBUG_INFO STREQUAL "full")
  message(FATAL_ERROR "PLACEBENCH_DEBUG_INFO=${PLACEBENCH_DEBUG_INFO}: use full, lines or none")
endif()
option(PLACEBENCH_ENABLE_NUMA_VM_TESTING "Register tests that boot a multi-NUMA QEMU guest (label numa-vm)" ON)

# CUDA architectures: SASS for Hopper (sm_90) plus compute_75 PTX as the portable JIT fallback.
# nvcc 13 accepts these; never "native" (build machines have no GPU).
if(NOT DEFINED CMAKE_CUDA_ARCHITECTURES)
  set(CMAKE_CUDA_ARCHITECTURES "90-real;75-virtual")
endif()
