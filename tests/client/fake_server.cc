#include "fake_server.h"

#include <google/protobuf/wrappers.pb.h>

#include <boost/asio/post.hpp>
#include <boost/asio/write.hpp>
#include <future>

#include "ferry/codec/frame_decoder.h"
#include "ferry/codec/message_codec.h"

namespace ferry::testing {

using boost::asio::ip::tcp;

class FakeServer::Session : public std::enable_shared_from_this<Session> {
 public:
  Session(FakeServer& server, tcp::socket socket) : server_(server), socket_(std::move(socket)) {}

  void Start() { Read(); }
  void Close() {
    boost::system::error_code ignored;
    socket_.close(ignored);
  }

  // Queues bytes; one write at a time, in order.
  void Send(std::string bytes) {
    pending_ += bytes;
    if (!writing_) Flush();
  }

 private:
  void Read() {
    auto space = decoder_.PrepareWrite();
    socket_.async_read_some(boost::asio::buffer(space.data(), space.size()),
                            [self = shared_from_this()](boost::system::error_code ec, size_t n) {
                              if (ec) return self->Close();
                              self->decoder_.CommitWrite(n);
                              self->Drain();
                            });
  }

  void Drain() {
    for (;;) {
      switch (decoder_.Next(&frame_)) {
        case codec::FrameDecoder::Result::kNeedMore:
          return Read();
        case codec::FrameDecoder::Result::kError:
          return Close();
        case codec::FrameDecoder::Result::kFrame:
          Handle();
          break;
      }
    }
  }

  void Handle() {
    const codec::FrameHeader& header = frame_.header;
    switch (header.type) {
      case codec::MessageType::kHeartbeat: {
        server_.heartbeats_received_++;
        codec::FrameHeader reply;
        reply.version_minor = server_.version_minor_.load();
        reply.type = codec::MessageType::kHeartbeat;
        reply.flags = codec::flags::kHeartbeatReply;
        auto bytes = codec::WriteHeader(reply);
        Send(std::string(bytes.begin(), bytes.end()));
        return;
      }
      case codec::MessageType::kCancel: {
        std::lock_guard lock(server_.mu_);
        server_.cancelled_ids_.push_back(header.request_id);
        return;
      }
      case codec::MessageType::kRequest:
        break;
      default:
        return;
    }
    wire::RpcMeta meta;
    google::protobuf::StringValue request;
    const bool parsed = codec::ParseMeta(frame_.meta, &meta).ok() &&
                        codec::ParseBody(header, frame_.body, 64u << 20, &request).ok();
    {
      std::lock_guard lock(server_.mu_);
      server_.last_request_header_ = header;
      server_.last_request_meta_ = meta;
    }
    codec::FrameHeader reply;
    reply.version_minor = server_.version_minor_.load();
    reply.type = codec::MessageType::kResponse;
    reply.request_id = header.request_id;
    codec::BodyOptions body_options;
    body_options.serializer = header.serializer;
    body_options.compression = header.compression;
    body_options.compress_threshold = 0;
    std::string bytes;
    if (!parsed || request.value() == "fail") {
      reply.status =
          static_cast<uint16_t>(parsed ? StatusCode::NOT_FOUND : StatusCode::INVALID_ARGUMENT);
      wire::RpcMeta error;
      error.set_error_message(parsed ? "fake failure" : "unparsable request");
      (void)codec::AppendFrame(reply, &error, nullptr, body_options, &bytes);
    } else {
      google::protobuf::StringValue response;
      response.set_value("echo:" + request.value());
      (void)codec::AppendFrame(reply, nullptr, &response, body_options, &bytes);
    }
    server_.requests_received_++;
    if (server_.mode_ == Mode::kHold) {
      server_.held_.emplace_back(shared_from_this(), std::move(bytes));
    } else {
      Send(std::move(bytes));
    }
  }

  void Flush() {
    writing_ = true;
    outgoing_.swap(pending_);
    pending_.clear();
    boost::asio::async_write(socket_, boost::asio::buffer(outgoing_),
                             [self = shared_from_this()](boost::system::error_code ec, size_t) {
                               self->writing_ = false;
                               if (ec) return self->Close();
                               if (!self->pending_.empty()) self->Flush();
                             });
  }

  FakeServer& server_;
  tcp::socket socket_;
  codec::FrameDecoder decoder_;
  codec::Frame frame_;
  std::string pending_;
  std::string outgoing_;
  bool writing_ = false;
};

FakeServer::FakeServer(Mode mode, uint16_t port) : mode_(mode), acceptor_(io_) {
  const tcp::endpoint endpoint(boost::asio::ip::make_address("127.0.0.1"), port);
  acceptor_.open(endpoint.protocol());
  acceptor_.set_option(tcp::acceptor::reuse_address(true));
  acceptor_.bind(endpoint);
  acceptor_.listen();
  port_ = acceptor_.local_endpoint().port();
  Accept();
  thread_ = std::thread([this] { io_.run(); });
}

FakeServer::~FakeServer() {
  RunOnIoThread([this] {
    boost::system::error_code ignored;
    acceptor_.close(ignored);
    for (auto& session : sessions_) session->Close();
    sessions_.clear();
    held_.clear();
  });
  io_.stop();
  thread_.join();
}

void FakeServer::Accept() {
  acceptor_.async_accept([this](boost::system::error_code ec, tcp::socket socket) {
    if (ec) return;
    connections_accepted_++;
    if (mode_ == Mode::kClose) {
      socket.close(ec);
      return Accept();
    }
    auto session = std::make_shared<Session>(*this, std::move(socket));
    sessions_.push_back(session);
    if (mode_ != Mode::kSilent) session->Start();
    Accept();
  });
}

void FakeServer::RunOnIoThread(const std::function<void()>& task) {
  std::promise<void> done;
  boost::asio::post(io_, [&] {
    task();
    done.set_value();
  });
  done.get_future().wait();
}

void FakeServer::ReleaseHeld() {
  RunOnIoThread([this] {
    for (auto& [session, bytes] : held_) session->Send(std::move(bytes));
    held_.clear();
  });
}

void FakeServer::CloseConnections() {
  RunOnIoThread([this] {
    for (auto& session : sessions_) session->Close();
    sessions_.clear();
  });
}

std::vector<uint64_t> FakeServer::cancelled_ids() const {
  std::lock_guard lock(mu_);
  return cancelled_ids_;
}

codec::FrameHeader FakeServer::last_request_header() const {
  std::lock_guard lock(mu_);
  return last_request_header_;
}

wire::RpcMeta FakeServer::last_request_meta() const {
  std::lock_guard lock(mu_);
  return last_request_meta_;
}

}  // namespace ferry::testing
