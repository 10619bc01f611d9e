# find_package(FerryZooKeeper): the multi-threaded ZooKeeper C client (libzookeeper-mt-dev),
# which ships no CMake package of its own, as the imported target ferry::zookeeper_mt. Its
# header declares the synchronous calls only when THREADED is defined, so the target defines it.
# Used by the build (registry/) and by the installed ferry-config.cmake, whose
# ferry::registry links it.
find_path(FERRY_ZOOKEEPER_INCLUDE_DIR zookeeper/zookeeper.h)
find_library(FERRY_ZOOKEEPER_MT_LIBRARY zookeeper_mt)
mark_as_advanced(FERRY_ZOOKEEPER_INCLUDE_DIR FERRY_ZOOKEEPER_MT_LIBRARY)

include(FindPackageHandleStandardArgs)
find_package_handle_standard_args(FerryZooKeeper
  REQUIRED_VARS FERRY_ZOOKEEPER_MT_LIBRARY FERRY_ZOOKEEPER_INCLUDE_DIR)

if(FerryZooKeeper_FOUND AND NOT TARGET ferry::zookeeper_mt)
  find_package(Threads REQUIRED)
  add_library(ferry::zookeeper_mt UNKNOWN IMPORTED)
  set_target_properties(ferry::zookeeper_mt PROPERTIES
    IMPORTED_LOCATION "${FERRY_ZOOKEEPER_MT_LIBRARY}"
    INTERFACE_INCLUDE_DIRECTORIES "${FERRY_ZOOKEEPER_INCLUDE_DIR}"
    INTERFACE_COMPILE_DEFINITIONS THREADED
    INTERFACE_LINK_LIBRARIES Threads::Threads)
endif()
