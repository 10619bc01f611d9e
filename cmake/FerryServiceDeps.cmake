# Client libraries for services Ferry talks to, from Debian's archive (scripts/lib/common.sh),
# found through pkg-config and exposed as imported targets:
#   ferry::hiredis   hiredis 0.14 (libhiredis-dev)         #include <hiredis.h>
#   ferry::mariadb   MariaDB Connector/C (libmariadb-dev)  #include <mysql.h>, <mysqld_error.h>
#   ferry::sqlite3   SQLite 3 (libsqlite3-dev)             #include <sqlite3.h>
# Included from the top-level CMakeLists.txt after find_package(PkgConfig).
pkg_check_modules(FERRY_HIREDIS REQUIRED IMPORTED_TARGET GLOBAL hiredis)
pkg_check_modules(FERRY_MARIADB REQUIRED IMPORTED_TARGET GLOBAL libmariadb)
pkg_check_modules(FERRY_SQLITE3 REQUIRED IMPORTED_TARGET GLOBAL sqlite3)

add_library(ferry::hiredis ALIAS PkgConfig::FERRY_HIREDIS)
add_library(ferry::mariadb ALIAS PkgConfig::FERRY_MARIADB)
add_library(ferry::sqlite3 ALIAS PkgConfig::FERRY_SQLITE3)
