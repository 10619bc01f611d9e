# The CMake package `cmake --install` puts in lib/cmake/ferry, for find_package(ferry CONFIG):
# ferry-config.cmake (cmake/ferry-config.cmake.in), its version file, one targets file per export
# set (ferry_install_targets, cmake/FerryInstall.cmake), ferry_add_proto and the find modules of
# the dependencies that ship no CMake package. Included once every library has been added.
include(CMakePackageConfigHelpers)

install(EXPORT ferry NAMESPACE ferry:: FILE ferry-targets.cmake
        DESTINATION ${FERRY_INSTALL_CMAKEDIR})
foreach(component storage idgen)
  install(EXPORT ferry-${component} NAMESPACE ferry:: FILE ferry-${component}-targets.cmake
          DESTINATION ${FERRY_INSTALL_CMAKEDIR})
endforeach()

configure_package_config_file(${CMAKE_CURRENT_LIST_DIR}/ferry-config.cmake.in
  ${CMAKE_CURRENT_BINARY_DIR}/ferry-config.cmake
  INSTALL_DESTINATION ${FERRY_INSTALL_CMAKEDIR}
  PATH_VARS CMAKE_INSTALL_INCLUDEDIR)
# 0.x: a minor version may break the API, so only the same minor version is compatible.
write_basic_package_version_file(${CMAKE_CURRENT_BINARY_DIR}/ferry-config-version.cmake
  COMPATIBILITY SameMinorVersion)

install(FILES
  ${CMAKE_CURRENT_BINARY_DIR}/ferry-config.cmake
  ${CMAKE_CURRENT_BINARY_DIR}/ferry-config-version.cmake
  ${CMAKE_CURRENT_LIST_DIR}/FerryProto.cmake
  ${CMAKE_CURRENT_LIST_DIR}/FindFerryZooKeeper.cmake
  ${CMAKE_CURRENT_LIST_DIR}/FindFerryServiceDeps.cmake
  DESTINATION ${FERRY_INSTALL_CMAKEDIR})
