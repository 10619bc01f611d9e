#pragma once

#include <boost/asio/ssl/context.hpp>
#include <memory>
#include <string>

#include "ferry/codec/status.h"
#include "ferry/framework/tls_options.h"

// The OpenSSL contexts TLS connections share, one per server and one per client connection,
// built from the files a `tls:` section names. Loading also checks the files, so that start-up
// (the config reader and Server::Start) refuses a missing or broken one before serving.
namespace ferry::transport {

// On failure INVALID_ARGUMENT, with `failed_key` the section's key of the file at fault
// ("cert_file", "key_file", "ca_file") and a message that names the file and what is wrong.
Status NewServerTlsContext(const ServerTlsOptions& options,
                           std::shared_ptr<boost::asio::ssl::context>* out,
                           std::string* failed_key);
Status NewClientTlsContext(const ClientTlsOptions& options,
                           std::shared_ptr<boost::asio::ssl::context>* out,
                           std::string* failed_key);

}  // namespace ferry::transport
