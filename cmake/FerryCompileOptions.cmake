# Warnings-as-errors apply to project targets only, never to generated protobuf code.
# -Wmissing-field-initializers is off because GCC 12 fires it on designated initializers that
# rely on member defaults, the intended way to fill Ferry's options structs.
function(ferry_project_target target)
  target_compile_options(${target} PRIVATE -Wall -Wextra -Werror -Wno-missing-field-initializers)
endfunction()

set(FERRY_SANITIZE "" CACHE STRING "Sanitizers: '', 'address' (ASan+UBSan) or 'thread' (TSan)")
if(FERRY_SANITIZE STREQUAL "address")
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
