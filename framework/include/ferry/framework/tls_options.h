#pragma once

#include <string>

namespace ferry {

// YAML `server.tls`: TLS on the server's port, for the binary protocol and HTTP alike
// (docs/tls.md). Files are PEM.
struct ServerTlsOptions {
  std::string cert_file;  // cert_file: the server's certificate chain; empty: no TLS
  std::string key_file;   // key_file: its private key
  // ca_file: the CA(s) client certificates must chain to (mTLS); empty: none are asked for.
  std::string ca_file;
  // client_cert: whether a client must present a certificate that verifies against ca_file.
  enum class ClientCert { kNone, kOptional, kRequire };
  ClientCert client_cert = ClientCert::kNone;  // none | optional | require (with ca_file)
  // accept_plaintext: also serve clients that do not speak TLS on the port, while they migrate.
  bool accept_plaintext = false;
  // handshake_threads: the threads TLS handshakes run on, apart from the IO threads, so that a
  // flood of handshakes (each costs a signature) slows new connections, not established ones.
  size_t handshake_threads = 1;

  bool enabled() const { return !cert_file.empty(); }
};

// YAML `clients.<name>.tls`: TLS to the service's providers (docs/tls.md). Files are PEM.
struct ClientTlsOptions {
  bool enabled = false;  // the `tls:` section is present
  // ca_file: the CA(s) the server's certificate must chain to; empty: the system's trust store.
  std::string ca_file;
  std::string cert_file;  // cert_file: this client's certificate chain, for mTLS
  std::string key_file;   // key_file: its private key
  // server_name: the name sent as SNI and checked against the server's certificate; empty: the
  // host of the target (or of each provider found through the registry).
  std::string server_name;
  // verify: false accepts any certificate the server shows, which anyone on the path can forge;
  // for tests only (docs/tls.md).
  bool verify = true;
};

}  // namespace ferry
