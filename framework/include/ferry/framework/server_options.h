#pragma once

#include <chrono>
#include <cstddef>
#include <string>
#include <vector>

#include "ferry/framework/filter.h"
#include "ferry/framework/tls_options.h"

namespace ferry {

// YAML `server.http`: HTTP/1.1 on the server's port, beside the binary protocol (docs/http.md).
struct HttpOptions {
  bool enabled = true;                               // enabled
  size_t max_header_bytes = 16u << 10;               // max_header_bytes
  size_t max_body_bytes = 4u << 20;                  // max_body_bytes
  std::chrono::milliseconds request_timeout{10000};  // request_timeout_ms: first byte to last
  // admin_listen: "host:port" of a listener for the admin pages (metrics, health, status) alone;
  // empty: they are served on the server's port.
  std::string admin_listen;
  // trusted_proxies: networks ("10.0.0.0/8", "::1/128", or one address) of reverse proxies whose
  // X-Forwarded-For names the client (ServerContext::client_address()); empty: nobody's does.
  std::vector<std::string> trusted_proxies;
  // admin_networks: networks, as trusted_proxies, of the clients (HttpRequest::client_address())
  // that may read the admin pages on the server's port when they have no admin_listen of their
  // own; to others they are not there (404), health probes excepted. Empty: nobody.
  std::vector<std::string> admin_networks = {"127.0.0.0/8", "::1/128"};
  // admin_hosts: names an admin page's request may give as its Host besides an IP address,
  // localhost and the hosts of listen and admin_listen (DNS rebinding, docs/http.md).
  std::vector<std::string> admin_hosts;
};

// YAML `server.limits`: what one peer, and all peers together, can make the server hold, so
// that memory is bounded by configuration and not by what peers send (docs/configuration.md).
struct ConnectionLimits {
  // frame_timeout_ms: a frame must arrive whole this long after its first byte; 0: no limit.
  std::chrono::milliseconds frame_timeout{30000};
  // first_byte_timeout_ms: a connection must send its first byte this long after it was
  // accepted, or it is closed (a slot held by a peer that never speaks); 0: no limit.
  std::chrono::milliseconds first_byte_timeout{10000};
  // handshake_timeout_ms: with server.tls, a connection must finish its TLS handshake (first
  // byte included) this long after it was accepted.
  std::chrono::milliseconds handshake_timeout{10000};
  // max_handshakes: TLS handshakes in progress at once, all listeners together; a connection
  // that would start one more is closed (its peer retries). They run on server.tls's
  // handshake_threads, not on the IO threads of established connections.
  size_t max_handshakes = 256;
  // outbound_high_water_bytes: a connection with more answers than this unwritten (its peer
  // reads slowly or not at all) is no longer read from until they drain to half of it.
  size_t outbound_high_water_bytes = 8u << 20;
  // max_outbound_bytes: one with more than this unwritten is closed.
  size_t max_outbound_bytes = 64u << 20;
  size_t max_connections = 10000;  // max_connections: open at once; more are refused
  // max_connections_per_peer: from one peer, a peer being the addresses that share their
  // first peer_prefix_v4 (IPv4, and IPv4-mapped IPv6) or peer_prefix_v6 bits: one host is
  // given a whole IPv6 /64, so counting each /128 apart would not bound it.
  size_t max_connections_per_peer = 1000;
  unsigned peer_prefix_v4 = 32;  // peer_prefix_v4: 1..32
  unsigned peer_prefix_v6 = 64;  // peer_prefix_v6: 1..128
  // max_buffered_bytes: what every connection holds together: read buffers, HTTP request
  // bodies, the bodies of calls not yet decoded (queued ones included) and unwritten answers.
  // Past it, new connections are refused, a connection whose read buffer must grow is closed,
  // and one with answers unwritten is not read from until they are written.
  size_t max_buffered_bytes = 1u << 30;
  // max_queued_bytes: the request bodies of the calls waiting for a business pool worker,
  // together; a call that would take them past it is answered OVERLOADED, as one past
  // business_pool.queue_capacity is (one call alone is queued whatever its size).
  size_t max_queued_bytes = 64u << 20;
};

// Every field maps to a YAML key under `server:` (docs/configuration.md).
struct ServerOptions {
  std::string listen = "127.0.0.1:0";  // listen: "host:port"; port 0 picks one
  size_t io_threads = 1;               // io_threads
  size_t worker_threads = 4;           // business_pool.threads
  size_t queue_capacity = 1024;        // business_pool.queue_capacity
  // grace_period_ms: once draining, how long calls in flight may take before connections close.
  std::chrono::milliseconds grace_period{5000};
  // drain_delay_ms: how long an App that is stopping keeps serving after it unregistered, while
  // consumers learn from the registry that it is leaving (a ZooKeeper watch takes milliseconds;
  // this covers a loaded consumer and a slow session).
  std::chrono::milliseconds drain_delay{1000};
  std::chrono::milliseconds idle_timeout{60000};  // idle_timeout_ms: close silent connections
  std::string compression = "none";               // compression.algorithm: none | zstd
  size_t compress_threshold = 4096;               // compression.threshold_bytes
  int compression_level = 1;                      // compression.level
  size_t max_frame_bytes = 16u << 20;             // max_frame_bytes
  std::vector<FilterSpec> filters;                // filters: run around every call, in order
  HttpOptions http;                               // http
  ConnectionLimits limits;                        // limits
  ServerTlsOptions tls;                           // tls: none unless tls.cert_file is set
  // slow_call_ms: calls that take longer are logged with their trace and kept for the status
  // page; 0: none is.
  std::chrono::milliseconds slow_call{1000};
  // metrics: count calls, by method and status, for /metrics (docs/metrics.md).
  bool metrics = true;
};

}  // namespace ferry
