# The include rules of docs/architecture.md ("Layers"), checked before a library is compiled
# (placebench_add_module, cmake/Targets.cmake), so that the build fails on an include that runs up:
#   cmake -DLIBRARY=NAME -DALLOWED="core;topology;..." -DFILES=a.cpp;b.h -DSTAMP=FILE -P cmake/CheckLayerIncludes.cmake
# Each FILE may include "placebench/harness/LAYER/..." only for a LAYER in ALLOWED, and a header directly
# under placebench/harness/ (the layer "core") only when core is in ALLOWED. kernels, hostpipe,
# collectives, stats and podresources are checked with ALLOWED empty: they include nothing of harness.
# Writes STAMP when every file keeps the rules; otherwise one line per include that breaks them, and fails.
cmake_minimum_required(VERSION 3.25)

if(NOT DEFINED LIBRARY OR NOT DEFINED FILES OR NOT DEFINED STAMP)
  message(FATAL_ERROR "cmake/CheckLayerIncludes.cmake: give -DLIBRARY, -DALLOWED, -DFILES and -DSTAMP")
endif()
string(REPLACE "," ";" _allowed "${ALLOWED}")
string(REPLACE "," ";" _files "${FILES}")
if(_allowed)
  list(JOIN _allowed ", " _may)
else()
  set(_may "nothing of placebench/harness")
endif()
set(_broken "")
foreach(_file IN LISTS _files)
  file(STRINGS "${_file}" _includes REGEX "^[ \t]*#[ \t]*include[ \t]*[\"<]placebench/harness/")
  foreach(_line IN LISTS _includes)
    string(REGEX REPLACE "^[ \t]*#[ \t]*include[ \t]*[\"<]placebench/harness/([^\">]*)[\">].*$" "\\1" _header "${_line}")
    if(_header MATCHES "^([A-Za-z0-9_]+)/")
      set(_layer ${CMAKE_MATCH_1})
    else()
      set(_layer core)
    endif()
    if(NOT _layer IN_LIST _allowed)
      if(DEFINED SOURCE_DIR)
        file(RELATIVE_PATH _shown ${SOURCE_DIR} ${_file})
      else()
        set(_shown ${_file})
      endif()
      string(CONCAT _msg "${_shown}: includes placebench/harness/${_header} (layer ${_layer}), above or beside "
                          "${LIBRARY}, which may include ${_may}. Move what it needs down a layer, or the file up "
                          "(docs/architecture.md#layers)")
      list(APPEND _broken "${_msg}")
    endif()
  endforeach()
endforeach()
if(_broken)
  list(JOIN _broken "\n" _text)
  message(NOTICE "${_text}")  # one line each, unwrapped
  list(LENGTH _broken _n)
  message(FATAL_ERROR "${LIBRARY}: ${_n} include(s) against the layers")
endif()
file(WRITE "${STAMP}" "")
