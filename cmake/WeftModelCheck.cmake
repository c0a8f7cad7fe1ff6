# WeftModelCheck.cmake - the test weft_add_model() adds for each VARIANTS
# entry (WeftModel.cmake; installed beside it): the variant's verdict is
# the one its registry promises. Run as
#
#   cmake -DPROG=path/to/prog -DVARIANT=scenario:variant
#         [-DARGS="--strategy dfs;--bound;2"] -P WeftModelCheck.cmake
#
# `prog list --json` says whether the variant is a bug or a fix
# ("expect"); `prog run VARIANT ARGS` must then exit 1 with the bug's kind
# (a bug variant) or 0 (a fix). The failure message says which and shows
# the run's output.
cmake_minimum_required(VERSION 3.18)
if(NOT PROG OR NOT VARIANT)
  message(FATAL_ERROR "usage: cmake -DPROG=prog -DVARIANT=scenario:variant [-DARGS=...] -P WeftModelCheck.cmake")
endif()
string(FIND "${VARIANT}" ":" _colon)
if(_colon LESS 1)
  message(FATAL_ERROR "weft model check: VARIANT '${VARIANT}' is not scenario:variant")
endif()
string(SUBSTRING "${VARIANT}" 0 ${_colon} _scenario)
math(EXPR _vstart "${_colon} + 1")
string(SUBSTRING "${VARIANT}" ${_vstart} -1 _variant)

execute_process(COMMAND ${PROG} list --json RESULT_VARIABLE _rc OUTPUT_VARIABLE _list
  ERROR_VARIABLE _err)
if(NOT _rc EQUAL 0)
  message(FATAL_ERROR "weft model check: '${PROG} list --json' exited ${_rc}:\n${_err}")
endif()
# one object a line: {"scenario": "S", "variant": "V", "expect": "bug"|"clean", ... "kind": "K"
# (found by position: the text is no CMake list, its brackets would group)
set(_expect)
set(_kind)
string(FIND "${_list}" "\"scenario\": \"${_scenario}\", \"variant\": \"${_variant}\"," _at)
if(_at GREATER -1)
  string(SUBSTRING "${_list}" ${_at} -1 _l)
  string(FIND "${_l}" "\n" _eol)
  string(SUBSTRING "${_l}" 0 ${_eol} _l)
  string(REGEX MATCH "\"expect\": \"([a-z]+)\"" _m "${_l}")
  set(_expect ${CMAKE_MATCH_1})
  string(REGEX MATCH "\"kind\": \"([a-z0-9-]+)\"" _m "${_l}")
  set(_kind ${CMAKE_MATCH_1})
endif()
if(NOT _expect)
  message(FATAL_ERROR "weft model check: ${PROG} has no variant ${VARIANT} ('${PROG} list' names its variants)")
endif()

execute_process(COMMAND ${PROG} run ${VARIANT} ${ARGS} --json RESULT_VARIABLE _rc
  OUTPUT_VARIABLE _out ERROR_VARIABLE _err)
string(REPLACE ";" " " _args "${ARGS}")
set(_cmd "${PROG} run ${VARIANT} ${_args}")
if(_expect STREQUAL "bug")
  if(NOT _rc EQUAL 1 OR NOT _out MATCHES "\"verdict\": \"bug\", \"kind\": \"${_kind}\"")
    message(FATAL_ERROR "weft model check: ${VARIANT} is a bug (${_kind}) but '${_cmd}' "
      "exited ${_rc} without finding it (a search too short: weft_add_model(CHECK_ARGS ...)):\n${_out}${_err}")
  endif()
  message(STATUS "${VARIANT}: the bug found (${_kind}), as expected")
else()
  if(NOT _rc EQUAL 0)
    message(FATAL_ERROR "weft model check: ${VARIANT} is a fix but '${_cmd}' exited ${_rc}:\n${_out}${_err}")
  endif()
  message(STATUS "${VARIANT}: clean, as expected")
endif()
