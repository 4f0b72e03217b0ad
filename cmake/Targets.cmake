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

# placebench_add_module(NAME SOURCES ... [PUBLIC_DEPS ...] [PRIVATE_DEPS ...]): a static library
# placebench::NAME with include/ as its public headers. PUBLIC_DEPS are what those headers include:
# consumers compile against them too. PRIVATE_DEPS are what only the module's sources use: still linked
# into every executable (the library is static), but their headers and flags stay out of consumers.
function(placebench_add_module name)
  cmake_parse_arguments(ARG "" "" "SOURCES;PUBLIC_DEPS;PRIVATE_DEPS" ${ARGN})
  if(ARG_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR "placebench_add_module(${name}): unknown arguments '${ARG_UNPARSED_ARGUMENTS}'; "
                        "dependencies go in PUBLIC_DEPS (included by include/) or PRIVATE_DEPS (sources only)")
  endif()
  add_library(placebench_${name} STATIC ${ARG_SOURCES})
  add_library(placebench::${name} ALIAS placebench_${name})
  target_include_directories(placebench_${name} PUBLIC ${CMAKE_CURRENT_SOURCE_DIR}/include)
  target_link_libraries(placebench_${name} PUBLIC placebench_flags ${ARG_PUBLIC_DEPS} PRIVATE ${ARG_PRIVATE_DEPS})
  set_target_properties(placebench_${name} PROPERTIES POSITION_INDEPENDENT_CODE ON)
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
