#pragma once

#include <atomic>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/steady_timer.hpp>
#include <chrono>
#include <cstdint>
#include <functional>
#include <limits>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include "client/client_stats.h"
#include "client/pending_call_table.h"
#include "client/reconnect_backoff.h"
#include "ferry/codec/encoded_request.h"
#include "ferry/codec/frame_decoder.h"
#include "ferry/codec/message_codec.h"
#include "ferry/framework/channel.h"
#include "ferry/framework/client_options.h"
#include "ferry/framework/metrics.h"
#include "thread_annotations.h"
#include "transport/endpoint.h"
#include "transport/maybe_tls_socket.h"
#include "transport/outbound_queue.h"

namespace ferry::client {

// One TCP connection to one endpoint, shared by every call to it, living on one io_context.
// Connects lazily on the first call, and after a failure reconnects with capped exponential
// backoff, which starts over once a frame arrived from the peer (not merely a connect). A
// "link" is one socket's life; when it ends every call pending on it fails at once.
//
// Call() is safe from any thread; everything else in here runs on the io_context's thread.
class ClientConnection : public std::enable_shared_from_this<ClientConnection> {
 public:
  ClientConnection(boost::asio::io_context& io, transport::Endpoint endpoint,
                   const ClientOptions& options, codec::BodyOptions body_options);

  // The largest response frame this connection reads.
  size_t max_frame_bytes() const { return options_.max_frame_bytes; }

  // What a call refused by a draining connection gives back: it was certainly not sent, and
  // its caller may send it elsewhere.
  struct Refused {
    CallDone done;
    stats::CallMeter meter;
    std::shared_ptr<CallObserver> observer;
  };

  // Sends a request; `done` runs exactly once. It runs on the calling thread when the call
  // fails before anything is queued, e.g. while the connection is down in backoff. Returns the
  // call's id on this connection, for Cancel(); 0 when it failed before being queued, so was
  // certainly not sent: down, draining, its link ended before the request was queued, or the
  // write queue full (UNAVAILABLE, the peer reading too slowly).
  // `meter` counts the outcome, and `observer`, if any, is told it, just before `done` runs.
  // With `refused`, a connection whose server is draining (GOAWAY) returns 0 with `done`,
  // `meter` and `observer` moved there, not run; without, such a call fails with DRAINING.
  // `body`, when not null, is `request` encoded already (what client filters saw), sent as is.
  uint64_t Call(const wire::RpcMeta& meta, const google::protobuf::Message& request,
                const codec::EncodedBody* body, google::protobuf::Message* response,
                Clock::time_point deadline, std::chrono::milliseconds timeout, CallDone done,
                stats::CallMeter meter = {}, std::shared_ptr<CallObserver> observer = nullptr,
                Refused* refused = nullptr);
  // The same for a request encoded beforehand, sent with `timeout_us` left of its deadline.
  uint64_t Call(const codec::EncodedRequest& request, uint64_t timeout_us,
                google::protobuf::Message* response, Clock::time_point deadline,
                std::chrono::milliseconds timeout, CallDone done);

  // If call `id` is still pending: completes it with CANCELLED on the calling thread, tells the
  // server to drop it and returns true. False when something else took the call first (its
  // response, its timeout, the end of its link): that completion runs on its own thread, maybe
  // still writing the response, and `done` has run or is about to. For a caller that no longer
  // wants the answer (a backup request's loser, a cancelled call). Safe from any thread.
  bool Cancel(uint64_t id);
  // Makes `cancellation` cancel call `id` (0: nothing to do). The hook holds the connection
  // weakly, so a handle kept after the channel is gone cancels nothing.
  void CancelOn(Cancellation& cancellation, uint64_t id);

  // Completes every pending call with CANCELLED, on the calling thread, and closes the socket.
  // Later calls fail with CANCELLED. Idempotent.
  void Shutdown();

  ClientStats stats() const;

  // The server said GOAWAY on the last link and no link has connected since: it is draining,
  // and calls to it are refused before they are sent.
  bool draining() const { return draining_.load(std::memory_order_acquire); }

  // The link a call made now would be queued on. A call that failed was certainly never
  // written to a socket when the link did not change while it was being queued and neither
  // that link nor a later one ever connected: requests are only written on a connected link,
  // a link that ends drops what it has not written, and it fails only the calls admitted to it
  // or an earlier link (a call already queued on the next link stays, and leaves when that one
  // connects). Lets a cluster channel retry such a call elsewhere even when its method is not
  // idempotent.
  uint64_t link() const { return LinkOf(state_.load(std::memory_order_acquire)); }
  bool ConnectedSince(uint64_t link) const {
    return connected_link_.load(std::memory_order_acquire) > link;
  }

 private:
  friend class ClientConnectionPeer;  // tests/client/client_connection_peer.h

  enum class State : uint8_t { kIdle, kConnecting, kConnected, kBackoff, kShutdown };
  // state_ holds a link and that link's State in one word, so that every transition is tied to
  // the link it is about: a compare-and-swap made for one link's backoff cannot succeed against
  // a later link's.
  static constexpr unsigned kStateBits = 3;
  static constexpr uint64_t Pack(uint64_t link, State state) {
    return link << kStateBits | static_cast<uint64_t>(state);
  }
  static constexpr uint64_t LinkOf(uint64_t word) { return word >> kStateBits; }
  static constexpr State StateOf(uint64_t word) {
    return static_cast<State>(word & ((uint64_t{1} << kStateBits) - 1));
  }

  // Test seams: points where a test stops a thread to play one interleaving exactly. Installed
  // only by tests (ClientConnectionPeer), for every connection of the process; looked at on
  // rare paths only (a link ending, a backoff found over), never per call. A hook that runs
  // holds its Hooks, so that whoever removes them can wait for it to be over.
  struct Hooks {
    using Hook = std::function<void(ClientConnection&)>;
    Hook queue_cleared;  // EndLink: the queue refuses the ended link; callers still see it
    Hook link_ended;     // EndLink: the next link is published; the ended link's calls not failed
    Hook backoff_over;   // Admit: a backoff read and found over, before the CAS ending it
  };
  static inline std::atomic<bool> hooked_{false};
  static inline Mutex hooks_mu_;
  static inline std::shared_ptr<const Hooks> hooks_ FERRY_GUARDED_BY(hooks_mu_);
  void RunHook(Hooks::Hook Hooks::*point);

  // Calling-thread side.
  // Call() once `encode(id, &frame)` has appended the request's frame.
  template <class Encode>
  uint64_t Send(const Encode& encode, PendingCall call, Refused* refused);
  // Ok when a call may be queued now, on link `*link`.
  Status Admit(uint64_t* link);
  Status DownStatus() const;
  void Abandon(uint64_t id);
  void Enqueue(std::string_view frame);
  void SendControl(codec::MessageType type, uint64_t id, uint8_t flags);
  void ScheduleSweepBy(Clock::time_point deadline);
  // Completes the calls admitted to `through_link` or an earlier link.
  static constexpr uint64_t kEveryLink = std::numeric_limits<uint64_t>::max();
  void FailAll(const Status& status, uint64_t through_link);

  // IO-thread side.
  bool IsCurrent(uint64_t link) const {
    return LinkOf(state_.load(std::memory_order_acquire)) == link;
  }
  void StartConnect(uint64_t link);
  void OnConnected(uint64_t link, const boost::system::error_code& ec);
  // With clients.<name>.tls: the handshake, on a TLS session new to this link.
  void StartHandshake(uint64_t link);
  // The link carries requests: TCP connected, and TLS established if configured.
  void OnEstablished(uint64_t link);
  void StartRead(uint64_t link);
  void OnRead(uint64_t link, const boost::system::error_code& ec, size_t bytes);
  void Dispatch(const codec::Frame& frame);
  void OnGoAway();
  void CompleteCall(const codec::Frame& frame);
  void Flush();
  void OnWritten(uint64_t link, const boost::system::error_code& ec);
  void ArmHeartbeat(uint64_t link);
  void OnHeartbeatDue(uint64_t link);
  void EndLink(std::string_view reason);
  void CloseSocket();
  void OnBackoffElapsed(uint64_t link);
  void ArmSweepTimer();
  void Sweep();

  boost::asio::io_context& io_;
  const transport::Endpoint endpoint_;
  const std::string peer_;
  const ClientOptions options_;
  const codec::BodyOptions body_options_;

  // Pack(link, state): read by every calling thread on every call; written only when a link
  // starts or ends. The link is bumped whenever one ends (and on shutdown). IO handlers carry
  // the link they belong to and ignore themselves once it moved on; callers use it to notice a
  // link ending while they were queueing a request.
  std::atomic<uint64_t> state_{Pack(0, State::kIdle)};
  // 1 + the last link that connected; 0 while none has. Published before the link is
  // kConnected, so before anything is written on it.
  std::atomic<uint64_t> connected_link_{0};
  std::atomic<bool> draining_{false};
  std::atomic<Clock::time_point> retry_at_{Clock::time_point::min()};
  // When the timeout sweep is due; max() while none is scheduled.
  std::atomic<Clock::time_point> sweep_at_{Clock::time_point::max()};
  // Written by every call: kept off the read-mostly line above.
  alignas(64) std::atomic<uint64_t> next_id_{1};

  PendingCallTable pending_;
  transport::OutboundQueue outbox_;
  mutable Mutex last_error_mu_;
  std::string last_error_ FERRY_GUARDED_BY(last_error_mu_);

  // Written by the IO thread, read by stats().
  std::atomic<uint64_t> late_responses_{0};
  metrics::Counter* late_responses_metric_ = nullptr;  // the process's, for this connection's peer
  std::atomic<uint64_t> reconnects_{0};
  std::atomic<uint64_t> flushes_{0};

  // IO thread only.
  boost::asio::ip::tcp::resolver resolver_;
  transport::MaybeTlsSocket socket_;
  // options_.tls's context, shared by this connection's links; null for plaintext. With an
  // error loading its files instead, every connect fails with `tls_error_`.
  std::shared_ptr<boost::asio::ssl::context> tls_context_;
  std::string tls_error_;
  // Why the last handshake refused the server's certificate, if it did.
  std::shared_ptr<std::string> tls_refusal_;
  boost::asio::steady_timer connect_timer_;
  boost::asio::steady_timer heartbeat_timer_;
  boost::asio::steady_timer backoff_timer_;
  boost::asio::steady_timer sweep_timer_;
  codec::FrameDecoder decoder_;
  codec::Frame frame_;
  std::string write_buffer_;
  bool writing_ = false;
  bool ever_connected_ = false;
  Clock::time_point last_received_;
  ReconnectBackoff backoff_;
  std::vector<PendingCallTable::Entry> expired_;
};

}  // namespace ferry::client
