# Checks of PLACEBENCH_ENABLE_PCH (cmake/Targets.cmake), run by ctest (top-level CMakeLists.txt, label cmake):
#   cmake -DMODE=in-use -DBUILD_DIR=B -DSOURCE_DIR=S -DEXPECT=ON|OFF -DCOMPILER_ID=GNU|Clang [-DSKIPPED=a.cpp,b.cpp]
#         -P cmake/CheckPch.cmake
#     B's compile_commands.json: with EXPECT=ON every harness source and (clang) every placebench_add_tests
#     source but SKIPPED (placebench_skip_precompile_headers) is compiled with its precompiled
#     header; with OFF, no source is.
#   cmake -DMODE=ccache -DBUILD_DIR=B -DSOURCE_DIR=S -DCCACHE=/usr/bin/ccache -DGENERATOR=G -DCOMPILER=C++
#         -DC_COMPILER=CC -DCOMPILER_ID=GNU|Clang -P cmake/CheckPch.cmake
#     configures S in B/pch-ccache with ccache as the launcher: its compiles must carry the sloppiness
#     settings and -fpch-preprocess that ccache needs to cache sources that use a PCH.
cmake_minimum_required(VERSION 3.25)

if(MODE STREQUAL "in-use")
  file(STRINGS ${BUILD_DIR}/compile_commands.json _lines REGEX "^  \"(command|file)\": ")
  set(_command "")
  set(_missing "")
  set(_unexpected "")
  set(_checked 0)
  foreach(_line IN LISTS _lines)
    if(_line MATCHES "^  \"command\": ")
      set(_command "${_line}")
      continue()
    endif()
    string(REGEX REPLACE "^  \"file\": \"(.*)\",?$" "\\1" _file "${_line}")
    file(RELATIVE_PATH _rel ${SOURCE_DIR} ${_file})
    set(_pch "")
    if(_rel MATCHES "^harness/src/" OR _file MATCHES "/harness/(build_info|default_config)\\.cpp$")
      set(_pch placebench_harness_core.dir/cmake_pch.hxx)
    elseif(_rel MATCHES "^(stats|kernels|hostpipe|collectives|harness)/tests/[^/]+_test\\.cpp$"
           OR _rel MATCHES "^tests/(cli|golden)/[^/]+_test\\.cpp$")
      if(COMPILER_ID MATCHES "Clang")  # the tests' PCH is clang's only (cmake/Targets.cmake)
        set(_pch placebench_test_pch.dir/cmake_pch.hxx)
      endif()
    endif()
    string(REPLACE "," ";" _skipped "${SKIPPED}")
    if(_rel IN_LIST _skipped)
      set(_pch "")  # placebench_skip_precompile_headers
    endif()
    if(EXPECT AND _pch)
      math(EXPR _checked "${_checked} + 1")
      string(FIND "${_command}" "${_pch}" _at)
      if(_at EQUAL -1)
        list(APPEND _missing "${_rel} (wants ${_pch})")
      endif()
    elseif(NOT EXPECT AND _command MATCHES "cmake_pch\\.hxx")
      list(APPEND _unexpected "${_rel}")
    endif()
  endforeach()
  if(_missing)
    list(JOIN _missing "\n  " _list)
    message(FATAL_ERROR "PLACEBENCH_ENABLE_PCH=ON, but these sources are compiled without their precompiled "
                        "header:\n  ${_list}\nadd the target to placebench_precompile_headers (cmake/Targets.cmake)")
  endif()
  if(_unexpected)
    list(JOIN _unexpected "\n  " _list)
    message(FATAL_ERROR "PLACEBENCH_ENABLE_PCH=OFF, but these sources use a precompiled header:\n  ${_list}\n"
                        "every target_precompile_headers call goes through placebench_precompile_headers")
  endif()
  if(EXPECT AND _checked LESS 100)
    message(FATAL_ERROR "only ${_checked} sources of ${BUILD_DIR}/compile_commands.json should have a PCH "
                        "(at least the harness's 110 expected): is CMAKE_EXPORT_COMPILE_COMMANDS on?")
  endif()
  message(STATUS "precompiled headers ${EXPECT}: ${_checked} sources checked")
elseif(MODE STREQUAL "ccache")
  set(_dir ${BUILD_DIR}/pch-ccache)
  file(REMOVE_RECURSE ${_dir})
  execute_process(COMMAND ${CMAKE_COMMAND} -S ${SOURCE_DIR} -B ${_dir} -G ${GENERATOR} -DCMAKE_CXX_COMPILER=${COMPILER}
                          -DCMAKE_C_COMPILER=${C_COMPILER} -DCMAKE_CXX_COMPILER_LAUNCHER=${CCACHE}
                          -DPLACEBENCH_ENABLE_PCH=ON -DPLACEBENCH_ENABLE_TESTING=OFF -DPLACEBENCH_ENABLE_BENCHMARKS=OFF
                          -DPLACEBENCH_ENABLE_CUDA=OFF -DPLACEBENCH_ENABLE_NCCL=OFF -DPLACEBENCH_ENABLE_MPI=OFF
                          -DPLACEBENCH_ENABLE_INSTALL=OFF
                  RESULT_VARIABLE _rc OUTPUT_QUIET ERROR_VARIABLE _err)
  if(NOT _rc EQUAL 0)
    message(FATAL_ERROR "configuring ${_dir} failed:\n${_err}")
  endif()
  # The launcher is in the generator's build file (not in compile_commands.json), the flags in both.
  set(_rules ${_dir}/build.ninja)
  if(NOT EXISTS ${_rules})
    set(_rules ${_dir}/harness/CMakeFiles/placebench_harness_core.dir/build.make)
  endif()
  file(READ ${_rules} _build)
  file(READ ${_dir}/compile_commands.json _cc)
  file(REMOVE_RECURSE ${_dir})
  if(COMPILER_ID STREQUAL "GNU")
    set(_flag "-fpch-preprocess")
  else()
    set(_flag "-fno-pch-timestamp")
  endif()
  string(REGEX MATCH "\"command\": \"[^\"]*placebench_harness_core.dir/cmake_pch.hxx[^\"]*\"" _command "${_cc}")
  set(_sloppiness "CCACHE_SLOPPINESS=pch_defines,time_macros,include_file_mtime,include_file_ctime")
  string(FIND "${_build}" "${_sloppiness} ${CCACHE}" _at_launcher)
  string(FIND "${_command}" "${_flag}" _at_flag)
  if(_at_launcher EQUAL -1 OR _at_flag EQUAL -1 OR NOT _command)
    message(FATAL_ERROR "with ccache as the launcher, harness compiles lack '${_sloppiness} ${CCACHE}' (in ${_rules}) "
                        "or '${_flag}' (in: ${_command}): ccache would not cache the sources that use the PCH")
  endif()
  message(STATUS "ccache launcher: PCH sloppiness and -fpch-preprocess in place")
else()
  message(FATAL_ERROR "cmake/CheckPch.cmake: MODE must be in-use or ccache, not '${MODE}'")
endif()
