#include "http/http_session.h"

#include <google/protobuf/message.h>

#include <algorithm>
#include <boost/asio/post.hpp>
#include <boost/beast/core/buffers_to_string.hpp>
#include <boost/beast/core/string.hpp>
#include <boost/beast/http/error.hpp>
#include <boost/beast/http/parser.hpp>
#include <boost/beast/http/serializer.hpp>
#include <boost/beast/http/string_body.hpp>
#include <cctype>
#include <stdexcept>

#include "ferry/codec/frame_decoder.h"
#include "ferry/codec/json_codec.h"
#include "http/forwarded_for.h"
#include "http/http_exchange.h"
#include "http/http_status.h"
#include "server/http_gateway.h"
#include "server/server_connection.h"

namespace ferry::http {

namespace beast_http = boost::beast::http;

// A request body as std::string, holding what has arrived rather than what Content-Length
// claims: Beast's string_body reserves the claimed length at once, so headers alone would make
// the server hold max_body_bytes per connection. It grows by doubling, never past the claimed
// length, and charges ServerCore::buffers through HttpSession::held_bytes().
struct ArrivingStringBody {
  using value_type = std::string;

  class reader {
   public:
    template <bool isRequest, class Fields>
    reader(beast_http::header<isRequest, Fields>&, value_type& body) : body_(body) {}

    void init(const boost::optional<uint64_t>& length, boost::system::error_code& error) {
      if (length) length_ = *length;
      error = {};
    }

    template <class ConstBufferSequence>
    size_t put(const ConstBufferSequence& buffers, boost::system::error_code& error) {
      const size_t extra = boost::beast::buffer_bytes(buffers);
      const size_t needed = body_.size() + extra;
      if (needed > body_.capacity()) {
        size_t grown = std::max(needed, 2 * body_.capacity());
        if (length_ >= needed) grown = std::min<uint64_t>(grown, length_);
        body_.reserve(grown);
      }
      for (const auto buffer : boost::beast::buffers_range_ref(buffers)) {
        body_.append(static_cast<const char*>(buffer.data()), buffer.size());
      }
      error = {};
      return extra;
    }

    void finish(boost::system::error_code& error) { error = {}; }

   private:
    value_type& body_;
    uint64_t length_ = 0;  // Content-Length; 0 when chunked
  };
};

using RequestParser = beast_http::request_parser<ArrivingStringBody>;

struct HttpSession::Parser {
  explicit Parser(const HttpOptions& options) {
    parser.header_limit(static_cast<uint32_t>(options.max_header_bytes));
    parser.body_limit(options.max_body_bytes);
    parser.eager(true);
  }
  RequestParser parser;
  bool framing_checked = false;  // CheckFraming() ran
};

// Nothing of its own: an HttpExchange the session's header can name without including it.
class HttpSession::Exchange : public HttpExchange {
 public:
  using HttpExchange::HttpExchange;
};

namespace {

HttpResponse JsonError(int status, StatusCode code, std::string_view message) {
  HttpResponse response;
  response.status = status;
  response.Set("Content-Type", "application/json");
  response.body = ErrorJson(code, message);
  return response;
}

bool IsTokenChar(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
         std::string_view("!#$%&'*+-.^_`|~").find(c) != std::string_view::npos;
}

// Why `response` cannot be written as HTTP, or "" when it can: a field name is a token and a
// value holds no CR, LF or NUL (RFC 9110 §5.1, §5.5), else a route that puts its input into a
// header would split its answer in two; and Beast takes only three-digit statuses.
std::string InvalidAnswer(const HttpResponse& response) {
  if (response.status < 100 || response.status > 999) {
    return "its status " + std::to_string(response.status) + " is not three digits";
  }
  for (const auto& [name, value] : response.headers) {
    if (name.empty() || !std::all_of(name.begin(), name.end(), IsTokenChar)) {
      return "a header name is not an HTTP token";
    }
    if (value.find_first_of(std::string_view("\r\n\0", 3)) != std::string::npos) {
      return "header " + name + " has CR, LF or NUL in its value";
    }
  }
  return "";
}

std::string_view TrimmedOws(std::string_view text) {
  const size_t begin = text.find_first_not_of(" \t");
  if (begin == std::string_view::npos) return {};
  return text.substr(begin, text.find_last_not_of(" \t") - begin + 1);
}

// `response` as the bytes of an HTTP/1.x response, through Beast's serializer, into a buffer of
// the thread's that keeps its capacity from response to response: it is copied into the
// connection's outbound queue before the next one is written.
std::string_view Serialize(HttpResponse response, unsigned version, bool keep_alive, bool head) {
  beast_http::response<beast_http::string_body> message;
  message.version(version);
  message.result(static_cast<unsigned>(response.status));
  for (auto& [name, value] : response.headers) message.insert(name, value);
  message.keep_alive(keep_alive);
  message.body() = std::move(response.body);
  message.prepare_payload();  // Content-Length, also for HEAD: the length GET would send
  thread_local std::string bytes;
  bytes.clear();
  beast_http::serializer<false, beast_http::string_body> serializer(message);
  serializer.split(head);  // HEAD: the header alone
  boost::system::error_code error;
  while (!serializer.is_done() && !(head && serializer.is_header_done())) {
    serializer.next(error, [&](boost::system::error_code&, const auto& buffers) {
      for (const auto buffer : boost::beast::buffers_range_ref(buffers)) {
        bytes.append(static_cast<const char*>(buffer.data()), buffer.size());
      }
      serializer.consume(boost::beast::buffer_bytes(buffers));
    });
    if (error) break;
  }
  return bytes;
}

}  // namespace

HttpSession::HttpSession(server::ServerConnection& connection, const HttpOptions& options,
                         const HttpRouter& router, HttpRouter::Port port)
    : connection_(connection),
      options_(options),
      router_(router),
      port_(port),
      request_timer_(connection.executor()),
      deadline_timer_(connection.executor()) {
  StartRequest();
}

HttpSession::~HttpSession() = default;

std::span<uint8_t> HttpSession::PrepareRead(size_t min_size) {
  if (input_begin_ == input_.size()) {
    // A large body's buffer is not kept for the requests after it.
    if (input_.capacity() > codec::kRetainedBufferBytes) {
      std::string().swap(input_);
    } else {
      input_.clear();
    }
    input_begin_ = 0;
  } else if (input_begin_ > input_.size() / 2) {
    input_.erase(0, input_begin_);
    input_begin_ = 0;
  }
  read_at_ = input_.size();
  input_.resize(read_at_ + min_size);
  return {reinterpret_cast<uint8_t*>(input_.data() + read_at_), min_size};
}

void HttpSession::CommitRead(size_t n) { input_.resize(read_at_ + n); }

size_t HttpSession::held_bytes() const {
  return input_.capacity() + parser_->parser.get().body().capacity() +
         (exchange_ != nullptr ? exchange_->body_capacity() : 0);
}

bool HttpSession::WantsRead() const {
  return exchange_ == nullptr && late_exchange_ == 0 && !stalled_ && !closing_;
}

void HttpSession::Written() {
  if (!stalled_ || !connection_.MayServeNextHttp()) return;
  stalled_ = false;
  connection_.ServeHttp();
}

bool HttpSession::Idle() const { return exchange_ == nullptr && !request_started_; }

void HttpSession::StartRequest() {
  parser_ = std::make_unique<Parser>(options_);
  request_started_ = false;
}

void HttpSession::Process() {
  stalled_ = false;
  while (exchange_ == nullptr && late_exchange_ == 0 && !closing_ && input_begin_ < input_.size()) {
    if (!request_started_) {
      // Otherwise a client that sends requests and never reads would have the server hold an
      // answer for every request a read brought (hundreds of /metrics pages from 16 KiB).
      if (!connection_.MayServeNextHttp()) {
        stalled_ = true;
        return;
      }
      request_started_ = true;
      ArmRequestTimer();
    }
    RequestParser& parser = parser_->parser;
    boost::system::error_code error;
    size_t used = 0;
    try {
      used = parser.put(
          boost::asio::buffer(input_.data() + input_begin_, input_.size() - input_begin_), error);
    } catch (const std::length_error&) {
      // Beast keeps a field's name and value lengths in 16 bits, and throws past them.
      return Fail(431, "a request header field longer than 65533 bytes");
    }
    input_begin_ += used;
    if (error == beast_http::error::header_limit) {
      return Fail(431, "request header larger than server.http.max_header_bytes (" +
                           std::to_string(options_.max_header_bytes) + ")");
    }
    if (error == beast_http::error::body_limit) {
      return Fail(413, "request body larger than server.http.max_body_bytes (" +
                           std::to_string(options_.max_body_bytes) + ")");
    }
    if (error && error != beast_http::error::need_more) {
      return Fail(400, "malformed HTTP request: " + error.message());
    }
    if (parser.is_header_done() && !std::exchange(parser_->framing_checked, true) &&
        !CheckFraming()) {
      return;
    }
    if (!parser.is_done()) {
      // Past the header, Beast takes a body's bytes as they come, so what it leaves unparsed is
      // a chunk's size line or the trailer, which Beast 1.81 does not bound: they are held to
      // the header's limit.
      if (parser.is_header_done() && input_.size() - input_begin_ > options_.max_header_bytes) {
        return Fail(431, "chunk size line or trailer larger than server.http.max_header_bytes (" +
                             std::to_string(options_.max_header_bytes) + ")");
      }
      if (error == beast_http::error::need_more || used == 0) return;
      continue;
    }
    request_deadline_ = Clock::time_point::max();
    dispatching_ = true;
    Dispatch();
    dispatching_ = false;
  }
}

// RFC 9112 §6.3: a request whose last transfer coding is not chunked has no length the server
// can know, and Beast reads it as having no body, so what follows would be served as the next
// request (smuggling, behind a front end that forwards such a request). §6.1: a coding the
// server cannot decode is 501, as nginx answers.
bool HttpSession::CheckFraming() {
  const auto& header = parser_->parser.get();
  const auto [begin, end] = header.equal_range(beast_http::field::transfer_encoding);
  if (begin == end) return true;
  std::string codings;
  for (auto field = begin; field != end; ++field) {
    if (!codings.empty()) codings += ", ";
    codings.append(field->value().data(), field->value().size());
  }
  // Quoted in the answer and the log line, whatever its length.
  constexpr size_t kQuoted = 64;
  const std::string quoted =
      codings.size() > kQuoted ? codings.substr(0, kQuoted) + "..." : codings;
  if (!parser_->parser.chunked()) {
    Fail(400, "Transfer-Encoding '" + quoted +
                  "' does not end in chunked: the request's length is unknown");
    return false;
  }
  if (!boost::beast::iequals(TrimmedOws(codings), "chunked")) {
    Fail(501, "Transfer-Encoding '" + quoted + "': no coding but chunked is supported",
         StatusCode::UNIMPLEMENTED);
    return false;
  }
  return true;
}

void HttpSession::Dispatch() {
  beast_http::request<ArrivingStringBody> message = parser_->parser.release();
  StartRequest();
  HttpExchange::Parsed parsed;
  parsed.method = std::string(message.method_string());
  parsed.target = std::string(message.target());
  parsed.keep_alive = message.keep_alive() && !draining_;
  parsed.version = message.version();
  parsed.headers.reserve(std::distance(message.begin(), message.end()));
  for (const auto& field : message) {
    parsed.headers.emplace_back(std::string(field.name_string()), std::string(field.value()));
  }
  parsed.body = std::move(message.body());
  std::string forwarded_client =
      ForwardedClient(connection_.core().trusted_proxies, connection_.peer_ip(), parsed.headers);
  exchange_ = std::make_unique<Exchange>(
      ++exchanges_, std::move(parsed),
      HttpExchange::Origin{.peer = connection_.peer(),
                           .peer_identity = connection_.peer_identity(),
                           .peer_address = connection_.peer_address(),
                           .forwarded_client = std::move(forwarded_client)});
  const HttpRequest& request = exchange_->request();
  const uint64_t id = exchange_->id();

  if (draining_) {
    return Respond(id, JsonError(503, StatusCode::DRAINING, "server is shutting down"));
  }
  // The JSON gateway: POST /<full.service.Name>/<Method> of a service this server serves.
  if (port_ != HttpRouter::Port::kAdmin && request.method() == "POST") {
    if (server::StartGatewayCall(connection_, request, id)) return;
  }
  HttpRouter::Match match;
  std::string allowed;
  // Outside server.http.admin_networks the shared port has no admin pages.
  const HttpRouter::Port routes =
      connection_.core().admin_guard.RoutesFor(port_, request, connection_.peer_ip());
  if (!router_.Find(request.method(), request.path(), routes, &match, &allowed)) {
    if (!allowed.empty()) {
      HttpResponse response = JsonError(405, StatusCode::UNIMPLEMENTED,
                                        std::string(request.method()) + " is not served at " +
                                            std::string(request.path()) + "; allowed: " + allowed);
      response.Set("Allow", allowed);
      return Respond(id, std::move(response));
    }
    // POST /<a.dotted.Name>/<Method> is meant for the gateway: say which part is unknown.
    const std::vector<std::string_view> segments = SplitPath(request.path());
    if (request.method() == "POST" && segments.size() == 2 &&
        segments[0].find('.') != std::string_view::npos) {
      return Respond(id, JsonError(404, StatusCode::NOT_FOUND,
                                   "unknown service '" + std::string(segments[0]) +
                                       "': this server does not serve it"));
    }
    return Respond(id, JsonError(404, StatusCode::NOT_FOUND,
                                 "no route for " + std::string(request.method()) + " " +
                                     std::string(request.path())));
  }
  exchange_->SetParams(std::move(match.params));
  server::RunRoute(connection_, match, exchange_->request(), id);
}

void HttpSession::Respond(uint64_t exchange, HttpResponse response) {
  if (exchange_ == nullptr || exchange_->id() != exchange || closing_) {
    // The dropped answer of a call answered at its deadline: it has ended, and the next request
    // may be served.
    if (exchange != 0 && exchange == late_exchange_) {
      late_exchange_ = 0;
      if (!dispatching_) connection_.ServeHttp();
    }
    return;
  }
  if (const std::string invalid = InvalidAnswer(response); !invalid.empty()) {
    const HttpRequest& request = exchange_->request();
    connection_.core().invalid_http_answers.Log(
        spdlog::level::err,
        "ferry server: answering {} {} with 500 instead of the route's answer: {}",
        request.method(), request.path(), invalid);
    response = JsonError(500, StatusCode::INTERNAL, "the route's answer is not valid HTTP");
  }
  const bool keep_alive = exchange_->keep_alive() && !draining_;
  const std::string_view bytes =
      Serialize(std::move(response), exchange_->version(), keep_alive, exchange_->head());
  connection_.EnqueueHttp(bytes);  // before anything else may serialize into `bytes`
  exchange_.reset();
  deadline_timer_.cancel();
  if (!keep_alive) {
    closing_ = true;
    connection_.CloseAfterFlush("HTTP connection not kept alive");
    return;
  }
  // Answered inside Dispatch(): Process() goes on with the next request itself, without
  // recursing once per pipelined request.
  if (dispatching_) return;
  // Pipelined requests waiting in the buffer come next; then the connection reads on.
  connection_.ServeHttp();
}

void HttpSession::Fail(int status, std::string_view message, StatusCode code) {
  request_deadline_ = Clock::time_point::max();
  HttpResponse response = JsonError(status, code, message);
  const std::string_view bytes =
      Serialize(std::move(response), 11, /*keep_alive=*/false, /*head=*/false);
  closing_ = true;
  connection_.EnqueueHttp(bytes);
  connection_.CloseAfterFlush("HTTP " + std::to_string(status) + ": " + std::string(message));
}

HttpResponse HttpSession::CallAnswer(const Status& status,
                                     const google::protobuf::Message* response) {
  if (!status.ok()) {
    const HttpStatusOf mapped = HttpStatusFor(status.code());
    HttpResponse answer = JsonError(mapped.status, status.code(), status.message());
    if (mapped.retry_after) answer.Set("Retry-After", "1");
    return answer;
  }
  HttpResponse answer;
  answer.Set("Content-Type", "application/json");
  if (!codec::ToJson(*response, &answer.body).ok()) {
    return JsonError(500, StatusCode::INTERNAL, "cannot write the response as JSON");
  }
  return answer;
}

void HttpSession::ExpireAt(uint64_t exchange, std::chrono::steady_clock::time_point deadline,
                           std::function<void()> expire) {
  deadline_timer_.expires_at(deadline);
  deadline_timer_.async_wait([this, weak = connection_.weak_from_this(), exchange,
                              expire = std::move(expire)](const boost::system::error_code& error) {
    const auto alive = weak.lock();
    if (!error && alive && exchange_ != nullptr && exchange_->id() == exchange) {
      late_exchange_ = exchange;
      expire();
    }
  });
}

void HttpSession::Drain() {
  draining_ = true;
  if (Idle()) {
    closing_ = true;
    connection_.CloseAfterFlush("server is shutting down");
  }
}

// The timer is set lazily: a request that arrives whole (nearly all of them) moves a deadline
// and costs no timer syscall; the timer, armed at most once at a time, checks the deadline when
// it fires and follows it if it moved.
void HttpSession::ArmRequestTimer() {
  if (options_.request_timeout.count() <= 0) return;
  request_deadline_ = Clock::now() + options_.request_timeout;
  if (!request_timer_armed_) WaitForRequestDeadline(request_deadline_);
}

void HttpSession::WaitForRequestDeadline(Clock::time_point at) {
  request_timer_armed_ = true;
  request_timer_.expires_at(at);
  request_timer_.async_wait(
      [weak = connection_.weak_from_this(), this](const boost::system::error_code& error) {
        const auto alive = weak.lock();
        if (!error && alive) OnRequestTimer();
      });
}

void HttpSession::OnRequestTimer() {
  request_timer_armed_ = false;
  if (closing_ || request_deadline_ == Clock::time_point::max()) return;
  if (Clock::now() < request_deadline_) return WaitForRequestDeadline(request_deadline_);
  // Still receiving a request begun request_timeout_ms ago: a slow or stalled client.
  Fail(408, "request not received within server.http.request_timeout_ms (" +
                std::to_string(options_.request_timeout.count()) + ")");
}

}  // namespace ferry::http
