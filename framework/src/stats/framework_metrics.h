#pragma once

#include <string_view>

#include "ferry/framework/metrics.h"

namespace ferry::stats {

// The framework's metrics that are not per method (docs/metrics.md), in the process-wide
// registry, registered on first use.

// What every server of the process shares: its business pools, connections and bytes, by the
// protocol a connection speaks.
struct ServerMetrics {
  enum Protocol { kBinary = 0, kHttp = 1 };
  // What server.limits made a server do (docs/configuration.md).
  enum LimitEvent {
    kReadPaused,         // stopped reading a connection whose answers were not read
    kFrameTimeout,       // closed one whose frame did not arrive in time
    kOutboundOverflow,   // closed one past max_outbound_bytes
    kBuffersFull,        // closed one whose read buffer had to grow past max_buffered_bytes
    kConnectionRefused,  // refused a new connection
    kFirstByteTimeout,   // closed one that sent nothing within first_byte_timeout_ms
    kLimitEvents
  };

  metrics::Counter* pool_rejections;
  metrics::Histogram* queue_wait;
  metrics::UpDownCounter* connections[2];
  metrics::Counter* received_bytes[2];
  metrics::Counter* sent_bytes[2];
  metrics::Counter* limit_events[kLimitEvents];
  // Connections to a TLS port that never got as far as a request (docs/tls.md).
  enum TlsFailure {
    kTlsHandshakeFailed,   // the handshake failed: a certificate refused, a protocol error
    kTlsHandshakeTimeout,  // it did not finish within server.limits.handshake_timeout_ms
    kTlsPlaintext,         // the client spoke plaintext, which server.tls refuses
    kTlsBusy,              // max_handshakes were in progress already
    kTlsFailures
  };
  metrics::Counter* tls_failures[kTlsFailures];
  // Bound by each server for its own pool, labelled with its port.
  metrics::CallbackFamily* queue_depth;
  // Bound by each server: what its connections hold against server.limits.max_buffered_bytes.
  metrics::CallbackFamily* buffered_bytes;
  // Bound by each TLS server: its handshakes in progress, against server.limits.max_handshakes.
  metrics::CallbackFamily* tls_handshakes;
};
const ServerMetrics& Server();

// What the calls of one cluster channel's service did beyond their first attempt.
struct ClusterMetrics {
  metrics::Counter* retries;
  metrics::Counter* backup_requests;
  metrics::Counter* ejections;
  metrics::Counter* budget_refusals;
};
const ClusterMetrics& ClusterFor(std::string_view service);

// Responses that came after their call had been given up, by the address they came from.
metrics::Counter* LateResponsesFrom(std::string_view target);

}  // namespace ferry::stats
