#include "frame_client.h"

#include <google/protobuf/wrappers.pb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>

#include "ferry/rpc_meta.pb.h"
#include "loopback_socket.h"

namespace ferry::test {
namespace {

using Clock = std::chrono::steady_clock;

int ConnectTo(uint16_t port, const char* from) {
  const int fd = ConnectLoopbackFrom(port, from);
  if (fd < 0) return -1;
  const int one = 1;
  ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
  return fd;
}

}  // namespace

FrameClient::FrameClient(uint16_t port, const char* from) : fd_(ConnectTo(port, from)) {}

FrameClient::~FrameClient() {
  if (fd_ >= 0) ::close(fd_);
}

bool FrameClient::SendBytes(std::string_view bytes) {
  while (!bytes.empty()) {
    const ssize_t n = ::send(fd_, bytes.data(), bytes.size(), MSG_NOSIGNAL);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    bytes.remove_prefix(static_cast<size_t>(n));
  }
  return true;
}

bool FrameClient::SendFrame(const codec::FrameHeader& header, const std::string& meta,
                            const std::string& body) {
  codec::FrameHeader h = header;
  h.meta_length = static_cast<uint32_t>(meta.size());
  h.body_length = static_cast<uint32_t>(body.size());
  const auto bytes = codec::WriteHeader(h);
  std::string frame(reinterpret_cast<const char*>(bytes.data()), bytes.size());
  frame += meta;
  frame += body;
  return SendBytes(frame);
}

void FrameClient::AppendRequest(uint64_t request_id, std::string_view service,
                                std::string_view method, std::string_view value, std::string* out) {
  wire::RpcMeta meta;
  meta.set_service(std::string(service));
  meta.set_method(std::string(method));
  google::protobuf::StringValue body;
  body.set_value(std::string(value));
  codec::FrameHeader header;
  header.request_id = request_id;
  // A StringValue and a plain meta always encode.
  static_cast<void>(codec::AppendFrame(header, &meta, &body, codec::BodyOptions{}, out));
}

bool FrameClient::SendRequest(uint64_t request_id, std::string_view service,
                              std::string_view method, std::string_view value, uint64_t timeout_us,
                              uint8_t flags, const codec::BodyOptions& options) {
  wire::RpcMeta meta;
  meta.set_service(std::string(service));
  meta.set_method(std::string(method));
  meta.set_timeout_us(timeout_us);
  google::protobuf::StringValue body;
  body.set_value(std::string(value));
  codec::FrameHeader header;
  header.request_id = request_id;
  header.flags = flags;
  std::string frame;
  if (!codec::AppendFrame(header, &meta, &body, options, &frame).ok()) return false;
  return SendBytes(frame);
}

std::optional<codec::Frame> FrameClient::ReadFrame(std::chrono::milliseconds wait) {
  const Clock::time_point deadline = Clock::now() + wait;
  codec::Frame frame;
  for (;;) {
    const auto result = decoder_.Next(&frame);
    if (result == codec::FrameDecoder::Result::kFrame) return frame;
    if (result == codec::FrameDecoder::Result::kError || peer_closed_) return std::nullopt;
    const auto left =
        std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now());
    if (left.count() <= 0) return std::nullopt;
    pollfd p{fd_, POLLIN, 0};
    const int ready = ::poll(&p, 1, static_cast<int>(left.count()));
    if (ready < 0 && errno == EINTR) continue;
    if (ready <= 0) return std::nullopt;
    auto space = decoder_.PrepareWrite(64 * 1024);
    const ssize_t n = ::recv(fd_, space.data(), space.size(), 0);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      peer_closed_ = true;
      continue;
    }
    decoder_.CommitWrite(static_cast<size_t>(n));
  }
}

std::optional<Reply> FrameClient::ReadReply(std::chrono::milliseconds wait) {
  std::optional<codec::Frame> frame = ReadFrame(wait);
  if (!frame || frame->header.type != codec::MessageType::kResponse) return std::nullopt;
  Reply reply;
  reply.request_id = frame->header.request_id;
  reply.code = static_cast<StatusCode>(frame->header.status);
  reply.serializer = frame->header.serializer;
  reply.compression = frame->header.compression;
  wire::RpcMeta meta;
  if (!codec::ParseMeta(frame->meta, &meta).ok()) return std::nullopt;
  reply.error = meta.error_message();
  if (reply.code == StatusCode::OK) {
    google::protobuf::StringValue body;
    if (!codec::ParseBody(frame->header, frame->body, 1 << 20, &body).ok()) return std::nullopt;
    reply.value = body.value();
  }
  return reply;
}

std::pair<std::optional<Reply>, std::optional<Reply>> FrameClient::ReadTwoReplies(
    uint64_t first_id, uint64_t second_id) {
  std::pair<std::optional<Reply>, std::optional<Reply>> out;
  for (int i = 0; i < 2; ++i) {
    std::optional<Reply> reply = ReadReply();
    if (!reply) break;
    (reply->request_id == first_id ? out.first : out.second) = std::move(reply);
  }
  if (out.second && out.second->request_id != second_id) out.second.reset();
  return out;
}

bool FrameClient::WaitForClose(std::chrono::milliseconds wait) {
  const Clock::time_point deadline = Clock::now() + wait;
  char buffer[4096];
  while (Clock::now() < deadline) {
    const auto left =
        std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now());
    pollfd p{fd_, POLLIN, 0};
    const int ready = ::poll(&p, 1, static_cast<int>(std::max<int64_t>(left.count(), 1)));
    if (ready < 0 && errno == EINTR) continue;
    if (ready <= 0) return false;
    const ssize_t n = ::recv(fd_, buffer, sizeof(buffer), 0);
    if (n == 0 || (n < 0 && errno != EINTR && errno != EAGAIN)) return true;
  }
  return false;
}

void FrameClient::ShutdownWrite() { ::shutdown(fd_, SHUT_WR); }

void FrameClient::ResetOnClose() {
  const linger reset{.l_onoff = 1, .l_linger = 0};
  ::setsockopt(fd_, SOL_SOCKET, SO_LINGER, &reset, sizeof(reset));
}

bool ConnectionRefused(uint16_t port) {
  const int fd = ConnectTo(port, nullptr);
  if (fd < 0) return errno == ECONNREFUSED;
  ::close(fd);
  return false;
}

}  // namespace ferry::test
