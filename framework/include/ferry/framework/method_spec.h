#pragma once

#include <string_view>

namespace google::protobuf {
class Message;
}

namespace ferry {

// Static description of one RPC method; protoc-gen-ferry emits one per method.
struct MethodSpec {
  std::string_view service;    // full protobuf name, e.g. "ferry.demo.EchoService"
  std::string_view method;     // e.g. "Echo"
  bool idempotent = false;     // (ferry.idempotent): safe to retry or duplicate
  bool inline_method = false;  // (ferry.inline_method): server runs it on the IO thread
  // (ferry.idempotency_key): whether the request (of this method's type) carries its key. Part
  // of the one spec rather than a second spec per method, because specs are per-method
  // identities (filter states, metrics, test doubles); null for methods without a key.
  bool (*has_idempotency_key)(const google::protobuf::Message& request) = nullptr;

  // Whether this call of the method may be retried or duplicated: it is idempotent, or its
  // request carries an idempotency key.
  bool IsIdempotent(const google::protobuf::Message& request) const {
    return idempotent || (has_idempotency_key != nullptr && has_idempotency_key(request));
  }
};

}  // namespace ferry
