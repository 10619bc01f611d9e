#include "echo_calls.h"

#include <gtest/gtest.h>

#include "prometheus_server.h"

namespace ferry::admin_clients_test {

uint16_t PortOf(const std::string& address) {
  return static_cast<uint16_t>(std::stoi(address.substr(address.rfind(':') + 1)));
}

void MakeEchoCalls(demo::EchoServiceProxy& proxy, uint16_t port, int binary, int gateway) {
  for (int i = 0; i < binary; ++i) {
    demo::EchoRequest request;
    request.set_payload("binary " + std::to_string(i));
    Result<demo::EchoResponse> reply = proxy.Echo(request);
    ASSERT_TRUE(reply.ok()) << "binary Echo " << i << ": " << reply.status();
    ASSERT_EQ(reply->payload(), request.payload());
  }
  for (int i = 0; i < gateway; ++i) {
    // "aGk=" is "hi": bytes fields are base64 in protobuf's JSON mapping.
    const testsupport::LoopbackHttpResult reply = testsupport::LoopbackHttp(
        port, "POST", "/ferry.demo.EchoService/Echo", R"({"payload":"aGk="})");
    ASSERT_EQ(reply.status, 200) << "gateway Echo " << i << ": " << reply.error << reply.body;
    ASSERT_EQ(reply.body, R"({"payload":"aGk="})");
  }
}

}  // namespace ferry::admin_clients_test
