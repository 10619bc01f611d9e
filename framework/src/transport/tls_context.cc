#include "transport/tls_context.h"

#include <openssl/err.h>
#include <openssl/ssl.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>

namespace ferry::transport {
namespace {

namespace ssl = boost::asio::ssl;

// Identifies the server's sessions, without which OpenSSL refuses to resume a session of a
// client whose certificate it verified.
constexpr unsigned char kSessionIdContext[] = "ferry";

Status Invalid(std::string message) {
  return Status(StatusCode::INVALID_ARGUMENT, std::move(message));
}

std::string Quoted(const std::string& path) { return "'" + path + "'"; }

// OpenSSL's reason for the last failure, which its own messages ("no start line") leave
// cryptic without it; clears the error queue, so later failures do not report this one.
std::string OpenSslReason(const boost::system::error_code& error) {
  ERR_clear_error();
  return " (OpenSSL: " + error.message() + ")";
}

// Missing and unreadable files are told apart from broken ones, which OpenSSL would report
// alike.
Status CheckReadable(const std::string& path) {
  std::error_code fs_error;
  if (std::filesystem::is_directory(path, fs_error)) {
    return Invalid(Quoted(path) + " is a directory, not a PEM file");
  }
  std::ifstream file(path, std::ios::binary);
  if (!file) return Invalid("cannot open " + Quoted(path) + ": " + std::strerror(errno));
  if (file.peek() == std::ifstream::traits_type::eof() && file.bad()) {
    return Invalid("cannot read " + Quoted(path) + ": " + std::strerror(errno));
  }
  return Status::Ok();
}

Status Fail(std::string* failed_key, const char* key, Status status) {
  *failed_key = key;
  return status;
}

// A certificate chain and its key, as the server (or a client, for mTLS) shows them.
Status UseIdentity(ssl::context& context, const std::string& cert_file, const std::string& key_file,
                   std::string* failed_key) {
  if (Status status = CheckReadable(cert_file); !status.ok()) {
    return Fail(failed_key, "cert_file", status);
  }
  if (Status status = CheckReadable(key_file); !status.ok()) {
    return Fail(failed_key, "key_file", status);
  }
  boost::system::error_code error;
  context.use_certificate_chain_file(cert_file, error);
  if (error) {
    return Fail(failed_key, "cert_file",
                Invalid(Quoted(cert_file) + " holds no PEM certificate" + OpenSslReason(error)));
  }
  // An encrypted key would otherwise make OpenSSL ask for its passphrase on the terminal.
  context.set_password_callback(
      [](size_t, ssl::context::password_purpose) { return std::string(); }, error);
  context.use_private_key_file(key_file, ssl::context::pem, error);
  if (error) {
    const bool mismatch =
        ERR_GET_REASON(static_cast<unsigned long>(error.value())) == X509_R_KEY_VALUES_MISMATCH ||
        ERR_GET_REASON(ERR_peek_last_error()) == X509_R_KEY_VALUES_MISMATCH;
    ERR_clear_error();
    if (mismatch) {
      return Fail(failed_key, "key_file",
                  Invalid("the private key in " + Quoted(key_file) +
                          " does not match the certificate in " + Quoted(cert_file)));
    }
    return Fail(failed_key, "key_file",
                Invalid(Quoted(key_file) + " holds no unencrypted PEM private key (OpenSSL: " +
                        error.message() + ")"));
  }
  if (SSL_CTX_check_private_key(context.native_handle()) != 1) {
    ERR_clear_error();
    return Fail(failed_key, "key_file",
                Invalid("the private key in " + Quoted(key_file) +
                        " does not match the certificate in " + Quoted(cert_file)));
  }
  return Status::Ok();
}

Status TrustCa(ssl::context& context, const std::string& ca_file, std::string* failed_key) {
  if (Status status = CheckReadable(ca_file); !status.ok()) {
    return Fail(failed_key, "ca_file", status);
  }
  boost::system::error_code error;
  context.load_verify_file(ca_file, error);
  if (error) {
    return Fail(failed_key, "ca_file",
                Invalid(Quoted(ca_file) + " holds no PEM CA certificate" + OpenSslReason(error)));
  }
  return Status::Ok();
}

// TLS 1.2 and 1.3 only: what every supported peer speaks, and nothing known to be broken.
std::shared_ptr<ssl::context> NewContext(ssl::context::method method) {
  auto context = std::make_shared<ssl::context>(method);
  context->set_options(ssl::context::default_workarounds | ssl::context::no_sslv2 |
                       ssl::context::no_sslv3 | ssl::context::no_tlsv1 | ssl::context::no_tlsv1_1);
  SSL_CTX_set_min_proto_version(context->native_handle(), TLS1_2_VERSION);
  // Reads every record that has arrived at once, not one at a time: fewer calls into the
  // session, and SSL_has_pending() tells a connection that more requests wait behind a record.
  SSL_CTX_set_read_ahead(context->native_handle(), 1);
  return context;
}

}  // namespace

Status NewServerTlsContext(const ServerTlsOptions& options, std::shared_ptr<ssl::context>* out,
                           std::string* failed_key) {
  std::shared_ptr<ssl::context> context = NewContext(ssl::context::tls_server);
  if (Status status = UseIdentity(*context, options.cert_file, options.key_file, failed_key);
      !status.ok()) {
    return status;
  }
  SSL_CTX_set_session_id_context(context->native_handle(), kSessionIdContext,
                                 sizeof(kSessionIdContext) - 1);
  if (!options.ca_file.empty()) {
    if (Status status = TrustCa(*context, options.ca_file, failed_key); !status.ok()) {
      return status;
    }
    // Tells clients which CAs their certificate should come from.
    SSL_CTX_set_client_CA_list(context->native_handle(),
                               SSL_load_client_CA_file(options.ca_file.c_str()));
  }
  switch (options.client_cert) {
    case ServerTlsOptions::ClientCert::kNone:
      context->set_verify_mode(ssl::verify_none);
      break;
    case ServerTlsOptions::ClientCert::kOptional:
      context->set_verify_mode(ssl::verify_peer);
      break;
    case ServerTlsOptions::ClientCert::kRequire:
      context->set_verify_mode(ssl::verify_peer | ssl::verify_fail_if_no_peer_cert);
      break;
  }
  *out = std::move(context);
  return Status::Ok();
}

Status NewClientTlsContext(const ClientTlsOptions& options, std::shared_ptr<ssl::context>* out,
                           std::string* failed_key) {
  std::shared_ptr<ssl::context> context = NewContext(ssl::context::tls_client);
  if (!options.cert_file.empty() || !options.key_file.empty()) {
    if (Status status = UseIdentity(*context, options.cert_file, options.key_file, failed_key);
        !status.ok()) {
      return status;
    }
  }
  if (!options.verify) {
    context->set_verify_mode(ssl::verify_none);
  } else {
    if (!options.ca_file.empty()) {
      if (Status status = TrustCa(*context, options.ca_file, failed_key); !status.ok()) {
        return status;
      }
    } else {
      boost::system::error_code error;
      context->set_default_verify_paths(error);
      if (error) {
        *failed_key = "ca_file";
        return Invalid("no ca_file, and the system's trust store cannot be loaded" +
                       OpenSslReason(error));
      }
    }
    context->set_verify_mode(ssl::verify_peer);
  }
  *out = std::move(context);
  return Status::Ok();
}

}  // namespace ferry::transport
