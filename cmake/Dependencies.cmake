# All dependencies of placebench are resolved here, and only here.
find_package(PkgConfig REQUIRED)
pkg_check_modules(HWLOC REQUIRED IMPORTED_TARGET hwloc>=2.0)
pkg_check_modules(TURBOJPEG REQUIRED IMPORTED_TARGET libturbojpeg)  # libturbojpeg0-dev: pipeline jpeg stage

find_library(NUMA_LIBRARY numa)
find_path(NUMA_INCLUDE_DIR numa.h)
if(NOT NUMA_LIBRARY OR NOT NUMA_INCLUDE_DIR)
  message(FATAL_ERROR "libnuma not found: install libnuma-dev (scripts/setup.sh does)")
endif()
add_library(placebench_numa INTERFACE)
target_link_libraries(placebench_numa INTERFACE ${NUMA_LIBRARY})
target_include_directories(placebench_numa INTERFACE ${NUMA_INCLUDE_DIR})
add_library(PB::numa ALIAS placebench_numa)

# SQLite (libsqlite3-dev): the results store of `placebench history`, linked to that layer only.
find_package(SQLite3)
if(NOT SQLite3_FOUND)
  message(FATAL_ERROR "SQLite 3 not found: install libsqlite3-dev (scripts/setup.sh does)")
endif()

find_package(Threads REQUIRED)
find_package(yaml-cpp REQUIRED)
find_package(nlohmann_json 3.9 REQUIRED)
find_package(CLI11 2.0 REQUIRED)
find_package(fmt REQUIRED)
find_package(spdlog REQUIRED)
if(PLACEBENCH_ENABLE_TESTING)
  find_package(GTest REQUIRED)
endif()
if(PLACEBENCH_ENABLE_BENCHMARKS)
  find_package(benchmark REQUIRED)
endif()

# --- MPI ---------------------------------------------------------------------------------------
set(PLACEBENCH_HAVE_MPI OFF)
if(NOT PLACEBENCH_ENABLE_MPI STREQUAL "OFF")
  if(PLACEBENCH_ENABLE_MPI STREQUAL "ON")
    find_package(MPI REQUIRED COMPONENTS C)
  else()
    find_package(MPI COMPONENTS C)
  endif()
  if(MPI_C_FOUND)
    set(PLACEBENCH_HAVE_MPI ON)
  endif()
endif()

# --- CUDA --------------------------------------------------------------------------------------
set(PLACEBENCH_HAVE_CUDA OFF)
if(NOT PLACEBENCH_ENABLE_CUDA STREQUAL "OFF")
  if(NOT CMAKE_CUDA_COMPILER AND EXISTS /usr/local/cuda/bin/nvcc)
    set(CMAKE_CUDA_COMPILER /usr/local/cuda/bin/nvcc)
  endif()
  include(CheckLanguage)
  check_language(CUDA)
  if(CMAKE_CUDA_COMPILER)
    enable_language(CUDA)
    # CMake 3.25 does not know nvcc 13's C++20 flag; kernels need no C++20 anyway.
    set(CMAKE_CUDA_STANDARD 17)
    set(CMAKE_CUDA_STANDARD_REQUIRED ON)
    # cudart is linked statically: the binary starts on nodes without a driver or toolkit.
    set(CMAKE_CUDA_RUNTIME_LIBRARY Static)
    find_package(CUDAToolkit REQUIRED)
    set(PLACEBENCH_HAVE_CUDA ON)
  elseif(PLACEBENCH_ENABLE_CUDA STREQUAL "ON")
    message(FATAL_ERROR "PLACEBENCH_ENABLE_CUDA=ON but no CUDA compiler was found: install the CUDA "
                        "toolkit (/usr/local/cuda) or set CMAKE_CUDA_COMPILER, or use AUTO/OFF")
  endif()
endif()

# --- NCCL (header at build time; libnccl.so.2 is dlopen'ed at run time, only by the NCCL backend) ---
set(PLACEBENCH_HAVE_NCCL OFF)
if(NOT PLACEBENCH_ENABLE_NCCL STREQUAL "OFF")
  list(APPEND CMAKE_MODULE_PATH ${CMAKE_CURRENT_LIST_DIR})
  find_package(NCCL)
  if(NCCL_FOUND AND PLACEBENCH_HAVE_CUDA)
    set(PLACEBENCH_HAVE_NCCL ON)
  elseif(PLACEBENCH_ENABLE_NCCL STREQUAL "ON")
    message(FATAL_ERROR "PLACEBENCH_ENABLE_NCCL=ON but NCCL (nccl.h + libnccl) or CUDA was not found: "
                        "set NCCL_HOME, install NCCL under the CUDA toolkit, or use AUTO/OFF")
  endif()
endif()

# --- gRPC + protobuf, for the kubelet's PodResources API client (podresources/) ---------------------
# Debian: libgrpc++-dev, libprotobuf-dev, protobuf-compiler, protobuf-compiler-grpc (scripts/setup.sh).
set(PLACEBENCH_HAVE_PODRESOURCES OFF)
if(NOT PLACEBENCH_ENABLE_PODRESOURCES STREQUAL "OFF")
  pkg_check_modules(GRPCPP IMPORTED_TARGET grpc++ protobuf)
  find_program(PLACEBENCH_PROTOC protoc)
  find_program(PLACEBENCH_GRPC_CPP_PLUGIN grpc_cpp_plugin)
  if(GRPCPP_FOUND AND PLACEBENCH_PROTOC AND PLACEBENCH_GRPC_CPP_PLUGIN)
    set(PLACEBENCH_HAVE_PODRESOURCES ON)
  elseif(PLACEBENCH_ENABLE_PODRESOURCES STREQUAL "ON")
    message(FATAL_ERROR "PLACEBENCH_ENABLE_PODRESOURCES=ON but gRPC was not found (grpc++ and protobuf for pkg-config, "
                        "protoc, grpc_cpp_plugin): apt-get install libgrpc++-dev libprotobuf-dev protobuf-compiler "
                        "protobuf-compiler-grpc, or use AUTO/OFF")
  endif()
endif()

# --- git revision, for results and --version -----------------------------------------------------
find_package(Git QUIET)
set(PLACEBENCH_GIT_REVISION "unknown")
if(GIT_FOUND AND EXISTS ${PROJECT_SOURCE_DIR}/.git)
  execute_process(COMMAND ${GIT_EXECUTABLE} describe --always --dirty --abbrev=12
                  WORKING_DIRECTORY ${PROJECT_SOURCE_DIR}
                  OUTPUT_VARIABLE _rev OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
  if(_rev)
    set(PLACEBENCH_GIT_REVISION "${_rev}")
  endif()
endif()
