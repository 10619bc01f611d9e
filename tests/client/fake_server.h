#pragma once

#include <atomic>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "ferry/codec/frame_header.h"
#include "ferry/rpc_meta.pb.h"

namespace ferry::testing {

// A minimal Ferry peer built from plain Asio and the codec, so that client tests depend on
// nothing but the wire format. Requests carry a google.protobuf.StringValue; the echo answer is
// "echo:" + value in the request's own serializer and compression, except that the value "fail"
// is answered with NOT_FOUND. Listens on 127.0.0.1 and runs one IO thread.
class FakeServer {
 public:
  enum class Mode {
    kEcho,    // answers every request at once
    kHold,    // keeps the answers until ReleaseHeld()
    kSilent,  // accepts connections and never reads from them
    kClose,   // accepts connections and closes them at once
  };

  // Port 0 picks a free port; a fixed port lets a test restart a server where it was.
  explicit FakeServer(Mode mode, uint16_t port = 0);
  ~FakeServer();
  FakeServer(const FakeServer&) = delete;
  FakeServer& operator=(const FakeServer&) = delete;

  uint16_t port() const { return port_; }
  std::string target() const { return "127.0.0.1:" + std::to_string(port_); }

  // Sends every held answer. Blocks until they are queued for writing.
  void ReleaseHeld();
  // Closes every accepted connection. Blocks until they are closed.
  void CloseConnections();

  // The minor protocol version of the frames it sends from now on (default: this build's).
  void AnswerAsVersionMinor(uint8_t minor) { version_minor_.store(minor); }

  size_t connections_accepted() const { return connections_accepted_.load(); }
  size_t requests_received() const { return requests_received_.load(); }
  size_t heartbeats_received() const { return heartbeats_received_.load(); }
  std::vector<uint64_t> cancelled_ids() const;
  codec::FrameHeader last_request_header() const;
  wire::RpcMeta last_request_meta() const;

 private:
  class Session;
  friend class Session;

  void Accept();
  // Runs `task` on the IO thread and waits for it.
  void RunOnIoThread(const std::function<void()>& task);

  const Mode mode_;
  boost::asio::io_context io_;
  boost::asio::ip::tcp::acceptor acceptor_;
  uint16_t port_ = 0;
  std::vector<std::shared_ptr<Session>> sessions_;                      // IO thread only
  std::vector<std::pair<std::shared_ptr<Session>, std::string>> held_;  // IO thread only

  std::atomic<uint8_t> version_minor_{codec::kVersionMinor};
  std::atomic<size_t> connections_accepted_{0};
  std::atomic<size_t> requests_received_{0};
  std::atomic<size_t> heartbeats_received_{0};
  mutable std::mutex mu_;
  std::vector<uint64_t> cancelled_ids_;
  codec::FrameHeader last_request_header_;
  wire::RpcMeta last_request_meta_;

  std::thread thread_;
};

}  // namespace ferry::testing
