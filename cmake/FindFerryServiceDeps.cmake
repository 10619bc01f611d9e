# find_package(FerryServiceDeps): client libraries for services Ferry talks to, from Debian's
# archive (scripts/lib/common.sh), found through pkg-config and exposed as imported targets:
#   ferry::hiredis   hiredis 0.14 (libhiredis-dev)         #include <hiredis.h>
#   ferry::mariadb   MariaDB Connector/C (libmariadb-dev)  #include <mysql.h>, <mysqld_error.h>
#   ferry::sqlite3   SQLite 3 (libsqlite3-dev)             #include <sqlite3.h>
# each an alias of PkgConfig::FERRY_<NAME>, the name ferry::storage's export refers to. The
# build needs all three (REQUIRED); the installed ferry-config.cmake looks them up only for
# COMPONENTS storage.
find_package(PkgConfig QUIET)
if(PKG_CONFIG_FOUND)
  pkg_check_modules(FERRY_HIREDIS QUIET IMPORTED_TARGET GLOBAL hiredis)
  pkg_check_modules(FERRY_MARIADB QUIET IMPORTED_TARGET GLOBAL libmariadb)
  pkg_check_modules(FERRY_SQLITE3 QUIET IMPORTED_TARGET GLOBAL sqlite3)
endif()

include(FindPackageHandleStandardArgs)
find_package_handle_standard_args(FerryServiceDeps
  REQUIRED_VARS PKG_CONFIG_FOUND FERRY_HIREDIS_FOUND FERRY_MARIADB_FOUND FERRY_SQLITE3_FOUND)

if(FerryServiceDeps_FOUND)
  foreach(name hiredis mariadb sqlite3)
    string(TOUPPER ${name} upper)
    if(NOT TARGET ferry::${name})
      add_library(ferry::${name} ALIAS PkgConfig::FERRY_${upper})
    endif()
  endforeach()
endif()
