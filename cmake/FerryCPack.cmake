# `cpack -G DEB` in the build tree: libferry-dev, a Debian package holding exactly the tree
# `cmake --install` produces (cmake/FerryInstall.cmake), under /usr. Its Depends are what the
# installed ferry-config.cmake looks up for every consumer (cmake/ferry-config.cmake.in), plus
# protobuf-compiler: protoc, and the libprotoc that protoc-gen-ferry runs on. What only
# COMPONENTS storage looks up is Recommends. docs/getting-started.md lists the same packages.
set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME libferry-dev)
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY
    "Ferry RPC framework: static libraries, headers, protoc-gen-ferry and CMake package")
set(CPACK_PACKAGE_CONTACT "Ferry developers")
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION libdevel)
string(JOIN ", " CPACK_DEBIAN_PACKAGE_DEPENDS
  "cmake (>= 3.25)" "libboost-dev (>= 1.74)" libprotobuf-dev protobuf-compiler libzstd-dev
  libyaml-cpp-dev libspdlog-dev libzookeeper-mt-dev libssl-dev)
string(JOIN ", " CPACK_DEBIAN_PACKAGE_RECOMMENDS
  pkg-config libhiredis-dev libmariadb-dev libsqlite3-dev)
include(CPack)
