#pragma once

#include <openssl/ssl.h>

#include <boost/asio/ssl/verify_context.hpp>
#include <memory>
#include <string>

// Who is at the other end of a TLS session: the checks a client makes of the server's
// certificate, and the identity a server reads from a client's.
namespace ferry::transport {

// The verify callback of a client's session: the server's certificate must chain to a trusted
// CA and be issued for `host` (a DNS name, or an IP address matched against IP SANs). Why it
// was refused lands in `reason`, since the handshake's own error only says that verification
// failed.
class ServerCertificateCheck {
 public:
  ServerCertificateCheck(std::string host, std::shared_ptr<std::string> reason)
      : host_(std::move(host)), reason_(std::move(reason)) {}

  bool operator()(bool preverified, boost::asio::ssl::verify_context& context) const;

 private:
  std::string host_;
  std::shared_ptr<std::string> reason_;
};

// The common name (CN) of the subject of the certificate the peer presented, which the session
// verified; empty when it presented none.
std::string PeerCommonName(SSL* session);

// Whether `host` is an IP address, which SNI must not carry.
bool IsIpAddress(const std::string& host);

}  // namespace ferry::transport
