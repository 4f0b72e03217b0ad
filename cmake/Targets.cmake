# Helpers shared by the module CMakeLists: common flags, module libraries, tests.

# Portable x86-64 (no -march=native): binaries must run in the emulated test guest, which may lack AVX-512.
add_library(placebench_flags INTERFACE)
# Warnings: the same set for nvcc's host compiler, except -Wold-style-cast, which fires on the C-style
# casts of the stub code nvcc itself generates (*.cudafe1.stub.c), not on ours.
target_compile_options(placebench_flags INTERFACE
  $<$<COMPILE_LANGUAGE:CXX>:-Wall -Wextra -Wpedantic -Wshadow -Wconversion -Wold-style-cast -Woverloaded-virtual>
  $<$<COMPILE_LANGUAGE:CUDA>:-Xcompiler=-Wall,-Wextra,-Wshadow,-Wconversion,-Woverloaded-virtual>
  $<$<AND:$<BOOL:${PLACEBENCH_ENABLE_WERROR}>,$<COMPILE_LANGUAGE:CXX>>:-Werror>
  $<$<AND:$<BOOL:${PLACEBENCH_ENABLE_WERROR}>,$<COMPILE_LANGUAGE:CUDA>>:-Xcompiler=-Werror --Werror=all-warnings>
  $<$<AND:$<COMPILE_LANGUAGE:CXX>,$<STREQUAL:${CMAKE_SYSTEM_PROCESSOR},x86_64>>:-march=x86-64-v2>)
# PLACEBENCH_ENABLE_SANITIZERS / _FUZZING (cmake/Options.cmake): host code only (nvcc is off in those builds).
if(PLACEBENCH_ENABLE_SANITIZERS)
  list(JOIN PLACEBENCH_ENABLE_SANITIZERS "," _sanitizers)
  set(_sanitize_flags -fsanitize=${_sanitizers} -fno-omit-frame-pointer)
  if("undefined" IN_LIST PLACEBENCH_ENABLE_SANITIZERS)
    list(APPEND _sanitize_flags -fno-sanitize-recover=undefined)
  endif()
  target_compile_options(placebench_flags INTERFACE $<$<COMPILE_LANGUAGE:C,CXX>:${_sanitize_flags}>)
  target_link_options(placebench_flags INTERFACE ${_sanitize_flags})
  # hwloc dlopens its PCI plugin, which loads libpciaccess, and unloads both when the last topology is
  # destroyed: libpciaccess's global state then looks leaked to LSan, allocated from frames of an unloaded
  # module that no suppression can name (tests/sanitizers/lsan.supp). Linked in, it stays loaded and reachable.
  find_library(PLACEBENCH_PCIACCESS_LIBRARY NAMES pciaccess libpciaccess.so.0)
  if(PLACEBENCH_PCIACCESS_LIBRARY)
    target_link_options(placebench_flags INTERFACE LINKER:--no-as-needed ${PLACEBENCH_PCIACCESS_LIBRARY} LINKER:--as-needed)
  endif()
endif()
if(PLACEBENCH_ENABLE_FUZZING)
  # Coverage for libFuzzer in every library; only the fuzz targets link libFuzzer itself (-fsanitize=fuzzer).
  target_compile_options(placebench_flags INTERFACE $<$<COMPILE_LANGUAGE:C,CXX>:-fsanitize=fuzzer-no-link>)
endif()
target_compile_definitions(placebench_flags INTERFACE
  PLACEBENCH_HAVE_CUDA=$<BOOL:${PLACEBENCH_HAVE_CUDA}>
  PLACEBENCH_HAVE_NCCL=$<BOOL:${PLACEBENCH_HAVE_NCCL}>
  PLACEBENCH_HAVE_MPI=$<BOOL:${PLACEBENCH_HAVE_MPI}>
  OMPI_SKIP_MPICXX MPICH_SKIP_MPICXX)

# Precompiled headers (PLACEBENCH_ENABLE_PCH, cmake/Options.cmake). A PCH is valid only for sources compiled
# with the same flags and macros (gcc warns through -Winvalid-pch, an error with -Werror; clang refuses it), so
# each library has its own and the GoogleTest executables, which all compile alike, share one.
# placebench_precompile_headers(TARGET HEADER...): TARGET's sources get HEADER... precompiled.
function(placebench_precompile_headers target)
  if(PLACEBENCH_USE_PCH)
    target_precompile_headers(${target} PRIVATE ${ARGN})
  endif()
endfunction()
# placebench_skip_precompile_headers(SOURCE...): SOURCE... (relative to the calling directory) are compiled
# without their target's PCH, e.g. where the headers it brings change what a call means; build_pch_in_use
# (cmake/CheckPch.cmake) expects every other source of the PCH targets to have it.
function(placebench_skip_precompile_headers)
  set_source_files_properties(${ARGN} PROPERTIES SKIP_PRECOMPILE_HEADERS ON)
  foreach(_src IN LISTS ARGN)
    file(RELATIVE_PATH _rel ${PROJECT_SOURCE_DIR} ${CMAKE_CURRENT_SOURCE_DIR}/${_src})
    set_property(GLOBAL APPEND PROPERTY PLACEBENCH_PCH_SKIPPED ${_rel})
  endforeach()
endfunction()
# ccache caches sources that use a PCH only with these sloppiness settings and, for gcc, -fpch-preprocess
# (ccache manual, "Precompiled headers"); without them every such source is a cache miss. When the compiler
# launcher is ccache, it is started with them (this build only: the CCACHE_SLOPPINESS of the environment is replaced).
if(PLACEBENCH_USE_PCH)
  foreach(_lang C CXX)
    set(_launcher "")
    if(CMAKE_${_lang}_COMPILER_LAUNCHER)
      list(GET CMAKE_${_lang}_COMPILER_LAUNCHER 0 _launcher)
    endif()
    if(_launcher MATCHES "(^|/)ccache$")
      set(CMAKE_${_lang}_COMPILER_LAUNCHER ${CMAKE_COMMAND} -E env
          CCACHE_SLOPPINESS=pch_defines,time_macros,include_file_mtime,include_file_ctime ${CMAKE_${_lang}_COMPILER_LAUNCHER})
      set(_ccache_pch ON)
    endif()
  endforeach()
  if(_ccache_pch AND CMAKE_CXX_COMPILER_ID STREQUAL "GNU")
    target_compile_options(placebench_flags INTERFACE $<$<COMPILE_LANGUAGE:C,CXX>:-fpch-preprocess>)
  elseif(_ccache_pch AND CMAKE_CXX_COMPILER_ID MATCHES "Clang")
    target_compile_options(placebench_flags INTERFACE "$<$<COMPILE_LANGUAGE:C,CXX>:SHELL:-Xclang -fno-pch-timestamp>")
  endif()
endif()
# The GoogleTest executables' headers, precompiled once in placebench_test_pch (an object library with the
# tests' flags and macros, and an empty source) and reused by every placebench_add_tests target.
set(PLACEBENCH_TEST_PCH_HEADERS <gtest/gtest.h> <nlohmann/json.hpp> <algorithm> <chrono> <filesystem> <fstream>
    <map> <regex> <sstream> <string> <thread> <vector>)
# clang only (the sanitize build): with it, gcc 12 at -O2 inlines differently and reports false
# -Warray-bounds on string concatenations in several tests (errors with -Werror).
function(_placebench_test_pch target)
  if(NOT PLACEBENCH_USE_PCH)
    return()
  endif()
  if(NOT TARGET placebench_test_pch)
    file(CONFIGURE OUTPUT ${PROJECT_BINARY_DIR}/placebench_test_pch.cpp
         CONTENT "// Anchor of the tests' precompiled header (cmake/Targets.cmake).\n")
    add_library(placebench_test_pch OBJECT ${PROJECT_BINARY_DIR}/placebench_test_pch.cpp)
    target_link_libraries(placebench_test_pch PRIVATE placebench_flags nlohmann_json::nlohmann_json GTest::gtest)
    target_compile_definitions(placebench_test_pch PRIVATE
      PLACEBENCH_SOURCE_DIR="${PROJECT_SOURCE_DIR}"
      PLACEBENCH_BINARY_DIR="${PROJECT_BINARY_DIR}")
    target_precompile_headers(placebench_test_pch PRIVATE ${PLACEBENCH_TEST_PCH_HEADERS})
  endif()
  target_precompile_headers(${target} REUSE_FROM placebench_test_pch)
endfunction()

# placebench_add_module(NAME SOURCES ... [PUBLIC_DEPS ...] [PRIVATE_DEPS ...] [HEADERS ...] [LAYERS ...]):
# a static library placebench::NAME with include/ as its public headers. PUBLIC_DEPS are what those headers
# include: consumers compile against them too. PRIVATE_DEPS are what only the module's sources use: still
# linked into every executable (the library is static), but their headers and flags stay out of consumers.
# Before it compiles, its SOURCES and HEADERS (default: every header under include/ and src/) are checked
# against the layers of harness (cmake/CheckLayerIncludes.cmake): they may include placebench/harness/L/
# only for an L in LAYERS; a module outside harness gives none, and includes nothing of harness.
function(placebench_add_module name)
  cmake_parse_arguments(ARG "" "" "SOURCES;PUBLIC_DEPS;PRIVATE_DEPS;HEADERS;LAYERS" ${ARGN})
  if(ARG_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR "placebench_add_module(${name}): unknown arguments '${ARG_UNPARSED_ARGUMENTS}'; "
                        "dependencies go in PUBLIC_DEPS (included by include/) or PRIVATE_DEPS (sources only)")
  endif()
  add_library(placebench_${name} STATIC ${ARG_SOURCES})
  add_library(placebench::${name} ALIAS placebench_${name})
  target_include_directories(placebench_${name} PUBLIC ${CMAKE_CURRENT_SOURCE_DIR}/include)
  target_link_libraries(placebench_${name} PUBLIC placebench_flags ${ARG_PUBLIC_DEPS} PRIVATE ${ARG_PRIVATE_DEPS})
  set_target_properties(placebench_${name} PROPERTIES POSITION_INDEPENDENT_CODE ON)
  if(NOT ARG_HEADERS)
    file(GLOB_RECURSE ARG_HEADERS CONFIGURE_DEPENDS ${CMAKE_CURRENT_SOURCE_DIR}/include/*.h
         ${CMAKE_CURRENT_SOURCE_DIR}/src/*.h ${CMAKE_CURRENT_SOURCE_DIR}/src/*.cuh)
  endif()
  set(_checked "")
  foreach(_f IN LISTS ARG_SOURCES ARG_HEADERS)
    if(EXISTS ${_f} AND NOT _f MATCHES "^${PROJECT_BINARY_DIR}/")
      list(APPEND _checked ${_f})
    endif()
  endforeach()
  string(REPLACE ";" "," _files "${_checked}")
  string(REPLACE ";" "," _layers "${ARG_LAYERS}")
  set(_stamp ${CMAKE_CURRENT_BINARY_DIR}/placebench_${name}.layers.stamp)
  add_custom_command(OUTPUT ${_stamp}
    COMMAND ${CMAKE_COMMAND} -DLIBRARY=placebench_${name} "-DALLOWED=${_layers}" "-DFILES=${_files}"
            -DSOURCE_DIR=${PROJECT_SOURCE_DIR} -DSTAMP=${_stamp} -P ${PROJECT_SOURCE_DIR}/cmake/CheckLayerIncludes.cmake
    DEPENDS ${_checked} ${PROJECT_SOURCE_DIR}/cmake/CheckLayerIncludes.cmake
    COMMENT "Checking the includes of placebench_${name} against its layers" VERBATIM)
  add_custom_target(placebench_${name}_layers DEPENDS ${_stamp})
  add_dependencies(placebench_${name} placebench_${name}_layers)
endfunction()

# placebench_add_layer(NAME [BELOW ...] [TARGET T] [SOURCES ...]): one layer of harness (docs/architecture.md,
# "Layers"): the library placebench::harness_NAME (or placebench::T) of harness/src/NAME/*.cpp and the headers
# of include/placebench/harness/NAME/ and src/NAME/, linked to the layers BELOW it. It may include its own
# headers, core's (placebench/harness/*.h) and those of every layer below it, directly or not; the check
# fails the build on any other. Every layer compiles with the same flags and dependencies, so they share
# core's precompiled header. Layers are declared bottom up.
function(placebench_add_layer name)
  cmake_parse_arguments(ARG "" "TARGET" "BELOW;SOURCES" ${ARGN})
  set(_target harness_${name})
  if(ARG_TARGET)
    set(_target ${ARG_TARGET})
  endif()
  set(_dir ${CMAKE_CURRENT_SOURCE_DIR})
  if(name STREQUAL "core")
    file(GLOB _sources CONFIGURE_DEPENDS ${_dir}/src/*.cpp)
    file(GLOB _headers CONFIGURE_DEPENDS ${_dir}/include/placebench/harness/*.h ${_dir}/src/*.h)
  else()
    file(GLOB _sources CONFIGURE_DEPENDS ${_dir}/src/${name}/*.cpp)
    file(GLOB _headers CONFIGURE_DEPENDS ${_dir}/include/placebench/harness/${name}/*.h ${_dir}/src/${name}/*.h)
  endif()
  set(_allowed ${name} core)
  set(_below "")
  foreach(_b IN LISTS ARG_BELOW)
    get_property(_b_allowed GLOBAL PROPERTY PLACEBENCH_LAYER_${_b})
    if(NOT _b_allowed)
      message(FATAL_ERROR "placebench_add_layer(${name}): layer '${_b}' below it is not declared yet; declare layers bottom up")
    endif()
    list(APPEND _allowed ${_b_allowed})
    get_property(_b_target GLOBAL PROPERTY PLACEBENCH_LAYER_TARGET_${_b})
    list(APPEND _below placebench::${_b_target})
  endforeach()
  list(REMOVE_DUPLICATES _allowed)
  set_property(GLOBAL PROPERTY PLACEBENCH_LAYER_${name} ${_allowed})
  set_property(GLOBAL PROPERTY PLACEBENCH_LAYER_TARGET_${name} ${_target})
  placebench_add_module(${_target} SOURCES ${_sources} ${ARG_SOURCES} HEADERS ${_headers} LAYERS ${_allowed}
    PUBLIC_DEPS ${_below} ${PLACEBENCH_HARNESS_PUBLIC_DEPS} PRIVATE_DEPS ${PLACEBENCH_HARNESS_PRIVATE_DEPS})
  if(name STREQUAL "core")
    placebench_precompile_headers(placebench_${_target} ${PLACEBENCH_HARNESS_PCH_HEADERS})
  elseif(PLACEBENCH_USE_PCH)
    target_precompile_headers(placebench_${_target} REUSE_FROM placebench_harness_core)
  endif()
endfunction()

# placebench_add_tests(DIR LIBS ... [LABELS ...]): one GoogleTest executable per DIR/*_test.cpp,
# each registered with CTest, the source directory as working directory.
function(placebench_add_tests dir)
  cmake_parse_arguments(ARG "" "" "LIBS;LABELS" ${ARGN})
  if(NOT PLACEBENCH_ENABLE_TESTING)
    return()
  endif()
  include(GoogleTest)
  file(GLOB _tests CONFIGURE_DEPENDS ${dir}/*_test.cpp)
  # *_device_test.cpp need a real GPU: registered only with PLACEBENCH_ENABLE_DEVICE_TESTING, where a
  # missing device is a failure (PLACEBENCH_REQUIRE_DEVICE=1), not a skip.
  list(FILTER _tests EXCLUDE REGEX "_device_test\\.cpp$")
  if(PLACEBENCH_ENABLE_DEVICE_TESTING)
    file(GLOB _device_tests CONFIGURE_DEPENDS ${dir}/*_device_test.cpp)
  endif()
  foreach(src IN LISTS _tests _device_tests)
    get_filename_component(_name ${src} NAME_WE)
    set(_target ${PROJECT_NAME}_${_name})
    add_executable(${_target} ${src})
    # A module's own tests (no LABELS) make the target placebench_unit_tests (tests/CMakeLists.txt): what the
    # sanitizer stage builds.
    if(NOT ARG_LABELS)
      set_property(GLOBAL APPEND PROPERTY PLACEBENCH_UNIT_TEST_TARGETS ${_target})
    endif()
    target_link_libraries(${_target} PRIVATE ${ARG_LIBS} GTest::gtest GTest::gtest_main)
    target_include_directories(${_target} PRIVATE ${PROJECT_SOURCE_DIR}/tests/support)
    target_compile_definitions(${_target} PRIVATE
      PLACEBENCH_SOURCE_DIR="${PROJECT_SOURCE_DIR}"
      PLACEBENCH_BINARY_DIR="${PROJECT_BINARY_DIR}")
    _placebench_test_pch(${_target})
    if(src MATCHES "_device_test\\.cpp$")
      gtest_discover_tests(${_target} WORKING_DIRECTORY ${PROJECT_SOURCE_DIR} DISCOVERY_MODE PRE_TEST
                           PROPERTIES LABELS "device;${ARG_LABELS}" ENVIRONMENT PLACEBENCH_REQUIRE_DEVICE=1)
    else()
      gtest_discover_tests(${_target} WORKING_DIRECTORY ${PROJECT_SOURCE_DIR}
                           DISCOVERY_MODE PRE_TEST PROPERTIES LABELS "unit;${ARG_LABELS}")
    endif()
  endforeach()
endfunction()
