# Install rules: `cmake --install BUILD [--prefix DIR]` gives a working placebench (docs/install.md):
#   bin/placebench, bin/placebench-micro (when built)
#   share/placebench/configs/                 the experiments and workload classes (configs/)
#   share/placebench/scripts/report.py        the HTML report, with its package placebench_report/,
#                                             pyproject.toml and requirements-report.txt
# `placebench report` looks for the report at ../share/placebench beside its own binary (then in the
# checkout above it; harness/src/cli/cmd_report.cpp). Included after the modules and bench/, so that the
# targets exist; the switch, PLACEBENCH_ENABLE_INSTALL, is set in the top-level CMakeLists.txt.
include(GNUInstallDirs)

set(PLACEBENCH_INSTALL_DATADIR ${CMAKE_INSTALL_DATADIR}/placebench)

# The binary finds share/placebench from its own directory: tell cmd_report.cpp the path from the
# installed bin directory to it, as GNUInstallDirs lays them out (../share/placebench by default).
file(RELATIVE_PATH _pb_home_from_bin ${CMAKE_INSTALL_FULL_BINDIR} ${CMAKE_INSTALL_FULL_DATADIR}/placebench)
set_property(SOURCE ${PROJECT_SOURCE_DIR}/harness/src/cli/cmd_report.cpp TARGET_DIRECTORY placebench_harness
             APPEND PROPERTY COMPILE_DEFINITIONS "PLACEBENCH_INSTALL_HOME_FROM_BIN=\"${_pb_home_from_bin}\"")

if(PLACEBENCH_ENABLE_INSTALL)
  install(TARGETS placebench RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
  if(TARGET placebench-micro)
    install(TARGETS placebench-micro RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
  endif()
  install(DIRECTORY ${PROJECT_SOURCE_DIR}/configs/ DESTINATION ${PLACEBENCH_INSTALL_DATADIR}/configs)
  install(PROGRAMS ${PROJECT_SOURCE_DIR}/scripts/report.py DESTINATION ${PLACEBENCH_INSTALL_DATADIR}/scripts)
  install(FILES ${PROJECT_SOURCE_DIR}/scripts/pyproject.toml ${PROJECT_SOURCE_DIR}/scripts/requirements-report.txt
          DESTINATION ${PLACEBENCH_INSTALL_DATADIR}/scripts)
  install(DIRECTORY ${PROJECT_SOURCE_DIR}/scripts/placebench_report DESTINATION ${PLACEBENCH_INSTALL_DATADIR}/scripts
          FILES_MATCHING PATTERN "*.py" PATTERN "__pycache__" EXCLUDE)
endif()
