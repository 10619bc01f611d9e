#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

#include "ferry/codec/frame_decoder.h"
#include "ferry/codec/message_codec.h"
#include "ferry/codec/status.h"

namespace google::protobuf {
class Message;
}

namespace ferry::test {

// A decoded response frame whose body is a google.protobuf.StringValue.
struct Reply {
  uint64_t request_id = 0;
  StatusCode code = StatusCode::OK;
  std::string error;  // RpcMeta.error_message
  std::string value;  // the StringValue's value
  uint8_t serializer = 0;
  uint8_t compression = 0;
};

// A blocking loopback client that writes and reads frames with the codec. Every wait is
// bounded, so a server that misbehaves fails the test instead of hanging it.
class FrameClient {
 public:
  static constexpr std::chrono::milliseconds kWait{10000};

  // From the IPv4 address `from` of 127.0.0.0/8 when given, else from 127.0.0.1.
  explicit FrameClient(uint16_t port, const char* from = nullptr);
  ~FrameClient();
  FrameClient(const FrameClient&) = delete;
  FrameClient& operator=(const FrameClient&) = delete;

  bool connected() const { return fd_ >= 0; }

  bool SendBytes(std::string_view bytes);
  bool SendFrame(const codec::FrameHeader& header, const std::string& meta,
                 const std::string& body);
  // A request for service/method with a StringValue body, encoded with `options`.
  bool SendRequest(uint64_t request_id, std::string_view service, std::string_view method,
                   std::string_view value, uint64_t timeout_us = 0, uint8_t flags = 0,
                   const codec::BodyOptions& options = {});
  // Appends the same request to `out` instead of sending it, for pipelining.
  static void AppendRequest(uint64_t request_id, std::string_view service, std::string_view method,
                            std::string_view value, std::string* out);

  // The next frame; nullopt when the server closed the connection or `wait` passed first.
  std::optional<codec::Frame> ReadFrame(std::chrono::milliseconds wait = kWait);
  // The next frame as a response; nullopt as for ReadFrame or when it is no response.
  std::optional<Reply> ReadReply(std::chrono::milliseconds wait = kWait);
  // The replies to `first_id` and `second_id`, whichever order they come in: pool calls may
  // finish out of order.
  std::pair<std::optional<Reply>, std::optional<Reply>> ReadTwoReplies(uint64_t first_id,
                                                                       uint64_t second_id);
  // True when the server closes the connection within `wait`; frames on the way are skipped.
  bool WaitForClose(std::chrono::milliseconds wait = kWait);
  // Half-closes our side, as a peer that has nothing more to send.
  void ShutdownWrite();
  // Makes closing reset the connection, which leaves no TIME_WAIT behind: for clients that
  // connect thousands of times a second (tests/fuzz).
  void ResetOnClose();

 private:
  int fd_ = -1;
  codec::FrameDecoder decoder_;
  bool peer_closed_ = false;
};

// True when nothing listens on `port` any more.
bool ConnectionRefused(uint16_t port);

}  // namespace ferry::test
