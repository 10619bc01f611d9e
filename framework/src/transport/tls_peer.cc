#include "transport/tls_peer.h"

#include <openssl/x509.h>
#include <openssl/x509v3.h>

#include <array>
#include <boost/asio/ip/address.hpp>
#include <boost/asio/ssl/host_name_verification.hpp>

namespace ferry::transport {

bool ServerCertificateCheck::operator()(bool preverified,
                                        boost::asio::ssl::verify_context& context) const {
  X509_STORE_CTX* store = context.native_handle();
  if (!preverified) {
    *reason_ = X509_verify_cert_error_string(X509_STORE_CTX_get_error(store));
    return false;
  }
  if (boost::asio::ssl::host_name_verification(host_)(preverified, context)) return true;
  *reason_ = "its certificate is not issued for '" + host_ + "' (server_name)";
  return false;
}

std::string PeerCommonName(SSL* session) {
  X509* certificate = SSL_get1_peer_certificate(session);
  if (certificate == nullptr) return "";
  std::array<char, 256> name{};
  const int length = X509_NAME_get_text_by_NID(X509_get_subject_name(certificate), NID_commonName,
                                               name.data(), name.size());
  X509_free(certificate);
  return length > 0 ? std::string(name.data(), static_cast<size_t>(length)) : "";
}

bool IsIpAddress(const std::string& host) {
  boost::system::error_code error;
  boost::asio::ip::make_address(host, error);
  return !error;
}

}  // namespace ferry::transport
