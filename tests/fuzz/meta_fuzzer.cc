// A request's meta as a server reads and uses it: RpcMeta through codec::ParseMeta, the auth
// token indices of protocol 1.1, the method lookup, the deadline, trace ids, call id, token and
// attachments a handler sees (docs/protocol.md); and the same for the JSON gateway's headers
// (docs/http.md). Every input talks to a real server on loopback (fuzz_server.h), over a
// connection of its own, and each answer is checked against what the meta says it must be.
//
// Input: one byte choosing the protocol (even: binary, odd: HTTP), then
//   binary: up to 8 requests, each a control byte (bits 0-1 the serializer, 2-3 the
//           compression), a 2-byte big-endian length and the meta, the same and the body;
//   HTTP:   a control byte (bits 0-1 the method), four headers (X-Ferry-Timeout-Ms,
//           X-Ferry-Call-Id, traceparent, Authorization), each a length byte (255: absent)
//           and the value, then the JSON body.
#include <google/protobuf/stubs/logging.h>

#include "fuzz_server.h"
#include "gateway_headers_check.h"
#include "request_reader.h"
#include "served_frames_check.h"

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  // protobuf logs each string it parses that is not UTF-8; fuzzed metas are full of them.
  static const auto* const quiet = new google::protobuf::LogSilencer();
  static_cast<void>(quiet);
  ferry::fuzz::TheServer();
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  ferry::fuzz::RequestReader input(data, size);
  if ((input.Byte() & 1) == 0) {
    ferry::fuzz::CheckServedFrames(&input);
  } else {
    ferry::fuzz::CheckGatewayHeaders(&input);
  }
  return 0;
}
