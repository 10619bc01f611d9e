#pragma once

#include <string_view>

namespace ferry {

// Static description of one RPC method; protoc-gen-ferry emits one per method.
struct MethodSpec {
  std::string_view service;    // full protobuf name, e.g. "ferry.demo.EchoService"
  std::string_view method;     // e.g. "Echo"
  bool idempotent = false;     // (ferry.idempotent): safe to retry or duplicate
  bool inline_method = false;  // (ferry.inline_method): server runs it on the IO thread
};

}  // namespace ferry
