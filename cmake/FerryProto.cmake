# ferry_add_proto(<target> <files...>): defined by the code generator work (protoc-gen-ferry).
