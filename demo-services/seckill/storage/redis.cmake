# The Redis reservation cache (redis_reservation_cache.h), included by this folder's
# CMakeLists.txt into ferry_seckill_storage.
target_sources(ferry_seckill_storage PRIVATE
  ${CMAKE_CURRENT_LIST_DIR}/redis_connection_pool.cc
  ${CMAKE_CURRENT_LIST_DIR}/redis_keys.cc
  ${CMAKE_CURRENT_LIST_DIR}/redis_reservation_cache.cc
  ${CMAKE_CURRENT_LIST_DIR}/redis_scripts.cc)
target_link_libraries(ferry_seckill_storage PUBLIC ferry::hiredis)
