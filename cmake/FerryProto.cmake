# ferry_add_proto(<target> <files...>)
#
# A STATIC library <target> holding protoc's messages and protoc-gen-ferry's stubs for each
# .proto: <name>.pb.{h,cc}, <name>.ferry.{h,cc} and <name>.ferry_mock.h (which needs gmock, so
# only tests include it). Headers are generated into the target's binary dir, its public include
# dir: `#include "echo.ferry.h"`. Each file is compiled with its own directory and
# ${FERRY_PROTO_ROOT} (ferry/options.proto) as import paths.
#
# The same file serves Ferry's own build and, installed, find_package(ferry): both name the
# plugin ferry::protoc-gen-ferry (an alias here, the imported executable there) and set
# FERRY_PROTO_ROOT (codec/proto here, the installed include/ there). Here it is included before
# the framework is added, so the plugin target is referenced only by name and generator
# expression, both resolved once the whole tree is configured.
function(ferry_add_proto target)
  if(NOT ARGN)
    message(FATAL_ERROR "ferry_add_proto(${target}): no .proto files given")
  endif()
  set(out_dir ${CMAKE_CURRENT_BINARY_DIR})
  set(sources)
  foreach(proto IN LISTS ARGN)
    get_filename_component(proto_path ${proto} ABSOLUTE)
    get_filename_component(proto_dir ${proto_path} DIRECTORY)
    get_filename_component(stem ${proto_path} NAME_WLE)
    set(gen ${out_dir}/${stem})
    add_custom_command(
      OUTPUT ${gen}.pb.h ${gen}.pb.cc ${gen}.ferry.h ${gen}.ferry.cc ${gen}.ferry_mock.h
      COMMAND protobuf::protoc
              --plugin=protoc-gen-ferry=$<TARGET_FILE:ferry::protoc-gen-ferry>
              --cpp_out=${out_dir} --ferry_out=${out_dir}
              --dependency_out=${gen}.proto.d
              -I ${proto_dir} -I ${FERRY_PROTO_ROOT}
              ${proto_path}
      DEPENDS ${proto_path} ferry::protoc-gen-ferry protobuf::protoc
      DEPFILE ${gen}.proto.d
      COMMENT "protoc + protoc-gen-ferry ${proto}"
      VERBATIM)
    list(APPEND sources ${gen}.pb.cc ${gen}.ferry.cc)
  endforeach()

  # Generated code is deliberately not a ferry_project_target: no -Werror on protoc's output.
  add_library(${target} STATIC ${sources})
  target_include_directories(${target} PUBLIC ${out_dir})
  target_link_libraries(${target} PUBLIC ferry::framework ferry::codegen_runtime ferry::codec_proto
                                         protobuf::libprotobuf)
endfunction()
