# What `cmake --install` (and cpack) puts in a prefix: Ferry's libraries, public headers,
# protoc-gen-ferry and the CMake package (cmake/FerryPackage.cmake). Included before the
# libraries are added, so each library's CMakeLists.txt installs its own targets and headers.
include(GNUInstallDirs)

# Where ferry-config.cmake, its target files and the modules it includes are installed.
set(FERRY_INSTALL_CMAKEDIR ${CMAKE_INSTALL_LIBDIR}/cmake/ferry)

# ferry_install_targets(<export-set> <libraries...>): installs each library into lib/ and
# <export-set>, exported as ferry::<name without "ferry_">, with the installed include/ as its
# include directory. The export sets are ferry (what every consumer loads; protoc-gen-ferry is
# installed into it too) and one per optional component (ferry-storage, ferry-idgen).
function(ferry_install_targets export_set)
  foreach(target IN LISTS ARGN)
    string(REGEX REPLACE "^ferry_" "" export_name ${target})
    set_target_properties(${target} PROPERTIES EXPORT_NAME ${export_name})
  endforeach()
  install(TARGETS ${ARGN} EXPORT ${export_set}
          INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
endfunction()

