# expect_user_error.cmake -- run a command that must fail with a user error.
#
# Usage: cmake -DCMD="prog;arg;..." -DREGEX="..." -P expect_user_error.cmake
# CMD is a CMake list (program and arguments). The check passes only if the command
# exits with status exactly 2 (INSDG_EXIT_USER), writes nothing on stdout, and writes
# exactly one non-empty line on stderr that matches REGEX. A crash, an abort (internal
# error), a success, extra output or a message on several lines all fail the test.
if(NOT DEFINED CMD OR NOT DEFINED REGEX)
  message(FATAL_ERROR "usage: cmake -DCMD=\"prog;args\" -DREGEX=\"...\" -P ${CMAKE_CURRENT_LIST_FILE}")
endif()

execute_process(COMMAND ${CMD}
                RESULT_VARIABLE status
                OUTPUT_VARIABLE out
                ERROR_VARIABLE err)

set(report "command: ${CMD}\nexit status: ${status}\nstdout: [${out}]\nstderr: [${err}]")
if(NOT status STREQUAL "2")
  message(FATAL_ERROR "expected exit status 2 (user error)\n${report}")
endif()
if(NOT out STREQUAL "")
  message(FATAL_ERROR "expected nothing on stdout\n${report}")
endif()
if(NOT err MATCHES "^[^\n]+\n$")
  message(FATAL_ERROR "expected exactly one non-empty line on stderr\n${report}")
endif()
if(NOT err MATCHES "${REGEX}")
  message(FATAL_ERROR "stderr does not match the expected message\nregex: ${REGEX}\n${report}")
endif()
message(STATUS "ok: ${err}")
