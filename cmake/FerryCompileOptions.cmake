# Warnings-as-errors apply to project targets only, never to generated protobuf code.
# -Wmissing-field-initializers is off because GCC 12 fires it on designated initializers that
# rely on member defaults, the intended way to fill Ferry's options structs.
# Under clang (the fuzz tree), -Wthread-safety checks the locking that thread_annotations.h
# declares.
function(ferry_project_target target)
  target_compile_options(${target} PRIVATE -Wall -Wextra -Werror -Wno-missing-field-initializers)
  if(CMAKE_CXX_COMPILER_ID MATCHES "Clang")
    target_compile_options(${target} PRIVATE -Wthread-safety)
  endif()
endfunction()

set(FERRY_SANITIZE "" CACHE STRING "Sanitizers: '', 'address' (ASan+UBSan) or 'thread' (TSan)")
# The fuzzers (tests/fuzz) run under ASan+UBSan, with libFuzzer's coverage in every object
# (-fsanitize=fuzzer-no-link): only the fuzzers' own executables link libFuzzer's main.
if(FERRY_BUILD_FUZZERS)
  if(NOT CMAKE_CXX_COMPILER_ID STREQUAL "Clang")
    message(FATAL_ERROR "FERRY_BUILD_FUZZERS needs clang for libFuzzer; configure a build tree "
                        "of its own with -DCMAKE_CXX_COMPILER=clang++ (got ${CMAKE_CXX_COMPILER_ID})")
  endif()
  if(NOT FERRY_BUILD_TESTS)
    message(FATAL_ERROR "FERRY_BUILD_FUZZERS needs FERRY_BUILD_TESTS=ON: the fuzzers share the "
                        "tests' support code and protos")
  endif()
  if(NOT FERRY_SANITIZE STREQUAL "")
    message(FATAL_ERROR "FERRY_BUILD_FUZZERS brings ASan+UBSan itself: leave FERRY_SANITIZE empty "
                        "(got '${FERRY_SANITIZE}')")
  endif()
  # Copied under a name holding its hash, so that an edit changes the command line: ccache does
  # not hash the list's content.
  set(ignorelist ${CMAKE_CURRENT_LIST_DIR}/sanitizer-ignorelist.txt)
  set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${ignorelist})
  file(MD5 ${ignorelist} ignorelist_hash)
  set(ignorelist_copy ${CMAKE_BINARY_DIR}/sanitizer-ignorelist-${ignorelist_hash}.txt)
  configure_file(${ignorelist} ${ignorelist_copy} COPYONLY)
  add_compile_options(-fsanitize=fuzzer-no-link -fsanitize-ignorelist=${ignorelist_copy})
endif()
if(FERRY_SANITIZE STREQUAL "address" OR FERRY_BUILD_FUZZERS)
  add_compile_options(-fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined)
  add_link_options(-fsanitize=address,undefined)
elseif(FERRY_SANITIZE STREQUAL "thread")
  # GCC 12 warns that Asio's atomic_thread_fence is not instrumented; TSan still checks the rest.
  add_compile_options(-fsanitize=thread -fno-omit-frame-pointer -Wno-tsan)
  add_link_options(-fsanitize=thread)
elseif(NOT FERRY_SANITIZE STREQUAL "")
  message(FATAL_ERROR "FERRY_SANITIZE must be '', 'address' or 'thread', got '${FERRY_SANITIZE}'")
endif()

# ferry_whole_archive_library(<name> <sources...>): a static library <name>_objects whose
# self-registering extensions (FERRY_REGISTER_BUILTIN_EXTENSIONS) survive linking, exposed as the
# INTERFACE target <name> that every consumer links whole.
#
# Installed, the pair is exported as ferry::<short> and ferry::<short>_objects (<short>: <name>
# without "ferry_", as ferry_install_targets names them). install(EXPORT) does not rename targets
# inside $<LINK_LIBRARY:...>, so the installed interface names the imported archive itself.
function(ferry_whole_archive_library name)
  string(REGEX REPLACE "^ferry_" "" short ${name})
  add_library(${name}_objects STATIC ${ARGN})
  add_library(${name} INTERFACE)
  target_link_libraries(${name} INTERFACE
    "$<BUILD_INTERFACE:$<LINK_LIBRARY:WHOLE_ARCHIVE,${name}_objects>>"
    "$<INSTALL_INTERFACE:$<LINK_LIBRARY:WHOLE_ARCHIVE,ferry::${short}_objects>>")
  ferry_project_target(${name}_objects)
endfunction()
