# Every build switch of placebench, in one place.
# AUTO: build the backend when its toolchain is found; ON: a configure error when it is not; OFF: never.
set(PLACEBENCH_ENABLE_CUDA AUTO CACHE STRING "Build the CUDA backend and kernels (AUTO/ON/OFF)")
set(PLACEBENCH_ENABLE_NCCL AUTO CACHE STRING "Build the NCCL collectives backend (AUTO/ON/OFF; needs CUDA)")
set(PLACEBENCH_ENABLE_MPI AUTO CACHE STRING "Build the MPI collectives backend and gang launcher (AUTO/ON/OFF)")
foreach(opt CUDA NCCL MPI)
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
option(PLACEBENCH_ENABLE_NUMA_VM_TESTING "Register tests that boot a multi-NUMA QEMU guest (label numa-vm)" ON)

# CUDA architectures: SASS for Hopper (sm_90) plus compute_75 PTX as the portable JIT fallback.
# nvcc 13 accepts these; never "native" (build machines have no GPU).
if(NOT DEFINED CMAKE_CUDA_ARCHITECTURES)
  set(CMAKE_CUDA_ARCHITECTURES "90-real;75-virtual")
endif()
