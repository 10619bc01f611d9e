#pragma once

#include <span>
#include <string_view>

#include "ferry/codec/status.h"
#include "ferry/framework/method_spec.h"
#include "ferry/framework/server_context.h"

namespace google::protobuf {
class Message;
}

namespace ferry {

// Base of every generated `<Name>Base` server class. Service authors derive from the generated
// class and override its typed virtuals; the server dispatches through methods().
class Service {
 public:
  struct Method {
    const MethodSpec* spec;
    // Prototypes the server New()s a request and response from for each call.
    const google::protobuf::Message* request_prototype;
    const google::protobuf::Message* response_prototype;
    // Casts to the typed messages and calls the service author's override.
    Status (*invoke)(Service& service, ServerContext& context,
                     const google::protobuf::Message& request, google::protobuf::Message* response);
  };

  virtual ~Service() = default;
  virtual std::string_view full_name() const = 0;
  virtual std::span<const Method> methods() const = 0;
};

}  // namespace ferry
