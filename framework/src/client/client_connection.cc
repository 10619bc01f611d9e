#include "client/client_connection.h"

#include <google/protobuf/message.h>

#include <algorithm>
#include <array>
#include <boost/asio/connect.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/ssl/error.hpp>
#include <boost/asio/write.hpp>
#include <span>
#include <utility>

#include "ferry/rpc_meta.pb.h"
#include "logger.h"
#include "stats/framework_metrics.h"
#include "transport/tls_context.h"
#include "transport/tls_peer.h"

namespace ferry::client {
namespace {

using boost::asio::ip::tcp;
using std::chrono::milliseconds;

// Timeouts are swept at this granularity: calls expiring within one tick share one wake-up.
constexpr milliseconds kSweepTick{1};
constexpr size_t kReadChunk = 64 * 1024;

std::string Ms(milliseconds d) { return std::to_string(d.count()) + " ms"; }

}  // namespace

ClientConnection::ClientConnection(boost::asio::io_context& io, transport::Endpoint endpoint,
                                   const ClientOptions& options, codec::BodyOptions body_options)
    : io_(io),
      endpoint_(std::move(endpoint)),
      peer_(endpoint_.ToString()),
      options_(options),
      body_options_(body_options),
      resolver_(io),
      socket_(io),
      connect_timer_(io),
      heartbeat_timer_(io),
      backoff_timer_(io),
      sweep_timer_(io),
      backoff_(options.reconnect_initial, options.reconnect_max) {
  late_responses_metric_ = stats::LateResponsesFrom(peer_);
  if (options_.tls.enabled) {
    std::string key;
    Status loaded = transport::NewClientTlsContext(options_.tls, &tls_context_, &key);
    if (!loaded.ok()) tls_error_ = "TLS: tls." + key + ": " + loaded.message();
  }
}

uint64_t ClientConnection::Call(const wire::RpcMeta& meta, const google::protobuf::Message& request,
                                const codec::EncodedBody* body, google::protobuf::Message* response,
                                Clock::time_point deadline, milliseconds timeout, CallDone done,
                                stats::CallMeter meter, std::shared_ptr<CallObserver> observer,
                                Refused* refused) {
  return Send(
      [&](uint64_t id, std::string* frame) {
        codec::FrameHeader header;
        header.type = codec::MessageType::kRequest;
        header.request_id = id;
        return body != nullptr ? codec::AppendFrame(header, &meta, *body, frame)
                               : codec::AppendFrame(header, &meta, &request, body_options_, frame);
      },
      PendingCall{response, std::move(done), deadline, timeout, std::move(observer),
                  std::move(meter)},
      refused);
}

uint64_t ClientConnection::Call(const codec::EncodedRequest& request, uint64_t timeout_us,
                                google::protobuf::Message* response, Clock::time_point deadline,
                                milliseconds timeout, CallDone done) {
  return Send(
      [&](uint64_t id, std::string* frame) {
        request.AppendFrame(id, timeout_us, frame);
        return Status::Ok();
      },
      PendingCall{response, std::move(done), deadline, timeout, nullptr}, nullptr);
}

template <class Encode>
uint64_t ClientConnection::Send(const Encode& encode, PendingCall call, Refused* refused) {
  // The link this call is admitted to, queued on and failed with if it ends (EndLink).
  uint64_t link = 0;
  if (Status admitted = Admit(&link); !admitted.ok()) {
    call.Complete(admitted);
    return 0;
  }
  const uint64_t id = next_id_.fetch_add(1, std::memory_order_relaxed);
  // Serialized outside any lock into a buffer this thread reuses; the queue copies it.
  thread_local std::string frame;
  frame.clear();
  if (Status encoded = encode(id, &frame); !encoded.ok()) {
    call.Complete(encoded);
    return 0;
  }
  // The server would close the connection over it, failing every other call on it too.
  const size_t frame_size = frame.size();
  if (frame_size > options_.max_frame_bytes) {
    call.Complete(
        Status(StatusCode::RESOURCE_EXHAUSTED, "request frame of " + std::to_string(frame_size) +
                                                   " bytes exceeds max_frame_bytes " +
                                                   std::to_string(options_.max_frame_bytes)));
    return 0;
  }
  const Clock::time_point deadline = call.deadline;
  call.link = link;
  pending_.Insert(id, std::move(call));
  ScheduleSweepBy(deadline);
  bool must_flush = false;
  using Appended = transport::OutboundQueue::Appended;
  const Appended appended =
      outbox_.AppendToLink(frame, link, options_.max_outbound_bytes, &must_flush);
  if (must_flush) boost::asio::post(io_, [self = shared_from_this()] { self->Flush(); });
  if (appended == Appended::kClosed) {
    std::optional<PendingCall> taken = pending_.Take(id);
    if (!taken) return 0;  // the link ended meanwhile and failed it
    if (refused != nullptr) {
      refused->done = std::move(taken->done);
      refused->meter = std::move(taken->meter);
      refused->observer = std::move(taken->observer);
      return 0;
    }
    taken->Complete(
        Status(StatusCode::DRAINING, "server " + peer_ + " is draining; the call was not sent"));
    return 0;
  }
  if (appended == Appended::kFull) {
    // A stalled peer costs callers an error, not unbounded memory. UNAVAILABLE, not an answer:
    // the peer said nothing, and the call, never sent, may go to another provider.
    if (auto taken = pending_.Take(id)) {
      taken->Complete(Status(StatusCode::UNAVAILABLE,
                             "write queue to " + peer_ + " holds more than max_outbound_bytes " +
                                 std::to_string(options_.max_outbound_bytes) +
                                 "; the peer reads too slowly, and the call was not sent"));
    }
    return 0;
  }
  // Stale: the link ended first, and nothing was queued. The link's FailAll may have run before
  // the call was in the table. 0, like every call that failed before it was queued: it was
  // certainly not sent, and may go elsewhere.
  if (appended == Appended::kStaleLink) {
    Abandon(id);
    return 0;
  }
  // Queued, but the link moved: it ended after, and its clearing drops the bytes. A link that
  // EndLink ended has its FailAll take the call (the append came before its ClearForLink, the
  // Insert before the append); Shutdown's may have scanned the table before the Insert.
  if (LinkOf(state_.load(std::memory_order_acquire)) != link) Abandon(id);
  return id;
}

bool ClientConnection::Cancel(uint64_t id) {
  std::optional<PendingCall> call = pending_.Take(id);
  if (!call) return false;
  SendControl(codec::MessageType::kCancel, id, 0);
  call->Complete(Status(StatusCode::CANCELLED, "cancelled by the caller"));
  return true;
}

void ClientConnection::CancelOn(Cancellation& cancellation, uint64_t id) {
  if (id == 0) return;
  cancellation.Bind([](void* connection,
                       uint64_t call) { static_cast<ClientConnection*>(connection)->Cancel(call); },
                    weak_from_this(), id);
}

void ClientConnection::RunHook(Hooks::Hook Hooks::*point) {
  if (!hooked_.load(std::memory_order_relaxed)) [[likely]]
    return;
  std::shared_ptr<const Hooks> hooks;
  {
    MutexLock lock(hooks_mu_);
    hooks = hooks_;
  }
  if (hooks != nullptr && hooks.get()->*point) (hooks.get()->*point)(*this);
}

Status ClientConnection::Admit(uint64_t* link) {
  uint64_t word = state_.load(std::memory_order_acquire);
  for (;;) {
    *link = LinkOf(word);
    switch (StateOf(word)) {
      case State::kConnecting:
      case State::kConnected:
        return Status::Ok();
      case State::kShutdown:
        return DownStatus();
      case State::kIdle:
        if (state_.compare_exchange_weak(word, Pack(*link, State::kConnecting))) {
          boost::asio::post(
              io_, [self = shared_from_this(), link = *link] { self->StartConnect(link); });
          return Status::Ok();
        }
        break;
      case State::kBackoff: {
        // Fail fast rather than wait out the backoff: a caller with other endpoints can retry
        // there at once. Once the backoff has elapsed, the call itself starts the next attempt.
        const Clock::time_point now = Clock::now();
        const Clock::time_point retry_at = retry_at_.load(std::memory_order_acquire);
        if (now < retry_at) {
          const auto wait = std::chrono::ceil<milliseconds>(retry_at - now);
          return Status(StatusCode::UNAVAILABLE,
                        DownStatus().message() + " (next attempt in " + Ms(wait) + ")");
        }
        RunHook(&Hooks::backoff_over);
        // The word names the link whose backoff is over: if that link connected and ended
        // meanwhile, the CAS fails against the next one's backoff, which is then waited out.
        if (state_.compare_exchange_weak(word, Pack(*link, State::kConnecting))) {
          boost::asio::post(
              io_, [self = shared_from_this(), link = *link] { self->StartConnect(link); });
          return Status::Ok();
        }
        break;
      }
    }
  }
}

Status ClientConnection::DownStatus() const {
  if (StateOf(state_.load(std::memory_order_acquire)) == State::kShutdown) {
    return Status(StatusCode::CANCELLED, "channel to " + peer_ + " was shut down");
  }
  MutexLock lock(last_error_mu_);
  return Status(StatusCode::UNAVAILABLE, last_error_);
}

void ClientConnection::Abandon(uint64_t id) {
  if (auto call = pending_.Take(id)) call->Complete(DownStatus());
}

void ClientConnection::Enqueue(std::string_view frame) {
  if (outbox_.Append(frame)) {
    boost::asio::post(io_, [self = shared_from_this()] { self->Flush(); });
  }
}

void ClientConnection::SendControl(codec::MessageType type, uint64_t id, uint8_t flags) {
  codec::FrameHeader header;
  header.type = type;
  header.request_id = id;
  header.flags = flags;
  const std::array<uint8_t, codec::kHeaderSize> bytes = codec::WriteHeader(header);
  Enqueue(std::string_view(reinterpret_cast<const char*>(bytes.data()), bytes.size()));
}

// Calls with equal timeouts expire in the order they were made, so the sweep already due
// earlier covers a new call and this is one atomic load; only a call due sooner than every
// pending one posts to the IO thread.
void ClientConnection::ScheduleSweepBy(Clock::time_point deadline) {
  if (deadline == Clock::time_point::max()) return;
  const auto due = std::chrono::ceil<milliseconds>(deadline);
  Clock::time_point scheduled = sweep_at_.load(std::memory_order_acquire);
  while (due < scheduled) {
    if (sweep_at_.compare_exchange_weak(scheduled, due)) {
      boost::asio::post(io_, [self = shared_from_this()] { self->ArmSweepTimer(); });
      return;
    }
  }
}

void ClientConnection::FailAll(const Status& status, uint64_t through_link) {
  std::vector<PendingCallTable::Entry> calls;
  if (through_link == kEveryLink) {
    pending_.TakeAll(&calls);
  } else {
    pending_.TakeAdmittedBy(through_link, &calls);
  }
  for (auto& [id, call] : calls) call.Complete(status);
}

void ClientConnection::Shutdown() {
  uint64_t word = state_.load(std::memory_order_acquire);
  do {
    if (StateOf(word) == State::kShutdown) return;
  } while (!state_.compare_exchange_weak(word, Pack(LinkOf(word) + 1, State::kShutdown)));
  // CANCELLED, which no channel retries. Were it ever UNAVAILABLE, a call failed here would
  // still never pass for certainly unsent while its bytes may leave: a Flush racing this only
  // writes on a link whose CAS to kConnected came before the CAS above, and OnEstablished
  // publishes connected_link_ before that CAS, so ConnectedSince() sees it once the calls are
  // failed here.
  FailAll(DownStatus(), kEveryLink);
  boost::asio::post(io_, [self = shared_from_this()] {
    self->CloseSocket();
    self->backoff_timer_.cancel();
    self->sweep_timer_.cancel();
    self->outbox_.ClearForLink(LinkOf(self->state_.load(std::memory_order_acquire)));
  });
}

ClientStats ClientConnection::stats() const {
  ClientStats stats;
  stats.late_responses = late_responses_.load(std::memory_order_relaxed);
  stats.calls_in_flight = pending_.size();
  stats.reconnects = reconnects_.load(std::memory_order_relaxed);
  stats.requests_sent = pending_.inserted();
  stats.flushes = flushes_.load(std::memory_order_relaxed);
  return stats;
}

void ClientConnection::StartConnect(uint64_t link) {
  if (state_.load(std::memory_order_acquire) != Pack(link, State::kConnecting)) return;
  backoff_timer_.cancel();
  if (!tls_error_.empty()) return EndLink(tls_error_);
  decoder_ = codec::FrameDecoder(codec::DecoderLimits{.max_frame_bytes = options_.max_frame_bytes});
  connect_timer_.expires_after(options_.connect_timeout);
  connect_timer_.async_wait([self = shared_from_this(), link](const boost::system::error_code& ec) {
    // The state check covers a timer that expired just as the connect completed.
    if (!ec && self->state_.load(std::memory_order_acquire) == Pack(link, State::kConnecting)) {
      self->EndLink("connect timed out after " + Ms(self->options_.connect_timeout));
    }
  });
  resolver_.async_resolve(
      endpoint_.host, std::to_string(endpoint_.port),
      [self = shared_from_this(), link](const boost::system::error_code& ec,
                                        const tcp::resolver::results_type& endpoints) {
        if (!self->IsCurrent(link)) return;
        if (ec) {
          self->EndLink("cannot resolve '" + self->endpoint_.host + "': " + ec.message());
          return;
        }
        boost::asio::async_connect(
            self->socket_.socket(), endpoints,
            [self, link](const boost::system::error_code& ec, const tcp::endpoint&) {
              self->OnConnected(link, ec);
            });
      });
}

void ClientConnection::OnConnected(uint64_t link, const boost::system::error_code& ec) {
  if (!IsCurrent(link)) return;
  if (ec) {
    EndLink(ec.message());
    return;
  }
  boost::system::error_code ignored;
  socket_.socket().set_option(tcp::no_delay(true), ignored);
  if (tls_context_ != nullptr) return StartHandshake(link);
  OnEstablished(link);
}

// The connect timer, still running, bounds the handshake too.
void ClientConnection::StartHandshake(uint64_t link) {
  transport::MaybeTlsSocket::TlsStream& tls = socket_.StartTls(*tls_context_);
  const std::string& name =
      options_.tls.server_name.empty() ? endpoint_.host : options_.tls.server_name;
  if (!transport::IsIpAddress(name)) SSL_set_tlsext_host_name(tls.native_handle(), name.c_str());
  if (options_.tls.verify) {
    tls_refusal_ = std::make_shared<std::string>();
    tls.set_verify_callback(transport::ServerCertificateCheck(name, tls_refusal_));
  }
  socket_.async_handshake(
      boost::asio::ssl::stream_base::client,
      [self = shared_from_this(), link](const boost::system::error_code& ec) {
        if (!self->IsCurrent(link)) return;
        if (!ec) return self->OnEstablished(link);
        const std::string refusal =
            self->tls_refusal_ != nullptr ? *self->tls_refusal_ : std::string();
        self->EndLink(refusal.empty()
                          ? "TLS handshake failed: " + ec.message()
                          : "TLS handshake failed: the server's certificate was refused: " +
                                refusal);
      });
}

void ClientConnection::OnEstablished(uint64_t link) {
  // Before the CAS that lets Flush write: whoever fails a call after a later CAS (Shutdown's)
  // then sees that it may have been sent. If the CAS fails, nothing is written on this link,
  // and the link only passes for connected, which is the cautious side.
  connected_link_.store(link + 1, std::memory_order_release);
  uint64_t expected = Pack(link, State::kConnecting);
  if (!state_.compare_exchange_strong(expected, Pack(link, State::kConnected)))
    return;  // shut down
  draining_.store(false, std::memory_order_release);
  connect_timer_.cancel();
  if (ever_connected_) reconnects_.fetch_add(1, std::memory_order_relaxed);
  ever_connected_ = true;
  last_received_ = Clock::now();
  StartRead(link);
  ArmHeartbeat(link);
  Flush();  // requests queued while connecting
}

void ClientConnection::StartRead(uint64_t link) {
  std::span<uint8_t> space = decoder_.PrepareWrite(kReadChunk);
  socket_.async_read_some(
      boost::asio::buffer(space.data(), space.size()),
      [self = shared_from_this(), link](const boost::system::error_code& ec, size_t bytes) {
        self->OnRead(link, ec, bytes);
      });
}

void ClientConnection::OnRead(uint64_t link, const boost::system::error_code& ec, size_t bytes) {
  if (!IsCurrent(link)) return;
  if (ec) {
    // A TLS server that closes without saying so (no close_notify) ends its stream truncated.
    // A TLS error here is the server refusing the session after the handshake, as TLS 1.3
    // servers refuse client certificates.
    EndLink(ec == boost::asio::error::eof || ec == boost::asio::ssl::error::stream_truncated
                ? "server closed the connection"
            : ec.category() == boost::asio::error::get_ssl_category() ? "TLS: " + ec.message()
                                                                      : ec.message());
    return;
  }
  decoder_.CommitWrite(bytes);
  last_received_ = Clock::now();
  for (;;) {
    switch (decoder_.Next(&frame_)) {
      case codec::FrameDecoder::Result::kNeedMore:
        StartRead(link);
        return;
      case codec::FrameDecoder::Result::kError:
        Logger().error("closing connection to {}: {}", peer_, decoder_.error());
        EndLink("bad frame: " + decoder_.error());
        return;
      case codec::FrameDecoder::Result::kFrame:
        // Only a peer that speaks proves the connection good; one that accepts and closes at
        // once keeps its failures adding up, and is redialled ever less often.
        backoff_.Reset();
        Dispatch(frame_);
        // A completion callback may have shut the channel down.
        if (!IsCurrent(link)) return;
        break;
    }
  }
}

void ClientConnection::Dispatch(const codec::Frame& frame) {
  switch (frame.header.type) {
    case codec::MessageType::kResponse:
      CompleteCall(frame);
      return;
    case codec::MessageType::kHeartbeat:
      if ((frame.header.flags & codec::flags::kHeartbeatReply) == 0) {
        SendControl(codec::MessageType::kHeartbeat, frame.header.request_id,
                    codec::flags::kHeartbeatReply);
      }
      return;
    case codec::MessageType::kGoAway:
      if ((frame.header.flags & codec::flags::kGoAwayAck) == 0) OnGoAway();
      return;
    default:
      Logger().debug("ignoring {} frame from server {}", codec::MessageTypeName(frame.header.type),
                     peer_);
      return;
  }
}

// The acknowledgement goes out after every request queued before it, and none is queued after
// it on this link: the server then knows exactly which requests it will ever get.
void ClientConnection::OnGoAway() {
  if (draining_.exchange(true, std::memory_order_acq_rel)) return;
  Logger().info("server {} is draining: sending it no new calls", peer_);
  codec::FrameHeader header;
  header.type = codec::MessageType::kGoAway;
  header.flags = codec::flags::kGoAwayAck;
  const std::array<uint8_t, codec::kHeaderSize> bytes = codec::WriteHeader(header);
  if (outbox_.CloseToRequests(
          std::string_view(reinterpret_cast<const char*>(bytes.data()), bytes.size()))) {
    Flush();
  }
}

void ClientConnection::CompleteCall(const codec::Frame& frame) {
  std::optional<PendingCall> call = pending_.Take(frame.header.request_id);
  if (!call) {
    late_responses_.fetch_add(1, std::memory_order_relaxed);
    late_responses_metric_->Increment();
    return;
  }
  Status status;
  if (frame.header.status != 0) {
    wire::RpcMeta meta;
    status = codec::ParseMeta(frame.meta, &meta);
    if (status.ok()) {
      status = Status(static_cast<StatusCode>(frame.header.status), meta.error_message());
    }
  } else {
    status = codec::ParseBody(frame.header, frame.body, options_.max_frame_bytes, call->response);
  }
  call->Complete(status);
}

void ClientConnection::Flush() {
  if (writing_) return;
  const uint64_t word = state_.load(std::memory_order_acquire);
  if (StateOf(word) != State::kConnected) return;
  if (!outbox_.TakeAll(&write_buffer_)) return;
  writing_ = true;
  flushes_.fetch_add(1, std::memory_order_relaxed);
  boost::asio::async_write(
      socket_, boost::asio::buffer(write_buffer_),
      [self = shared_from_this(), link = LinkOf(word)](const boost::system::error_code& ec,
                                                       size_t) { self->OnWritten(link, ec); });
}

void ClientConnection::OnWritten(uint64_t link, const boost::system::error_code& ec) {
  if (!IsCurrent(link)) return;
  writing_ = false;
  if (ec) {
    EndLink("write failed: " + ec.message());
    return;
  }
  Flush();
}

// Heartbeats go out only while nothing arrives: any frame proves the server alive.
void ClientConnection::ArmHeartbeat(uint64_t link) {
  const milliseconds interval = options_.heartbeat_interval;
  if (interval <= milliseconds::zero()) return;
  const Clock::time_point now = Clock::now();
  Clock::time_point due = last_received_ + interval;
  if (due <= now) {
    // Already idle: a heartbeat went out; check again after another interval or when the
    // server's silence reaches the timeout, whichever comes first.
    due = now + interval;
    if (options_.heartbeat_timeout > milliseconds::zero()) {
      due = std::min(due, last_received_ + options_.heartbeat_timeout);
    }
  }
  heartbeat_timer_.expires_at(due);
  heartbeat_timer_.async_wait(
      [self = shared_from_this(), link](const boost::system::error_code& ec) {
        if (!ec && self->IsCurrent(link)) self->OnHeartbeatDue(link);
      });
}

void ClientConnection::OnHeartbeatDue(uint64_t link) {
  const auto idle = Clock::now() - last_received_;
  const milliseconds timeout = options_.heartbeat_timeout;
  if (timeout > milliseconds::zero() && idle >= timeout) {
    EndLink("nothing received for " + Ms(std::chrono::duration_cast<milliseconds>(idle)) +
            ", heartbeat timeout is " + Ms(timeout));
    return;
  }
  if (idle >= options_.heartbeat_interval) SendControl(codec::MessageType::kHeartbeat, 0, 0);
  ArmHeartbeat(link);
}

// Runs on a link that is connecting or connected: nothing but Shutdown moves state_ off those.
void ClientConnection::EndLink(std::string_view reason) {
  CloseSocket();
  uint64_t word = state_.load(std::memory_order_acquire);
  if (StateOf(word) == State::kShutdown) return;
  const uint64_t ended = LinkOf(word);
  const uint64_t link = ended + 1;
  const std::string message =
      (StateOf(word) == State::kConnected ? "connection to " + peer_ + " lost: "
                                          : "cannot connect to " + peer_ + ": ") +
      std::string(reason);
  const milliseconds delay = backoff_.Next();
  {
    MutexLock lock(last_error_mu_);
    last_error_ = message;
  }
  // Before the link moves: a caller that sees the next link's backoff sees when it is over.
  retry_at_.store(Clock::now() + delay, std::memory_order_release);
  // Also before: a caller that sees the next link queues after this clearing, which would
  // otherwise drop its request and leave it pending. A caller still on the ended link whose
  // request comes after is refused (kStaleLink): certainly not sent.
  outbox_.ClearForLink(link);
  RunHook(&Hooks::queue_cleared);
  do {
    if (StateOf(word) == State::kShutdown) return;
  } while (!state_.compare_exchange_weak(word, Pack(link, State::kBackoff)));
  RunHook(&Hooks::link_ended);
  Logger().warn("{}; reconnecting in {}", message, Ms(delay));
  // Only the calls admitted to the ended link or an earlier one (a caller still holding an
  // earlier link abandons its call itself, unless this takes it first). Calls queued on the
  // next link meanwhile (its backoff may be over already, when this thread was slow getting
  // here) leave once that link connects, and must not be failed as certainly unsent.
  FailAll(Status(StatusCode::UNAVAILABLE, message), ended);
  backoff_timer_.expires_after(delay);
  backoff_timer_.async_wait([self = shared_from_this(), link](const boost::system::error_code& ec) {
    if (!ec) self->OnBackoffElapsed(link);
  });
}

void ClientConnection::CloseSocket() {
  boost::system::error_code ignored;
  resolver_.cancel();
  socket_.socket().close(ignored);
  connect_timer_.cancel();
  heartbeat_timer_.cancel();
  writing_ = false;
}

void ClientConnection::OnBackoffElapsed(uint64_t link) {
  uint64_t expected = Pack(link, State::kBackoff);
  // A call may have started the attempt already.
  if (state_.compare_exchange_strong(expected, Pack(link, State::kConnecting))) StartConnect(link);
}

void ClientConnection::ArmSweepTimer() {
  const Clock::time_point due = sweep_at_.load(std::memory_order_acquire);
  if (due == Clock::time_point::max()) return;
  sweep_timer_.expires_at(due);
  sweep_timer_.async_wait([self = shared_from_this()](const boost::system::error_code& ec) {
    if (!ec) self->Sweep();
  });
}

// Unscheduling before scanning matters: a call inserted after its shard was scanned then sees
// no sweep scheduled and schedules one itself.
void ClientConnection::Sweep() {
  sweep_at_.store(Clock::time_point::max(), std::memory_order_release);
  const Clock::time_point now = Clock::now();
  const Clock::time_point next = pending_.TakeExpired(now, &expired_);
  for (auto& [id, call] : expired_) {
    SendControl(codec::MessageType::kCancel, id, 0);
    call.Complete(
        Status(StatusCode::DEADLINE_EXCEEDED, "call timed out after " + Ms(call.timeout)));
  }
  expired_.clear();
  if (next != Clock::time_point::max()) ScheduleSweepBy(std::max(next, now + kSweepTick));
}

}  // namespace ferry::client
