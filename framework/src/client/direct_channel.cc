#include "client/direct_channel.h"

#include <google/protobuf/message.h>

#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "client/request_meta.h"
#include "ferry/codec/compressor.h"
#include "ferry/codec/serializer.h"
#include "ferry/rpc_meta.pb.h"
#include "stats/call_metrics.h"

namespace ferry {

Status NewChannel(const ClientOptions& options, std::shared_ptr<Channel>* out) {
  transport::Endpoint endpoint;
  if (Status parsed = transport::ParseEndpoint(options.target, &endpoint); !parsed.ok()) {
    return parsed;
  }
  const codec::Serializer* serializer = codec::FindSerializer(options.serializer);
  if (serializer == nullptr) {
    return Status(StatusCode::INVALID_ARGUMENT, "unknown serializer '" + options.serializer + "'");
  }
  codec::BodyOptions body;
  body.serializer = serializer->id();
  body.compress_threshold = options.compress_threshold;
  body.compression_level = options.compression_level;
  if (options.compression != "none") {
    const codec::Compressor* compressor = codec::FindCompressor(options.compression);
    if (compressor == nullptr) {
      return Status(StatusCode::INVALID_ARGUMENT,
                    "unknown compression algorithm '" + options.compression + "'");
    }
    body.compression = compressor->id();
  }
  filter::ClientFilterChain filters;
  if (Status created = filter::ClientFilterChain::Create(options.filters, options.default_timeout,
                                                         body, options.max_frame_bytes, &filters);
      !created.ok()) {
    return created;
  }
  *out = std::make_shared<client::DirectChannel>(options, std::move(endpoint), body,
                                                 std::move(filters));
  return Status::Ok();
}

namespace client {

DirectChannel::DirectChannel(const ClientOptions& options, transport::Endpoint endpoint,
                             codec::BodyOptions body_options, filter::ClientFilterChain filters)
    : filters_(std::move(filters)),
      default_timeout_(options.default_timeout),
      metrics_(options.metrics),
      pool_(std::make_unique<transport::IoThreadPool>(options.io_threads, "ferry-client")),
      connection_(std::make_shared<ClientConnection>(pool_->Next(), std::move(endpoint), options,
                                                     body_options)) {}

DirectChannel::~DirectChannel() {
  connection_->Shutdown();
  pool_->Stop();
  if (OnOwnIoThread()) {
    std::thread([pool = std::move(pool_), connection = std::move(connection_)]() mutable {
      connection.reset();
      pool.reset();
    }).detach();
  }
}

bool DirectChannel::OnOwnIoThread() const {
  for (size_t i = 0; i < pool_->size(); ++i) {
    if (pool_->At(i).get_executor().running_in_this_thread()) return true;
  }
  return false;
}

void DirectChannel::CallMethod(const MethodSpec& method, const google::protobuf::Message& request,
                               google::protobuf::Message* response, const CallOptions& options,
                               CallDone done) {
  filters_.Run(method, request, options, std::move(done),
               [&](auto&& sent, Clock::time_point started, CallDone&& completion,
                   const codec::EncodedBody* body) {
                 Send(method, request, body, response, std::forward<decltype(sent)>(sent), started,
                      std::move(completion));
               });
}

template <class Options>
void DirectChannel::Send(const MethodSpec& method, const google::protobuf::Message& request,
                         const codec::EncodedBody* body, google::protobuf::Message* response,
                         Options&& options, Clock::time_point started, CallDone&& done) {
  const std::chrono::milliseconds timeout =
      options.timeout > std::chrono::milliseconds::zero() ? options.timeout : default_timeout_;
  const bool bounded = timeout > std::chrono::milliseconds::zero();
  const Clock::time_point deadline = bounded ? started + timeout : Clock::time_point::max();
  // Before FillRequestMeta, which may take the options' strings.
  Cancellation* const cancellation = options.cancellation;
  // Reused per thread: it is serialized before Call() returns.
  thread_local wire::RpcMeta meta;
  FillRequestMeta(
      method, std::forward<Options>(options),
      {.timeout_us =
           bounded ? static_cast<uint64_t>(
                         std::chrono::duration_cast<std::chrono::microseconds>(timeout).count())
                   : 0,
       .max_response_bytes = connection_->max_frame_bytes()},
      &meta);
  stats::CallMeter meter;
  if (metrics_) meter = stats::CallMeter(&stats::ClientMetricsFor(method), started);
  const uint64_t id = connection_->Call(meta, request, body, response, deadline, timeout,
                                        std::move(done), std::move(meter));
  if (cancellation != nullptr) connection_->CancelOn(*cancellation, id);
}

}  // namespace client
}  // namespace ferry
