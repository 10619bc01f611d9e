# The Redis reservation cache (redis_reservation_cache.h) and admission line, included by this folder's
# CMakeLists.txt into ferry_seckill_storage.
target_sources(ferry_seckill_storage PRIVATE
  ${CMAKE_CURRENT_LIST_DIR}/redis_admission_line.cc
  ${CMAKE_CURRENT_LIST_DIR}/redis_cache_replies.cc
  ${CMAKE_CURRENT_LIST_DIR}/redis_keys.cc
  ${CMAKE_CURRENT_LIST_DIR}/redis_order_queue.cc
  ${CMAKE_CURRENT_LIST_DIR}/redis_reservation_cache.cc
  ${CMAKE_CURRENT_LIST_DIR}/redis_scripts.cc)
# The cache reads hiredis replies itself; its header does not include hiredis.h.
target_link_libraries(ferry_seckill_storage PRIVATE ferry::hiredis)
